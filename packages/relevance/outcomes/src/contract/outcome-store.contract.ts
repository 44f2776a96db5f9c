/**
 * One behaviour suite for every OutcomeStore adapter (`@relevance/outcomes/contract`): the memory
 * store, ClickHouse through chDB directly, and ClickHouse over HTTP. Each adapter's test file calls
 * outcomeStoreContract once; the cases are the same, so the adapters agree on every number the
 * quality report and the training export read.
 */
import { FEATURE_SET_V1 } from "@relevance/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scoreBin } from "../outcome-math.ts";
import type { OutcomeStore, QualityQuery, TrainingRowsQuery } from "../ports.ts";
import { uuidV7 } from "../query-uid.ts";
import type { OutcomeEvent, ServedSearch } from "../records.ts";

export interface OutcomeStoreAdapter {
  name: string;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** A store with nothing in it. */
  open(): Promise<OutcomeStore>;
}

const DAY = 86_400_000;
/** 2026-03-10T00:00:00Z: the cases' day. */
const T0 = Date.UTC(2026, 2, 10);

let uidSeq = 0;
/** A distinct v7 uid at `at` (sorting by creation within the millisecond). */
function uid(at: number): string {
  uidSeq += 1;
  const random = new Uint8Array(10);
  new DataView(random.buffer).setUint32(6, uidSeq);
  return uuidV7(at, random);
}

const FEATURES = FEATURE_SET_V1.map((_, i) => i + 0.5);

function search(over: Partial<ServedSearch> = {}): ServedSearch {
  const servedAt = over.servedAt ?? T0 + 3_600_000;
  return {
    queryUid: uid(servedAt),
    account: "acct-a",
    index: "products",
    indexUid: "products",
    modelId: "m1",
    score: 5,
    features: FEATURES,
    query: "Red Shoes",
    queryKey: "red shoes",
    hitIds: ["1", "2", "3"],
    estimatedTotalHits: 3,
    latencyMs: 4.5,
    servedAt,
    userHash: null,
    ...over,
  };
}

function event(
  s: { queryUid: string | null; account: string; index: string },
  over: Partial<OutcomeEvent> = {},
) {
  const e: OutcomeEvent = {
    account: s.account,
    index: s.index,
    queryUid: s.queryUid,
    eventType: "click",
    eventName: "Product Clicked",
    objectId: "1",
    objectName: null,
    position: 0,
    userHash: "u1",
    receivedAt: T0 + 3_700_000,
    ...over,
  };
  return e;
}

function scope(over: Partial<QualityQuery> = {}): QualityQuery {
  return {
    account: "acct-a",
    index: "products",
    since: T0,
    until: T0 + DAY,
    minImpressions: 1,
    maxQueries: 100,
    ...over,
  };
}

function training(over: Partial<TrainingRowsQuery> = {}): TrainingRowsQuery {
  return {
    account: "acct-a",
    index: "products",
    since: T0,
    until: T0 + DAY,
    minImpressions: 1,
    limit: 100,
    ...over,
  };
}

const HOSTILE = [
  `it's "quoted"`,
  "back\\slash\\",
  "new\nline\r\ttab",
  "ünïcødé ✓ 𝄞 😀",
  "'); DROP TABLE x; --",
  "{name:String}",
  "\u0000nul",
];

