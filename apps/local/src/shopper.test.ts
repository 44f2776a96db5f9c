// The simulated shopper against a double of the search API and POST /api/v1/events that answers
// fixed hits per query (with a queryUid, as the search does under Meili-Include-Metadata) and keeps
// every request, on a fake clock.
import { describe, expect, it } from "vitest";
import { CLICK_EVENT_NAME, CONVERSION_EVENT_NAME, MAX_SHOPPER_SEARCHES, runShopper } from "./shopper.ts";

interface Sent {
  at: number;
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

const QUERIES = [
  { q: "toys", intendedCategory: "Toys" }, // a toy at position 2
  { q: "rubber", intendedCategory: "Baby" }, // no baby product in the top 5
  { q: "garden chair", intendedCategory: "Garden" }, // garden only at position 5 (the sixth hit)
];

const HITS: Record<string, { id: string; title: string; category: string }[]> = {
  toys: ["Books", "Games", "Toys", "Toys"].map((category, i) => ({ id: `t${i}`, title: `T ${i}`, category })),
  rubber: ["Shoes", "Tools", "Tools"].map((category, i) => ({ id: `r${i}`, title: `R ${i}`, category })),
  "garden chair": ["Home", "Home", "Home", "Home", "Home", "Garden"].map((category, i) => ({
    id: `g${i}`,
    title: `G ${i}`,
    category,
  })),
};

function shop(options: { queryUid?: boolean; eventStatus?: number; throttleEvery?: number } = {}) {
  const sent: Sent[] = [];
  let clock = 1_000_000;
  let uid = 0;
  let events = 0;
  const fetch = (async (url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body)) as Record<string, unknown>;
    sent.push({ at: clock, url, headers: init.headers as Record<string, string>, body });
    // Every n-th event sent is over the key's rate: 429 with Retry-After, as the search API answers.
    if (url.endsWith("/api/v1/events") && options.throttleEvery !== undefined) {
      events += 1;
      if (events % options.throttleEvery === 0)
        return new Response("{}", { status: 429, headers: { "retry-after": "1" } });
    }
    if (url.endsWith("/api/v1/events"))
      return new Response(options.eventStatus === undefined ? "{}" : "{}", {
        status: options.eventStatus ?? 201,
      });
    uid += 1;
    const queryUid = `0190a1b2-c3d4-7e5f-8a9b-${String(uid).padStart(12, "0")}`;
    return Response.json({
      hits: HITS[body.q as string] ?? [],
      estimatedTotalHits: 4,
      relevanceScore: 6.5,
      ...(options.queryUid === false
        ? {}
        : { metadata: { queryUid, indexUid: "products", primaryKey: "id" } }),
    });
  }) as typeof globalThis.fetch;
  return {
    sent,
    deps: {
      fetch,
      now: () => clock,
      sleep: async (ms: number) => {
        clock += ms;
      },
    },
  };
}

const base = { url: "http://shop.test", searchApiKey: "search-key", queries: QUERIES };

