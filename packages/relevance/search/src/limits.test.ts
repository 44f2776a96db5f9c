import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { createSearchApp } from "./app.ts";
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTE_LIST,
  MAX_BODY_BYTES,
  MAX_CROP_LENGTH,
  MAX_FACETS,
  MAX_FILTER_CHARS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_ITEMS,
  MAX_HITS_PER_PAGE,
  MAX_OFFSET,
  MAX_PAGE,
  MAX_QUERY_CHARS,
  MAX_SORT,
  MAX_TAG_CHARS,
  SEARCH_LIMITS,
} from "./limits.ts";
import { filterDepthExceeds } from "./request.ts";
import { FixedHitsBackend, newKv, putApiKey, putSettings, recordingLogger } from "./test-support/harness.ts";

const ACCOUNT = "acct_aaaaaaaaaaaa";
const KEY = "rk_key_of_account_a";

let backend: FixedHitsBackend;
let app: ReturnType<typeof createSearchApp>;

beforeEach(async () => {
  const kv = newKv();
  await putApiKey(kv, KEY, ACCOUNT);
  await putSettings(kv, ACCOUNT, "products", { filterable_attributes: ["tags"] });
  backend = new FixedHitsBackend([{ id: "1", title: "Red shoes", tags: ["shoes"] }]);
  app = createSearchApp({ kv, retrieval: backend, log: recordingLogger() });
});

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: error bodies are checked field by field.
  body: any;
}

async function post(raw: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await app.request("/api/v1/indexes/products/search", {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY, ...headers },
    body: raw,
  });
  return { status: res.status, body: await res.json() };
}

const search = (body: unknown) => post(JSON.stringify(body));

