// A simulated shopper for the demo shop: it searches through the search API with the demo's search
// key, as a shop's page would (`Meili-Include-Metadata: true`, `X-MS-USER-ID`, `relevanceScore:
// true`), and clicks and buys by a known rule, so the quality report and the training export have
// outcomes whose truth is known.
//
// The rule. Each search takes one of the demo's judged queries (demo-queries.ts: each has the
// category the shopper means) from a pool of the first `pool` of them, uniformly, and one of `users`
// shopper ids. Of the answer's first `topK` hits, the shopper looks for the first one whose
// `category` is the intended one:
//   - found: it clicks it with probability `clickProbability`, and after a click buys it (a
//     conversion) with probability `conversionProbability`;
//   - not found: no click, no conversion.
// So a query's expected click-through rate is clickProbability when its top `topK` hold a product
// of the intended category, else 0: queries whose results are good (the demo label, the share of
// the top 10 in the intended category, is high) are clicked, bad ones are not, and a score that
// predicts quality predicts the clicks.
//
// Deterministic given the seed: every search draws the same random numbers in the same order
// (query, user, click, conversion) whatever the answer, so the same seed over the same catalog
// makes the same searches, clicks and conversions. Bounded: at most MAX_SHOPPER_SEARCHES searches, at
// most `ratePerSecond` requests a second (searches and events), one request at a time.
//
// Events go to POST /api/v1/events in Meilisearch's shape (eventType, eventName, indexUid,
// queryUid, objectId, objectName, position, userId), only for answers that carry
// `metadata.queryUid`; answers without one are counted (`withoutQueryUid`).
//
// Behaviour (`behaviour`, `--behaviour`): `queries` (the default) types the judged query; `categories`
// types only the intended category's name, as a front end whose category links search would: the
// same shoppers and intentions, a different query mix (one or two words, many hits), so live
// searches drift away from what a model trained on `queries` traffic saw (docs/quality.md, drift).
//
//   npm run demo:shopper -- --url http://127.0.0.1:8787 --searches 500 --seed 1 [--data-dir .data] [--behaviour categories]
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { mulberry32 } from "@shared/kernel";
import { DEMO_INDEX } from "./demo.ts";
import { type DemoQuery, generateDemoQueries } from "./demo-queries.ts";

export const MAX_SHOPPER_SEARCHES = 100_000;
export const MAX_SHOPPER_RATE = 200;
/** Times an event refused for the key's rate (429) is sent again, after its Retry-After. */
export const MAX_EVENT_RETRIES = 3;

export const SHOPPER_DEFAULTS = {
  index: DEMO_INDEX,
  /** Judged queries the shopper draws from: with 500 searches, each is searched about 5 times. */
  pool: 100,
  users: 40,
  topK: 5,
  clickProbability: 0.8,
  conversionProbability: 0.25,
  /** Hits asked per search: the search API's default page. */
  limit: 20,
  ratePerSecond: 20,
} as const;

/** What the shopper types: the judged query, or the intended category's name. */
export const SHOPPER_BEHAVIOURS = ["queries", "categories"] as const;
export type ShopperBehaviour = (typeof SHOPPER_BEHAVIOURS)[number];

export const CLICK_EVENT_NAME = "Search Result Clicked";
export const CONVERSION_EVENT_NAME = "Product Purchased";