describe("the simulated shopper", () => {
  it("clicks the first hit of the intended category within the top k, and nothing else", async () => {
    const { sent, deps } = shop();
    const summary = await runShopper({
      ...base,
      ...deps,
      searches: 60,
      seed: 3,
      clickProbability: 1,
      conversionProbability: 0,
    });
    const events = sent.filter((s) => s.url.endsWith("/events")).map((s) => s.body);
    expect(summary.byQuery.toys?.clicks).toBe(summary.byQuery.toys?.searches);
    expect(summary.byQuery.toys?.relevant).toBe(summary.byQuery.toys?.searches);
    expect(summary.byQuery["garden chair"]?.relevant).toBe(0);
    expect(summary.byQuery.rubber?.clicks).toBe(0);
    expect(summary.byQuery["garden chair"]?.clicks).toBe(0);
    expect(events.length).toBe(summary.byQuery.toys?.searches);
    for (const e of events) expect(e).toMatchObject({ eventType: "click", objectId: "t2", position: 2 });
    expect(summary.conversions).toBe(0);
  });

  it("sends searches and events as a shop's page does, in Meilisearch's event shape", async () => {
    const { sent, deps } = shop();
    await runShopper({
      ...base,
      ...deps,
      searches: 20,
      seed: 1,
      clickProbability: 1,
      conversionProbability: 1,
    });
    const search = sent.find((s) => s.url.endsWith("/search"));
    expect(search?.url).toBe("http://shop.test/api/v1/indexes/products/search");
    expect(search?.headers).toMatchObject({
      authorization: "Bearer search-key",
      "meili-include-metadata": "true",
      "x-ms-user-id": expect.stringMatching(/^shopper-\d+$/),
    });
    expect(search?.body).toEqual({ q: expect.any(String), limit: 20, relevanceScore: true });
    const [click, conversion] = sent.filter((s) => s.url.endsWith("/api/v1/events"));
    expect(Object.keys(click?.body ?? {}).sort()).toEqual(
      [
        "eventName",
        "eventType",
        "indexUid",
        "objectId",
        "objectName",
        "position",
        "queryUid",
        "userId",
      ].sort(),
    );
    expect(click?.body).toMatchObject({
      eventType: "click",
      eventName: CLICK_EVENT_NAME,
      indexUid: "products",
    });
    expect(conversion?.body).toMatchObject({
      eventType: "conversion",
      eventName: CONVERSION_EVENT_NAME,
      queryUid: click?.body.queryUid,
      objectId: click?.body.objectId,
    });
    expect(click?.headers["x-ms-user-id"]).toBe(click?.body.userId);
  });

  it("clicks with the given probability and converts with the other, the same every run of a seed", async () => {
    const run = async (seed: number) => {
      const { sent, deps } = shop();
      const summary = await runShopper({
        ...base,
        ...deps,
        queries: [QUERIES[0] as (typeof QUERIES)[number]],
        searches: 2000,
        seed,
        clickProbability: 0.5,
        conversionProbability: 0.2,
      });
      return { summary, sent: JSON.stringify(sent.map((s) => s.body)) };
    };
    const a = await run(42);
    expect(a.summary.clicks / 2000).toBeGreaterThan(0.45);
    expect(a.summary.clicks / 2000).toBeLessThan(0.55);
    expect(a.summary.conversions / a.summary.clicks).toBeGreaterThan(0.15);
    expect(a.summary.conversions / a.summary.clicks).toBeLessThan(0.25);
    const b = await run(42);
    expect(b.sent).toBe(a.sent);
    expect((await run(43)).sent).not.toBe(a.sent);
  });

  it("keeps to its rate: requests at least 1/rate s apart on the clock", async () => {
    const { sent, deps } = shop();
    await runShopper({ ...base, ...deps, searches: 50, seed: 9, ratePerSecond: 10, clickProbability: 1 });
    for (let i = 1; i < sent.length; i++)
      expect((sent[i]?.at as number) - (sent[i - 1]?.at as number)).toBeGreaterThanOrEqual(100);
  });

  it("sends no event for an answer without a queryUid, and counts it", async () => {
    const { sent, deps } = shop({ queryUid: false });
    const summary = await runShopper({ ...base, ...deps, searches: 10, seed: 2, clickProbability: 1 });
    expect(summary.withoutQueryUid).toBe(10);
    expect(sent.filter((s) => s.url.endsWith("/events"))).toHaveLength(0);
  });

  it("counts refused events and does not count them as clicks", async () => {
    const { deps } = shop({ eventStatus: 404 });
    const summary = await runShopper({ ...base, ...deps, searches: 30, seed: 2, clickProbability: 1 });
    expect(summary.clicks).toBe(0);
    expect(summary.eventsRefused).toBeGreaterThan(0);
    expect(summary.firstRefusal).toMatch(/^404/);
  });

  it("sends an event again after the Retry-After of a 429, and clicks the same as without it", async () => {
    const plain = shop();
    const throttled = shop({ throttleEvery: 3 });
    const options = { ...base, searches: 30, seed: 2, clickProbability: 1 };
    const expected = await runShopper({ ...options, ...plain.deps });
    const summary = await runShopper({ ...options, ...throttled.deps });
    expect(summary.eventsRetried).toBeGreaterThan(0);
    expect(summary.eventsRefused).toBe(0);
    expect(summary.clicks).toBe(expected.clicks);
    const resent = throttled.sent.filter((s) => s.url.endsWith("/events"));
    expect(resent).toHaveLength(
      plain.sent.filter((s) => s.url.endsWith("/events")).length + summary.eventsRetried,
    );
    // The retry waited the second the 429 asked for.
    const gaps = resent.slice(1).map((s, i) => s.at - (resent[i] as Sent).at);
    expect(gaps.some((g) => g >= 1000)).toBe(true);
  });

  it("types the intended category's name under the categories behaviour, drawing the same choices", async () => {
    const normal = shop();
    const switched = shop();
    const a = await runShopper({ ...base, ...normal.deps, searches: 30, seed: 5 });
    const b = await runShopper({ ...base, ...switched.deps, searches: 30, seed: 5, behaviour: "categories" });
    const typed = (sent: Sent[]) => sent.filter((s) => s.url.endsWith("/search")).map((s) => s.body.q);
    const intended: Record<string, string> = { toys: "toys", rubber: "baby", "garden chair": "garden" };
    expect(typed(switched.sent)).toEqual(typed(normal.sent).map((q) => intended[q as string]));
    // The same queries drawn for the same shoppers: the behaviour changes only what is typed.
    expect(Object.keys(b.byQuery).sort()).toEqual(Object.keys(a.byQuery).sort());
    await expect(
      runShopper({ ...base, ...shop().deps, searches: 1, seed: 1, behaviour: "x" as "queries" }),
    ).rejects.toThrow(/behaviour must be one of queries, categories/);
  });

  it("refuses more searches than its bound, or no rate, before sending anything", async () => {
    const { sent, deps } = shop();
    await expect(
      runShopper({ ...base, ...deps, searches: MAX_SHOPPER_SEARCHES + 1, seed: 1 }),
    ).rejects.toThrow(/searches must be an integer from 1/);
    await expect(runShopper({ ...base, ...deps, searches: 5, seed: 1, ratePerSecond: 0 })).rejects.toThrow(
      /ratePerSecond/,
    );
    expect(sent).toHaveLength(0);
  });
});