/** A 4xx in the shared error shape whose details name `field`, and a normal search right after. */
async function expectRefused(answer: Answer, status: number, field: string, limit: number): Promise<void> {
  expect(answer.status).toBe(status);
  expect(answer.body.error.code).toEqual(expect.any(String));
  expect(answer.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  expect(JSON.stringify(answer.body)).toContain(String(limit));
  expect(backend.calls).toEqual([]);
  const next = await search({ q: "red" });
  expect(next.status).toBe(200);
  expect(next.body.hits).toHaveLength(1);
  backend.calls.length = 0;
}

describe("search request limits", () => {
  it("refuses q above 1000 characters with 422 naming q and the limit, then serves the next search", async () => {
    expect((await search({ q: "a".repeat(MAX_QUERY_CHARS) })).status).toBe(200);
    backend.calls.length = 0;
    await expectRefused(await search({ q: "a".repeat(MAX_QUERY_CHARS + 1) }), 422, "q", MAX_QUERY_CHARS);
  });

  it("answers a 100 KB word and 100,000 words with 422 naming q, and the next search still works", async () => {
    await expectRefused(await search({ q: "x".repeat(100 * 1024) }), 422, "q", MAX_QUERY_CHARS);
    await expectRefused(await search({ q: "word ".repeat(100_000) }), 422, "q", MAX_QUERY_CHARS);
  });

  it("refuses offset above 10,000 with 422 naming offset", async () => {
    expect((await search({ q: "", offset: MAX_OFFSET })).status).toBe(200);
    backend.calls.length = 0;
    await expectRefused(await search({ q: "", offset: MAX_OFFSET + 1 }), 422, "offset", MAX_OFFSET);
  });

  it("refuses a filter above 4096 characters with 422 naming filter", async () => {
    const filter = `tags IN [${Array.from({ length: 1000 }, (_, i) => `t${i}`).join(", ")}]`;
    expect(filter.length).toBeGreaterThan(MAX_FILTER_CHARS);
    await expectRefused(await search({ q: "", filter }), 422, "filter", MAX_FILTER_CHARS);
  });

  it("refuses a filter nested 5,000 parentheses deep with 422 naming filter, never 500", async () => {
    const deep = `${"(".repeat(5000)}tags = shoes${")".repeat(5000)}`;
    await expectRefused(await search({ q: "", filter: deep }), 422, "filter", MAX_FILTER_CHARS);
  });

  it("refuses a filter within the length limit but nested 2,000 deep with 422 naming filter and the depth", async () => {
    const deep = `${"(".repeat(2000)}tags = shoes${")".repeat(2000)}`;
    expect(deep.length).toBeLessThanOrEqual(MAX_FILTER_CHARS);
    await expectRefused(await search({ q: "", filter: deep }), 422, "filter", MAX_FILTER_DEPTH);
  });

  it("refuses a chain of 1,000 NOTs with 422 naming filter (the Meilisearch backend would get it as is)", async () => {
    const chain = `${"NOT ".repeat(1000)}tags = shoes`;
    await expectRefused(await search({ q: "", filter: chain }), 422, "filter", MAX_FILTER_DEPTH);
  });

  it("passes a filter exactly at the depth limit on to the backend", async () => {
    const filter = `${"(".repeat(MAX_FILTER_DEPTH)}tags = shoes${")".repeat(MAX_FILTER_DEPTH)}`;
    expect((await search({ q: "", filter })).status).toBe(200);
    expect(backend.calls[0]?.query.filter).toBe(filter);
  });

  it.each([
    ["page", MAX_PAGE, (n: number) => ({ page: n })],
    ["hitsPerPage", MAX_HITS_PER_PAGE, (n: number) => ({ hitsPerPage: n })],
    ["sort", MAX_SORT, (n: number) => ({ sort: Array.from({ length: n }, (_, i) => `a${i}:asc`) })],
    ["facets", MAX_FACETS, (n: number) => ({ facets: Array.from({ length: n }, (_, i) => `a${i}`) })],
    [
      "attributesToRetrieve",
      MAX_ATTRIBUTE_LIST,
      (n: number) => ({ attributesToRetrieve: Array(n).fill("a") }),
    ],
    [
      "attributesToHighlight",
      MAX_ATTRIBUTE_LIST,
      (n: number) => ({ attributesToHighlight: Array(n).fill("a") }),
    ],
    ["attributesToCrop", MAX_ATTRIBUTE_LIST, (n: number) => ({ attributesToCrop: Array(n).fill("a") })],
    ["facets[0]", MAX_ATTRIBUTE_CHARS, (n: number) => ({ facets: ["a".repeat(n)] })],
    ["sort[0]", MAX_ATTRIBUTE_CHARS, (n: number) => ({ sort: [`${"a".repeat(n - 4)}:asc`] })],
    ["highlightPreTag", MAX_TAG_CHARS, (n: number) => ({ highlightPreTag: "<".repeat(n) })],
    ["highlightPostTag", MAX_TAG_CHARS, (n: number) => ({ highlightPostTag: ">".repeat(n) })],
    ["cropMarker", MAX_TAG_CHARS, (n: number) => ({ cropMarker: ".".repeat(n) })],
    ["cropLength", MAX_CROP_LENGTH, (n: number) => ({ cropLength: n })],
    ["filter", MAX_FILTER_ITEMS, (n: number) => ({ filter: [Array(n).fill("tags = a")] })],
  ] as const)(
    "accepts %s at its bound %i and refuses one more with 422 naming it, before any work",
    async (field, limit, body) => {
      expect((await search({ q: "", ...body(limit) })).status).toBe(200);
      backend.calls.length = 0;
      await expectRefused(await search({ q: "", ...body(limit + 1) }), 422, field, limit);
    },
  );

  it("checks an array filter's characters and depth on the whole array", async () => {
    const long = Array.from({ length: 4 }, () => `tags = ${"x".repeat(1100)}`);
    await expectRefused(await search({ q: "", filter: long }), 422, "filter", MAX_FILTER_CHARS);
    const deep = [`${"(".repeat(MAX_FILTER_DEPTH)}tags = a${")".repeat(MAX_FILTER_DEPTH)}`];
    await expectRefused(await search({ q: "", filter: deep }), 422, "filter", MAX_FILTER_DEPTH);
  });

  it("refuses a body nested beyond 32 levels with 422, without a stack overflow", async () => {
    const raw = `{"q": "red", "x": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const answer = await post(raw);
    expect(answer.status).toBe(422);
    expect(answer.body.error.message).toMatch(/forbidden shape/);
    expect((await search({ q: "red" })).status).toBe(200);
  });

  it("refuses __proto__, constructor and prototype keys with 422 naming them", async () => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const answer = await post(`{"q": "red", "${key}": {"polluted": true}}`);
      expect(answer.status).toBe(422);
      expect(answer.body.error.details.map((d: { path: string }) => d.path)).toContain(key);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses a body above 1 MiB with a JSON 413 naming body and the limit, then serves the next search", async () => {
    const answer = await search({ q: "red", filter: "x".repeat(MAX_BODY_BYTES) });
    await expectRefused(answer, 413, "body", MAX_BODY_BYTES);
    expect(answer.body.error.code).toBe("payload_too_large");
  });

  it("documents every enforced bound as a complete limits row", () => {
    for (const row of SEARCH_LIMITS) {
      expect(row.area).not.toBe("");
      expect(row.field).not.toBe("");
      expect(Number.isFinite(row.limit) && row.limit > 0).toBe(true);
      if (row.status === 0) expect(row.note).toBeTruthy();
    }
    const fields = SEARCH_LIMITS.filter((r) => r.status === 422).map((r) => r.field);
    expect(new Set(fields)).toEqual(
      new Set([
        "body",
        "q",
        "limit",
        "offset",
        "filter",
        "page",
        "hitsPerPage",
        "sort",
        "facets",
        "attributesToRetrieve",
        "attribute names",
        "highlightPreTag",
        "cropLength",
        "queries",
        "facetQuery",
        "facetName",
        "query string",
      ]),
    );
  });
});

describe("filterDepthExceeds", () => {
  it.each([
    ["a = 1", 0],
    ["(a = 1)", 1],
    ["((a = 1) OR (b = 2))", 2],
    ["NOT a = 1", 1],
    ["NOT NOT (NOT a = 1)", 4],
    ["NOT a = 1 AND NOT b = 2 AND NOT c = 3", 1],
    ["not (a = 1)", 2],
    ["a = '((((('", 0],
    ['a = "\\"((("', 0],
    ["NOTE = 1", 0],
  ])("measures %s as %i deep", (filter, depth) => {
    expect(filterDepthExceeds(filter, depth)).toBe(false);
    if (depth > 0) expect(filterDepthExceeds(filter, depth - 1)).toBe(true);
  });

  it("looks at each character at most a fixed number of times, whatever the nesting", () => {
    // Work is measured as the string positions visited, through a counting proxy of charAt.
    const visits = (source: string): number => {
      let n = 0;
      const counted = {
        length: source.length,
        charAt: (i: number) => {
          n++;
          return source.charAt(i);
        },
        slice: (a: number, b: number) => source.slice(a, b),
      };
      filterDepthExceeds(counted as unknown as string, Number.MAX_SAFE_INTEGER);
      return n;
    };
    fc.assert(
      fc.property(
        fc.constantFrom("(", "NOT ", "(NOT a = 1 AND ", "'x' OR "),
        fc.integer({ min: 10, max: 200 }),
        (unit, n) => {
          const small = visits(unit.repeat(n));
          const large = visits(unit.repeat(10 * n));
          expect(large).toBeLessThanOrEqual(10 * small + 10);
        },
      ),
      { numRuns: 30 },
    );
  });
});