export interface ShopperOptions {
  /** The search API's origin, e.g. http://127.0.0.1:8787. */
  url: string;
  /** A search key of the demo account (demo.json `searchApiKey`). */
  searchApiKey: string;
  searches: number;
  seed: number;
  index?: string;
  pool?: number;
  users?: number;
  topK?: number;
  clickProbability?: number;
  conversionProbability?: number;
  limit?: number;
  ratePerSecond?: number;
  /** What the shopper types (default `queries`). */
  behaviour?: ShopperBehaviour;
  /** The judged queries (default: the demo's, generateDemoQueries()). */
  queries?: readonly Pick<DemoQuery, "q" | "intendedCategory">[];
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface ShopperSummary {
  searches: number;
  /** Answers with a relevanceScore. */
  scored: number;
  /** Answers with a hit of the intended category in the top k: those the shopper may click. */
  relevant: number;
  withoutQueryUid: number;
  searchErrors: number;
  clicks: number;
  conversions: number;
  /** Events answered with anything but 201 (after the retries of a 429), and the first such answer. */
  eventsRefused: number;
  /** Events sent again after a 429 (the key's event rate). */
  eventsRetried: number;
  firstRefusal: string | null;
  /** Per query text: searches, those with the intended category in the top k, clicks, conversions. */
  byQuery: Record<
    string,
    { intendedCategory: string; searches: number; relevant: number; clicks: number; conversions: number }
  >;
}

/** The shopper's seeded random numbers: the kernel's mulberry32. */
export const shopperRandom: (seed: number) => () => number = mulberry32;

interface Hit {
  id?: unknown;
  title?: unknown;
  category?: unknown;
}

function check(o: Required<Pick<ShopperOptions, "searches" | "ratePerSecond" | "pool" | "users" | "topK">>) {
  const int = (name: string, v: number, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max)
      throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${v}`);
  };
  int("searches", o.searches, 1, MAX_SHOPPER_SEARCHES);
  int("users", o.users, 1, 1_000_000);
  int("pool", o.pool, 1, 100_000);
  int("topK", o.topK, 1, 1000);
  if (!(o.ratePerSecond > 0 && o.ratePerSecond <= MAX_SHOPPER_RATE))
    throw new RangeError(
      `ratePerSecond must be above 0 and at most ${MAX_SHOPPER_RATE}, got ${o.ratePerSecond}`,
    );
}

/** Runs the shopper: `searches` searches with their clicks and conversions, one request at a time. */
export async function runShopper(options: ShopperOptions): Promise<ShopperSummary> {
  const o = { ...SHOPPER_DEFAULTS, ...options };
  check(o);
  const behaviour = options.behaviour ?? "queries";
  if (!SHOPPER_BEHAVIOURS.includes(behaviour))
    throw new RangeError(`behaviour must be one of ${SHOPPER_BEHAVIOURS.join(", ")}, got ${behaviour}`);
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = options.now ?? Date.now;
  const queries = (options.queries ?? generateDemoQueries()).slice(0, o.pool);
  if (queries.length === 0) throw new RangeError("there are no queries to search");
  const random = shopperRandom(o.seed);
  const base = o.url.replace(/\/+$/, "");
  const auth = { authorization: `Bearer ${o.searchApiKey}` };
  const gap = 1000 / o.ratePerSecond;
  let nextAt = now();
  // One request at a time, at most ratePerSecond of them a second.
  const paced = async <T>(request: () => Promise<T>): Promise<T> => {
    const wait = nextAt - now();
    if (wait > 0) await sleep(wait);
    nextAt = Math.max(nextAt, now()) + gap;
    return request();
  };
  const summary: ShopperSummary = {
    searches: 0,
    scored: 0,
    relevant: 0,
    withoutQueryUid: 0,
    searchErrors: 0,
    clicks: 0,
    conversions: 0,
    eventsRefused: 0,
    eventsRetried: 0,
    firstRefusal: null,
    byQuery: {},
  };
  const send = async (event: Record<string, unknown>, userId: string) => {
    const post = () =>
      paced(() =>
        doFetch(`${base}/api/v1/events`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json", "x-ms-user-id": userId },
          body: JSON.stringify(event),
        }),
      );
    let res = await post();
    // Over the key's event rate (429), a shop's page waits as told and sends again, as here; a
    // few times at most. No random number is drawn, so the seed still decides every choice.
    for (let retry = 0; res.status === 429 && retry < MAX_EVENT_RETRIES; retry++) {
      await res.text();
      const seconds = Number(res.headers.get("retry-after"));
      await sleep(1000 * (Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 5) : 1));
      summary.eventsRetried += 1;
      res = await post();
    }
    const text = await res.text();
    if (res.status === 201) return true;
    summary.eventsRefused += 1;
    summary.firstRefusal ??= `${res.status} ${text.slice(0, 200)}`;
    return false;
  };

  for (let s = 0; s < o.searches; s++) {
    // Always four draws per search, in this order: the same seed gives the same choices.
    const query = queries[Math.floor(random() * queries.length)] as (typeof queries)[number];
    const userId = `shopper-${Math.floor(random() * o.users)}`;
    const clickRoll = random();
    const conversionRoll = random();
    const stats = summary.byQuery[query.q] ?? {
      intendedCategory: query.intendedCategory,
      searches: 0,
      relevant: 0,
      clicks: 0,
      conversions: 0,
    };
    summary.byQuery[query.q] = stats;
    stats.searches += 1;
    summary.searches += 1;
    const res = await paced(() =>
      doFetch(`${base}/api/v1/indexes/${encodeURIComponent(o.index)}/search`, {
        method: "POST",
        headers: {
          ...auth,
          "content-type": "application/json",
          "meili-include-metadata": "true",
          "x-ms-user-id": userId,
        },
        body: JSON.stringify({
          q: behaviour === "categories" ? query.intendedCategory.toLowerCase() : query.q,
          limit: o.limit,
          relevanceScore: true,
        }),
      }),
    );
    if (res.status !== 200) {
      await res.text();
      summary.searchErrors += 1;
      continue;
    }
    const answer = (await res.json()) as {
      hits?: Hit[];
      relevanceScore?: unknown;
      metadata?: { queryUid?: unknown; indexUid?: unknown };
    };
    if (typeof answer.relevanceScore === "number") summary.scored += 1;
    const hits = Array.isArray(answer.hits) ? answer.hits : [];
    const position = hits.slice(0, o.topK).findIndex((h) => h.category === query.intendedCategory);
    if (position >= 0) {
      summary.relevant += 1;
      stats.relevant += 1;
    }
    const queryUid = answer.metadata?.queryUid;
    if (typeof queryUid !== "string") {
      summary.withoutQueryUid += 1;
      continue;
    }
    if (position < 0 || clickRoll >= o.clickProbability) continue;
    const hit = hits[position] as Hit;
    const event = {
      eventName: CLICK_EVENT_NAME,
      eventType: "click",
      indexUid: o.index,
      queryUid,
      objectId: String(hit.id),
      ...(typeof hit.title === "string" ? { objectName: hit.title.slice(0, 256) } : {}),
      position,
      userId,
    };
    if (!(await send(event, userId))) continue;
    summary.clicks += 1;
    stats.clicks += 1;
    if (conversionRoll >= o.conversionProbability) continue;
    if (await send({ ...event, eventType: "conversion", eventName: CONVERSION_EVENT_NAME }, userId)) {
      summary.conversions += 1;
      stats.conversions += 1;
    }
  }
  return summary;
}

/** The demo's search key from DATA_DIR/demo.json (npm start writes it). */
export function demoSearchKey(dataDir: string): string {
  const file = join(resolve(dataDir), "demo.json");
  let saved: { searchApiKey?: unknown };
  try {
    saved = JSON.parse(readFileSync(file, "utf8")) as { searchApiKey?: unknown };
  } catch (error) {
    throw new Error(
      `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "not JSON"}): start the demo with npm start, or pass --search-key`,
    );
  }
  if (typeof saved.searchApiKey !== "string")
    throw new Error(`${file} has no searchApiKey: pass --search-key`);
  return saved.searchApiKey;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: `http://127.0.0.1:${process.env.PORT ?? "8787"}` },
      searches: { type: "string", default: "500" },
      seed: { type: "string", default: "1" },
      "data-dir": { type: "string", default: process.env.DATA_DIR ?? ".data" },
      "search-key": { type: "string" },
      index: { type: "string", default: DEMO_INDEX },
      rate: { type: "string", default: String(SHOPPER_DEFAULTS.ratePerSecond) },
      behaviour: { type: "string", default: "queries" },
    },
  });
  try {
    const summary = await runShopper({
      url: values.url as string,
      searchApiKey: values["search-key"] ?? demoSearchKey(values["data-dir"] as string),
      searches: Number(values.searches),
      seed: Number(values.seed),
      index: values.index as string,
      ratePerSecond: Number(values.rate),
      behaviour: values.behaviour as ShopperBehaviour,
    });
    const { byQuery, ...totals } = summary;
    process.stdout.write(
      `shopper: ${totals.searches} searches (${totals.scored} scored, ${Object.keys(byQuery).length} queries, ` +
        `${totals.relevant} with the intended category in the top ${SHOPPER_DEFAULTS.topK}), ` +
        `${totals.clicks} clicks, ${totals.conversions} conversions` +
        `${totals.withoutQueryUid > 0 ? `; ${totals.withoutQueryUid} answers without a queryUid (no events sent for them)` : ""}` +
        `${totals.searchErrors > 0 ? `; ${totals.searchErrors} searches failed` : ""}` +
        `${totals.eventsRetried > 0 ? `; ${totals.eventsRetried} events sent again after a 429` : ""}` +
        `${totals.eventsRefused > 0 ? `; ${totals.eventsRefused} events refused (first: ${totals.firstRefusal})` : ""}\n`,
    );
  } catch (error) {
    process.stderr.write(`shopper: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
