import type { Page, Response } from "playwright-core";

const SEARCH_TIMEOUT_MS = 15_000;

/** What a shopper does on the storefront, and what the page then shows. */
export interface StorefrontPage {
  /** Opens the page and waits for its first results (or its first error). */
  open(url: string): Promise<void>;
  /** Types a query into the search box; resolves with the search requests' statuses once shown. */
  type(query: string): Promise<number[]>;
  /** Ticks a category in the refinement list. */
  refine(category: string): Promise<number[]>;
  /** Types into the refinement list's own search box (a facet search); the values it then lists. */
  searchCategories(text: string): Promise<{ statuses: number[]; values: string[] }>;
  /** Goes to a page of results by its number. */
  goToPage(n: number): Promise<number[]>;
  /** Chooses a sort (an index name or `<index>:<attribute>:<asc|desc>`). */
  sortBy(value: string): Promise<number[]>;
  titles(): Promise<string[]>;
  /** The category of each hit shown. */
  categories(): Promise<string[]>;
  /** The categories the refinement list offers. */
  listedCategories(): Promise<string[]>;
  prices(): Promise<number[]>;
  /** The categories whose checkbox is ticked. */
  refined(): Promise<string[]>;
  /** The errors the page showed (InstantSearch's error event). */
  errors(): Promise<string[]>;
  /** A request the page's own script could make, with its key (a write, say): the status it can read. */
  fetchStatus(url: string, init: { method: string; apiKey: string; body?: unknown }): Promise<number>;
}

const isSearchCall = (r: Response) =>
  /\/(multi-search|search|facet-search)(\?|$)/.test(new URL(r.url()).pathname) &&
  r.request().method() !== "OPTIONS";

export function storefrontPage(page: Page): StorefrontPage {
  // The page's own count of renders (storefront.ts); the checks below run in the page, written as
  // expressions since this file is compiled without the DOM's types.
  const renders = async () => Number((await page.getAttribute("body", "data-renders")) ?? "0");
  /** Until InstantSearch has drawn a result after `before` renders, and is not waiting for another. */
  const drawnAfter = (before: number) =>
    page.waitForFunction(
      `Number(document.body.dataset.renders ?? "0") > ${before} && !["loading", "stalled"].includes(document.body.dataset.status)`,
      undefined,
      { timeout: SEARCH_TIMEOUT_MS },
    );
  /**
   * Runs an action and waits for the search calls it makes, then for the page to draw them
   * (`drawn`: a render of the whole page, or the caller's own sign for a widget that redraws alone).
   */
  const acting = async (
    action: () => Promise<unknown>,
    drawn: (before: number) => Promise<unknown> = drawnAfter,
  ): Promise<number[]> => {
    const statuses: number[] = [];
    const seen = (r: Response) => {
      if (isSearchCall(r)) statuses.push(r.status());
    };
    page.on("response", seen);
    try {
      const before = await renders();
      const first = page.waitForResponse(isSearchCall, { timeout: SEARCH_TIMEOUT_MS });
      await action();
      await first;
      await drawn(before);
      return statuses;
    } finally {
      page.off("response", seen);
    }
  };
  const texts = (selector: string) =>
    page.$$eval(selector, (nodes) => nodes.map((n) => (n.textContent ?? "").trim()));

  return {
    async open(url) {
      const first = page.waitForResponse(isSearchCall, { timeout: SEARCH_TIMEOUT_MS });
      await page.goto(url);
      await first;
      await drawnAfter(0);
    },
    type: (query) => acting(() => page.fill(".ais-SearchBox-input", query)),
    refine: (category) =>
      acting(() =>
        page.click(
          `.ais-RefinementList-item:has(.ais-RefinementList-labelText:text-is("${category}")) input`,
        ),
      ),
    async searchCategories(text) {
      // A facet search redraws the refinement list alone (no page render): its values change.
      const listed = (await texts(".ais-RefinementList-labelText")).join("\n");
      const statuses = await acting(
        () => page.fill(".ais-RefinementList .ais-SearchBox-input", text),
        () =>
          page.waitForFunction(
            `[...document.querySelectorAll(".ais-RefinementList-labelText")].map((n) => n.textContent.trim()).join("\\n") !== ${JSON.stringify(listed)}`,
            undefined,
            { timeout: SEARCH_TIMEOUT_MS },
          ),
      );
      return { statuses, values: await texts(".ais-RefinementList-labelText") };
    },
    goToPage: (n) =>
      acting(() => page.click(`.ais-Pagination-item--page a.ais-Pagination-link:text-is("${n}")`)),
    sortBy: (value) => acting(() => page.selectOption(".ais-SortBy-select", value)),
    titles: () => texts(".ais-Hits-item .title"),
    categories: () => texts(".ais-Hits-item .category"),
    listedCategories: () => texts(".ais-RefinementList-labelText"),
    prices: async () => (await texts(".ais-Hits-item .price")).map(Number),
    refined: () =>
      page.$$eval(".ais-RefinementList-item--selected .ais-RefinementList-labelText", (nodes) =>
        nodes.map((n) => (n.textContent ?? "").trim()),
      ),
    errors: () => texts("#errors li"),
    fetchStatus: (url, init) =>
      page.evaluate(
        async ({ url, init }) => {
          const res = await fetch(url, {
            method: init.method,
            headers: { authorization: `Bearer ${init.apiKey}`, "content-type": "application/json" },
            ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
          });
          return res.status;
        },
        { url, init },
      ),
  };
}