export function outcomeStoreContract(adapter: OutcomeStoreAdapter): void {
  describe(`OutcomeStore contract: ${adapter.name}`, () => {
    beforeAll(async () => adapter.setup?.());
    afterAll(async () => adapter.teardown?.());

    it("counts a search once stored and resolves a write only once it is readable", async () => {
      const store = await adapter.open();
      await store.recordSearches([]);
      await store.recordEvents([]);
      for (let i = 1; i <= 3; i++) {
        const s = search({ servedAt: T0 + i });
        await store.recordSearches([s]);
        const q = await store.quality(scope());
        expect(q.bins.reduce((n, b) => n + b.searches, 0)).toBe(i);
        await store.recordEvents([event(s, { receivedAt: T0 + i })]);
        expect((await store.quality(scope())).events.attributed).toBe(i);
      }
    });

    it("joins an event to a search only within the same account and queryUid", async () => {
      const store = await adapter.open();
      const s = search();
      const other = search({ account: "acct-b", queryKey: "other" });
      await store.recordSearches([s, other]);
      await store.recordEvents([
        // foreign: another account sends the uid of acct-a's search
        event({ ...s, account: "acct-b" }, { userHash: "foreign" }),
        // unknown uid, and no uid at all
        event({ ...s, queryUid: uid(T0) }, { userHash: "unknown" }),
        event({ ...s, queryUid: null }, { userHash: "none" }),
        // acct-a sends the uid of acct-b's search: never attributed to it
        event({ ...other, account: "acct-a", index: "products" }, { userHash: "cross" }),
      ]);
      let q = await store.quality(scope());
      expect(q.bins).toEqual([{ modelId: "m1", bin: 500, searches: 1, clicked: 0, converted: 0 }]);
      expect(q.events).toEqual({ attributed: 0, unattributed: 3, duplicates: 0 });
      const b = await store.quality(scope({ account: "acct-b" }));
      expect(b.bins).toEqual([{ modelId: "m1", bin: 500, searches: 1, clicked: 0, converted: 0 }]);
      expect(b.events).toEqual({ attributed: 0, unattributed: 1, duplicates: 0 });

      await store.recordEvents([event(s), event(s, { eventType: "conversion", eventName: "Bought" })]);
      q = await store.quality(scope());
      expect(q.bins).toEqual([{ modelId: "m1", bin: 500, searches: 1, clicked: 1, converted: 1 }]);
      expect(q.events).toEqual({ attributed: 2, unattributed: 3, duplicates: 0 });
      expect(q.queries).toEqual([
        { modelId: "m1", queryKey: "red shoes", impressions: 1, clicked: 1, converted: 1, meanScore: 5 },
      ]);
    });

    it("attributes an event sent under another index name of the account (an alias) to its search", async () => {
      const store = await adapter.open();
      const s = search({ index: "shop", indexUid: "products" });
      await store.recordSearches([s]);
      await store.recordEvents([event({ ...s, index: "products" })]);
      const q = await store.quality(scope({ index: "shop" }));
      expect(q.bins[0]?.clicked).toBe(1);
      expect(q.events.attributed).toBe(1);
      // the event is not unattributed in the index it named: its search exists
      expect((await store.quality(scope({ index: "products" }))).events).toEqual({
        attributed: 0,
        unattributed: 0,
        duplicates: 0,
      });
    });

    it("counts the same (user, query, object, type) once", async () => {
      const store = await adapter.open();
      const s = search();
      await store.recordSearches([s]);
      await store.recordEvents([event(s), event(s, { receivedAt: T0 + 3_800_000, eventName: "again" })]);
      await store.recordEvents([event(s)]);
      let q = await store.quality(scope());
      expect(q.events).toEqual({ attributed: 1, unattributed: 0, duplicates: 2 });
      expect(q.bins[0]).toMatchObject({ searches: 1, clicked: 1, converted: 0 });
      await store.recordEvents([
        event(s, { userHash: "u2" }),
        event(s, { objectId: "2" }),
        event(s, { eventType: "conversion" }),
        event({ ...s, queryUid: null }),
        event({ ...s, queryUid: null }),
        event({ ...s, queryUid: null }, { objectId: null }),
        event({ ...s, queryUid: null }, { objectId: null }),
      ]);
      q = await store.quality(scope());
      expect(q.events).toEqual({ attributed: 4, unattributed: 2, duplicates: 4 });
      expect(q.bins[0]).toMatchObject({ searches: 1, clicked: 1, converted: 1 });
    });

    it("takes searches and events of [since, until) only", async () => {
      const store = await adapter.open();
      const before = search({ servedAt: T0 - 1, queryKey: "before" });
      const first = search({ servedAt: T0, queryKey: "first" });
      const last = search({ servedAt: T0 + DAY - 1, queryKey: "last" });
      const after = search({ servedAt: T0 + DAY, queryKey: "after" });
      await store.recordSearches([before, first, last, after]);
      await store.recordEvents([
        event({ ...first, queryUid: null }, { receivedAt: T0 - 1, userHash: "a" }),
        event({ ...first, queryUid: null }, { receivedAt: T0, userHash: "b" }),
        event({ ...first, queryUid: null }, { receivedAt: T0 + DAY - 1, userHash: "c" }),
        event({ ...first, queryUid: null }, { receivedAt: T0 + DAY, userHash: "d" }),
        // a click received the next day still counts for the search it followed
        event(last, { receivedAt: T0 + DAY + 5 }),
      ]);
      const q = await store.quality(scope());
      expect(q.queries.map((x) => x.queryKey)).toEqual(["first", "last"]);
      expect(q.queries.map((x) => x.clicked)).toEqual([0, 1]);
      expect(q.events).toEqual({ attributed: 0, unattributed: 2, duplicates: 0 });
    });

    it("reads an event timed up to a day before the range (clock skew), and none earlier", async () => {
      const store = await adapter.open();
      const skewed = search({ servedAt: T0, queryKey: "skewed" });
      const impossible = search({ servedAt: T0, queryKey: "impossible" });
      await store.recordSearches([skewed, impossible]);
      await store.recordEvents([
        event(skewed, { receivedAt: T0 - DAY }),
        event(impossible, { receivedAt: T0 - DAY - 1 }),
      ]);
      const q = await store.quality(scope());
      expect(q.queries.map((x) => [x.queryKey, x.clicked])).toEqual([
        ["impossible", 0],
        ["skewed", 1],
      ]);
      const rows = await store.trainingRows(training());
      expect(rows.map((r) => [r.queryKey, r.clicked])).toEqual([
        ["impossible", 0],
        ["skewed", 1],
      ]);
    });

    it("puts each search in its UTC day and a score bin of width 1 (a 10 in bin 9)", async () => {
      const store = await adapter.open();
      await store.recordSearches([
        search({ servedAt: T0 - 1, score: 0 }),
        search({ servedAt: T0 - 1, score: 0.999 }),
        search({ servedAt: T0, score: 1 }),
        search({ servedAt: T0, score: 9.999 }),
        search({ servedAt: T0 + DAY - 1, score: 10 }),
        search({ servedAt: T0 + DAY, score: 10 }),
        search({ servedAt: T0 + 10, score: 10, modelId: "m0" }),
      ]);
      const q = await store.quality(scope({ since: T0 - DAY, until: T0 + 2 * DAY }));
      expect(q.daily).toEqual([
        { modelId: "m0", day: "2026-03-10", bin: 9, searches: 1 },
        { modelId: "m1", day: "2026-03-09", bin: 0, searches: 2 },
        { modelId: "m1", day: "2026-03-10", bin: 1, searches: 1 },
        { modelId: "m1", day: "2026-03-10", bin: 9, searches: 2 },
        { modelId: "m1", day: "2026-03-11", bin: 9, searches: 1 },
      ]);
    });

    it("bins scores by Math.round(score * 100), from 0 to 1000", async () => {
      const store = await adapter.open();
      const scores = [0, 0.004, 0.005, 0.125, 1.115, 5.555, 9.995, 10];
      await store.recordSearches(scores.map((score) => search({ score })));
      const q = await store.quality(scope());
      const expected = new Map<number, number>();
      for (const s of scores) expected.set(scoreBin(s), (expected.get(scoreBin(s)) ?? 0) + 1);
      expect(q.bins.map((b) => [b.bin, b.searches])).toEqual(
        [...expected.entries()].sort((a, b) => a[0] - b[0]),
      );
      expect(q.bins[0]?.bin).toBe(0);
      expect(q.bins.at(-1)?.bin).toBe(1000);
    });

    it("lists queries with at least minImpressions, most searches first, then by query, at most maxQueries", async () => {
      const store = await adapter.open();
      const rows: ServedSearch[] = [];
      const add = (queryKey: string, n: number, score = 2) => {
        for (let i = 0; i < n; i++) rows.push(search({ queryKey, score: score + i }));
      };
      add("b", 3);
      add("a", 3);
      add("c", 5);
      add("z", 1);
      add("é", 3);
      add("😀", 3);
      add("\uffee", 3);
      await store.recordSearches(rows);
      const all = await store.quality(scope({ minImpressions: 2 }));
      expect(all.queries.map((x) => [x.queryKey, x.impressions])).toEqual([
        ["c", 5],
        ["a", 3],
        ["b", 3],
        ["é", 3],
        ["\uffee", 3],
        ["😀", 3],
      ]);
      expect(all.queries[0]?.meanScore).toBeCloseTo(4, 12);
      const cut = await store.quality(scope({ minImpressions: 2, maxQueries: 2 }));
      expect(cut.queries.map((x) => x.queryKey)).toEqual(["c", "a"]);
      expect((await store.quality(scope({ minImpressions: 6 }))).queries).toEqual([]);
    });

    it("filters by model when asked, and keeps models apart when not", async () => {
      const store = await adapter.open();
      const s1 = search({ modelId: "m1" });
      const s2 = search({ modelId: "m2", score: 7 });
      await store.recordSearches([s1, s2, search({ modelId: "m2", score: 7 })]);
      await store.recordEvents([event(s2)]);
      const both = await store.quality(scope());
      expect(both.bins).toEqual([
        { modelId: "m1", bin: 500, searches: 1, clicked: 0, converted: 0 },
        { modelId: "m2", bin: 700, searches: 2, clicked: 1, converted: 0 },
      ]);
      expect(both.queries.map((x) => [x.modelId, x.impressions])).toEqual([
        ["m2", 2],
        ["m1", 1],
      ]);
      const only = await store.quality(scope({ modelId: "m1" }));
      expect(only.bins).toEqual([{ modelId: "m1", bin: 500, searches: 1, clicked: 0, converted: 0 }]);
      expect(only.daily).toEqual([{ modelId: "m1", day: "2026-03-10", bin: 5, searches: 1 }]);
      expect(only.events.attributed).toBe(0);
      const rows = await store.trainingRows(training({ modelId: "m2" }));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ modelId: "m2", impressions: 2, clicked: 1 });
    });

    it("gives each query's counts with the features, query and model of its most recent search", async () => {
      const store = await adapter.open();
      const features = (x: number) => FEATURE_SET_V1.map((_, i) => x + i / 3);
      const old = search({ servedAt: T0 + 10, query: "RED shoes", features: features(1), modelId: "m1" });
      const recent = search({
        servedAt: T0 + 20,
        query: "red  Shoes",
        features: features(0.1),
        modelId: "m2",
      });
      const mid = search({ servedAt: T0 + 15, query: "Red Shoes" });
      await store.recordSearches([old, recent, mid]);
      await store.recordEvents([
        event(old),
        event(old, { eventType: "conversion" }),
        event(mid, { userHash: "u9" }),
      ]);
      expect(await store.trainingRows(training())).toEqual([
        {
          queryKey: "red shoes",
          query: "red  Shoes",
          modelId: "m2",
          features: features(0.1),
          impressions: 3,
          clicked: 2,
          converted: 1,
          lastServedAt: T0 + 20,
        },
      ]);
      expect(await store.trainingRows(training({ minImpressions: 4 }))).toEqual([]);
    });

    it("keeps feature values exactly as served", async () => {
      const store = await adapter.open();
      const exact = FEATURE_SET_V1.map(
        (_, i) => [0.1, 1e-300, 123456789.123456, 2 ** 53, 0, -1.5, 1 / 3][i % 7] as number,
      );
      await store.recordSearches([search({ features: exact })]);
      expect((await store.trainingRows(training()))[0]?.features).toEqual(exact);
    });

    it("reads back the shadow model and score of a search side by side with the served ones", async () => {
      const store = await adapter.open();
      const paired = search({ score: 6.25, shadowModelId: "acct-a:products:v2", shadowScore: 3.5 });
      const later = search({ servedAt: T0 + 7_200_000, score: 1, shadowModelId: "s2", shadowScore: 10 });
      await store.recordSearches([later, paired]);
      expect(await store.shadowPairs({ ...scope(), limit: 10 })).toEqual([
        {
          queryUid: paired.queryUid,
          servedAt: paired.servedAt,
          modelId: "m1",
          score: 6.25,
          shadowModelId: "acct-a:products:v2",
          shadowScore: 3.5,
        },
        {
          queryUid: later.queryUid,
          servedAt: later.servedAt,
          modelId: "m1",
          score: 1,
          shadowModelId: "s2",
          shadowScore: 10,
        },
      ]);
      expect(await store.shadowPairs({ ...scope(), limit: 1 })).toHaveLength(1);
      expect(await store.shadowPairs({ ...scope({ account: "acct-b" }), limit: 10 })).toEqual([]);
    });

    it("keeps searches without shadow fields valid and out of the shadow pairs", async () => {
      const store = await adapter.open();
      await store.recordSearches([search(), search({ shadowModelId: "m2", shadowScore: 0 })]);
      const q = await store.quality(scope());
      expect(q.daily.reduce((n, d) => n + d.searches, 0)).toBe(2);
      const pairs = await store.shadowPairs({ ...scope(), limit: 10 });
      expect(pairs.map((p) => [p.shadowModelId, p.shadowScore])).toEqual([["m2", 0]]);
    });

    it("aggregates serving against shadow per model pair over the paired searches only, with their outcomes", async () => {
      const store = await adapter.open();
      const v2 = "acct-a:products:v2";
      const a = search({ score: 6.25, shadowModelId: v2, shadowScore: 3.5, queryKey: "red shoes" });
      const b = search({
        servedAt: T0 + 7_200_000,
        score: 2,
        shadowModelId: v2,
        shadowScore: 4,
        queryKey: "red shoes",
      });
      const c = search({
        servedAt: T0 + 7_300_000,
        score: 9,
        shadowModelId: "s3",
        shadowScore: 9.004,
        queryKey: "boots",
      });
      const unpaired = search({ score: 1 });
      const foreign = search({ account: "acct-b", shadowModelId: v2, shadowScore: 1 });
      await store.recordSearches([a, b, c, unpaired, foreign]);
      await store.recordEvents([
        event(a),
        event(a, { eventType: "conversion" }),
        event(a, { userHash: "u2" }),
        event(unpaired),
        // Another account's event for a's queryUid counts for nothing.
        event({ ...a, account: "acct-b" }),
      ]);
      const got = await store.shadowComparison({
        ...scope(),
        minImpressions: 2,
        maxQueries: 10,
        maxSamples: 1,
      });
      expect(got.pairs).toEqual([
        { servingModelId: "m1", shadowModelId: v2, pairs: 2, withClick: 1, absDiffSum: 4.75, diffSum: -0.75 },
        {
          servingModelId: "m1",
          shadowModelId: "s3",
          pairs: 1,
          withClick: 0,
          absDiffSum: expect.closeTo(0.004, 9),
          diffSum: expect.closeTo(0.004, 9),
        },
      ]);
      const binsOf = (shadow: string, side: string) =>
        got.bins
          .filter((x) => x.shadowModelId === shadow && x.side === side)
          .map((x) => [x.bin, x.searches, x.clicked, x.converted]);
      expect(binsOf(v2, "serving")).toEqual([
        [200, 1, 0, 0],
        [625, 1, 1, 1],
      ]);
      expect(binsOf(v2, "shadow")).toEqual([
        [350, 1, 1, 1],
        [400, 1, 0, 0],
      ]);
      expect(binsOf("s3", "shadow")).toEqual([[900, 1, 0, 0]]);
      expect(got.queries).toEqual([
        {
          servingModelId: "m1",
          shadowModelId: v2,
          queryKey: "red shoes",
          impressions: 2,
          clicked: 1,
          servingMeanScore: 4.125,
          shadowMeanScore: 3.75,
        },
      ]);
      // The shadow's scores per UTC day in the ten bins: 3.5 and 4 (both m1 → v2, day one), 9.004.
      expect(got.daily.map((d) => [d.shadowModelId, d.day, d.bin, d.searches])).toEqual([
        [v2, "2026-03-10", 3, 1],
        [v2, "2026-03-10", 4, 1],
        ["s3", "2026-03-10", 9, 1],
      ]);
      // The most recent pair of each model pair, newest first.
      expect(got.samples).toEqual([
        { servingModelId: "m1", shadowModelId: v2, score: 2, shadowScore: 4 },
        { servingModelId: "m1", shadowModelId: "s3", score: 9, shadowScore: 9.004 },
      ]);
      const none = await store.shadowComparison({
        ...scope({ account: "acct-c" }),
        minImpressions: 1,
        maxQueries: 10,
        maxSamples: 10,
      });
      expect(none).toEqual({ pairs: [], bins: [], queries: [], daily: [], samples: [] });
      const oneModel = await store.shadowComparison({
        ...scope({ modelId: "m9" }),
        minImpressions: 1,
        maxQueries: 0,
        maxSamples: 0,
      });
      expect(oneModel.pairs).toEqual([]);
    });

    it("counts one model's scores and features per UTC day in the bins of the given edges", async () => {
      const store = await adapter.open();
      const feats = (a: number, b: number) => FEATURES.map((f, i) => (i === 0 ? a : i === 3 ? b : f));
      await store.recordSearches([
        // Day 1: a score below the first edge (bin 0), one on an inner edge (the upper bin), one
        // past the last edge (the last bin).
        search({ score: 0.5, features: feats(-3, 7) }),
        search({ score: 2, features: feats(1, 7) }),
        search({ score: 9.5, features: feats(2.5, 7) }),
        // Day 2, late in the UTC day.
        search({ servedAt: T0 + DAY + 86_399_000, score: 4, features: feats(2, 7) }),
        // Not counted: another model, another account, outside the range.
        search({ modelId: "m2", score: 4 }),
        search({ account: "acct-b", score: 4 }),
        search({ servedAt: T0 + 2 * DAY, score: 4 }),
      ]);
      const days = await store.driftCounts({
        ...scope({ until: T0 + 2 * DAY }),
        modelId: "m1",
        scoreEdges: [1, 2, 5, 8],
        features: [
          { index: 0, edges: [0, 1, 2] },
          { index: 3, edges: [7] },
          { index: 5, edges: [] },
        ],
      });
      expect(days).toEqual([
        {
          day: "2026-03-10",
          score: { counts: [1, 1, 1], missing: 0 },
          features: [
            { counts: [1, 2], missing: 0 },
            { counts: [3], missing: 0 },
            { counts: [], missing: 3 },
          ],
        },
        {
          day: "2026-03-11",
          score: { counts: [0, 1, 0], missing: 0 },
          features: [
            { counts: [0, 1], missing: 0 },
            { counts: [1], missing: 0 },
            { counts: [], missing: 1 },
          ],
        },
      ]);
    });

    it("lists every account's, index's and model's searches of a range, in that order, at most limit", async () => {
      const store = await adapter.open();
      await store.recordSearches([
        search({ modelId: "m2" }),
        search({ modelId: "m1" }),
        search({ modelId: "m1" }),
        search({ account: "acct-b", index: "zeta" }),
        search({ account: "acct-b", index: "alpha", modelId: "m9" }),
        search({ servedAt: T0 + DAY, modelId: "later" }),
      ]);
      const all = await store.scoredModels({ since: T0, until: T0 + DAY, limit: 10 });
      expect(all).toEqual([
        { account: "acct-a", index: "products", modelId: "m1", searches: 2 },
        { account: "acct-a", index: "products", modelId: "m2", searches: 1 },
        { account: "acct-b", index: "alpha", modelId: "m9", searches: 1 },
        { account: "acct-b", index: "zeta", modelId: "m1", searches: 1 },
      ]);
      expect(await store.scoredModels({ since: T0, until: T0 + DAY, limit: 2 })).toEqual(all.slice(0, 2));
    });

    it("refuses drift edges beyond their bound before reading", async () => {
      const store = await adapter.open();
      const base = { ...scope(), modelId: "m1", features: [] };
      const tooMany = Array.from({ length: 102 }, (_, i) => i);
      await expect(store.driftCounts({ ...base, scoreEdges: tooMany })).rejects.toThrow(/at most 101 edges/);
      await expect(store.driftCounts({ ...base, scoreEdges: [2, 1] })).rejects.toThrow(/ascending/);
      await expect(
        store.driftCounts({ ...base, scoreEdges: [], features: [{ index: 99, edges: [] }] }),
      ).rejects.toThrow(/FEATURE_SET_V1 index/);
    });

    it("pages training rows by queryKey with after and limit", async () => {
      const store = await adapter.open();
      const keys = ["a", "b", "c", "d", "e", "é", "😀"];
      await store.recordSearches(keys.flatMap((queryKey) => [search({ queryKey }), search({ queryKey })]));
      await store.recordSearches([search({ queryKey: "bb" })]);
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.trainingRows(
          training({ minImpressions: 2, limit: 3, ...(after === undefined ? {} : { after }) }),
        );
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(3);
        seen.push(...page.map((r) => r.queryKey));
        after = page.at(-1)?.queryKey;
      }
      expect(seen).toEqual(keys);
      expect(await store.trainingRows(training({ limit: 0 }))).toEqual([]);
    });

    it("purges searches and events older than the given time, and keeps the rest", async () => {
      const store = await adapter.open();
      const old = search({ servedAt: T0 - 1, queryKey: "old" });
      const kept = search({ servedAt: T0, queryKey: "kept" });
      await store.recordSearches([old, kept]);
      await store.recordEvents([
        event(old, { receivedAt: T0 - 1 }),
        event({ ...kept, queryUid: null }, { receivedAt: T0 - 1 }),
        event(kept, { receivedAt: T0 }),
      ]);
      await store.purge(T0);
      const q = await store.quality(scope({ since: 0, until: T0 + DAY }));
      expect(q.queries.map((x) => [x.queryKey, x.clicked])).toEqual([["kept", 1]]);
      expect(q.events).toEqual({ attributed: 1, unattributed: 0, duplicates: 0 });
      await store.purge(T0 + DAY);
      expect((await store.quality(scope({ since: 0, until: T0 + DAY }))).bins).toEqual([]);
    });

    it("stores and reads back hostile strings in every text field", async () => {
      const store = await adapter.open();
      for (const [i, h] of HOSTILE.entries()) {
        const account = `${h}-acct`.slice(0, 64);
        const index = `${h}-idx`.slice(0, 64);
        const s = search({
          account,
          index,
          indexUid: h,
          modelId: h,
          query: h,
          queryKey: h,
          hitIds: [h, "", h],
          userHash: h,
          score: i,
        });
        await store.recordSearches([s]);
        await store.recordEvents([
          event(s, { eventName: h, objectId: h, objectName: h, userHash: h }),
          event({ ...s, queryUid: null }, { eventName: h, objectId: h, objectName: h, userHash: h }),
        ]);
        const q = await store.quality(scope({ account, index, modelId: h }));
        expect(q.queries).toEqual([
          { modelId: h, queryKey: h, impressions: 1, clicked: 1, converted: 0, meanScore: i },
        ]);
        expect(q.events).toEqual({ attributed: 1, unattributed: 1, duplicates: 0 });
        const rows = await store.trainingRows(
          training({ account, index, modelId: h, after: `${h.slice(0, 0)}` }),
        );
        expect(rows.map((r) => [r.queryKey, r.query, r.modelId])).toEqual([[h, h, h]]);
        expect(await store.trainingRows(training({ account, index, after: h }))).toEqual([]);
      }
      // nothing leaked into the plain account
      expect((await store.quality(scope())).bins).toEqual([]);
    });
  });
}
