// The quality route over the MemoryOutcomeStore (the adapter that runs the outcome stores'
// contract suite): recorded searches and events in, the report's counts out, end to end through
// the store's aggregation and the pure report.
import { buildArtifact, FEATURE_SET_V1, modelKey } from "@relevance/core";
import { smallDraft } from "@relevance/core/test-support/small-model";
import {
  kendallTauB,
  MemoryOutcomeStore,
  NO_ARTIFACT_REASON,
  type OutcomeEvent,
  QualityReportSchema,
  type ServedSearch,
  uuidV7,
} from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./test-support/harness.ts";

const NOW = Date.parse("2026-11-21T12:00:00.000Z");
const HOUR = 3_600_000;

let uidSeq = 0;
const uid = (at: number) => {
  uidSeq++;
  const bytes = new Uint8Array(10);
  new DataView(bytes.buffer).setUint32(6, uidSeq);
  return uuidV7(at, bytes);
};

function search(account: string, at: number, query: string, score: number): ServedSearch {
  return {
    queryUid: uid(at),
    account,
    index: "products",
    indexUid: "products",
    modelId: `${account}:products:v1`,
    score,
    features: new Array(FEATURE_SET_V1.length).fill(0),
    query,
    queryKey: query,
    hitIds: ["1", "2"],
    estimatedTotalHits: 2,
    latencyMs: 3,
    servedAt: at,
    userHash: null,
  };
}

function click(account: string, s: ServedSearch, userHash: string, queryUid = s.queryUid): OutcomeEvent {
  return {
    account,
    index: "products",
    queryUid,
    eventType: "click",
    eventName: "Product clicked",
    objectId: "1",
    objectName: null,
    position: 0,
    userHash,
    receivedAt: s.servedAt + 1000,
  };
}

describe("the quality route over the MemoryOutcomeStore", () => {
  it("counts the recorded searches and the account's events, and ranks queries by their click-through", async () => {
    const store = new MemoryOutcomeStore();
    const h = makeHarness({ outcomes: store });
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const { systemAccountId: other } = await h.account("Other");
    // 12 queries × 10 searches over the last 2 days; query q has score q/2 + 1 and q of its 10
    // searches clicked (so click-through rises with the score, with one tie at the ends).
    const searches: ServedSearch[] = [];
    const events: OutcomeEvent[] = [];
    for (let q = 0; q < 12; q++) {
      for (let i = 0; i < 10; i++) {
        const s = search(account, NOW - (q * 10 + i + 1) * 0.4 * HOUR, `query ${q}`, q / 2 + 1);
        searches.push(s);
        if (i < Math.min(q, 10)) events.push(click(account, s, `user-${q}-${i}`));
      }
    }
    const first = searches[11 * 10] as ServedSearch;
    // The same click again (counted once), a click for a queryUid no search has, and another
    // account's click for this account's search (never attributed here).
    events.push(click(account, first, "user-11-0"));
    events.push(click(account, first, "user-x", uid(NOW - HOUR)));
    await store.recordSearches(searches);
    await store.recordEvents(events);
    await store.recordEvents([click(other, first, "user-y")]);

    const res = await h.admin("GET", `/api/v1/admin/accounts/${account}/indexes/products/quality?since=3d`);
    expect(res.status).toBe(200);
    const report = QualityReportSchema.parse(res.body);
    expect(report.events).toEqual({ attributed: 65, unattributed: 1, duplicates: 1 });
    const [model] = report.models;
    expect(model?.modelId).toBe(`${account}:products:v1`);
    expect(model?.searches).toBe(120);
    expect(model?.histogram.flatMap((d) => d.counts).reduce((a, b) => a + b, 0)).toBe(120);
    expect(model?.calibration).toMatchObject({ status: "ok" });
    if (model?.calibration.status !== "ok") throw new Error("calibration expected");
    expect(model.calibration.groups.reduce((s, g) => s + g.n, 0)).toBe(120);
    const ctr = Array.from({ length: 12 }, (_, q) => Math.min(q, 10) / 10);
    const score = Array.from({ length: 12 }, (_, q) => q / 2 + 1);
    expect(model.kendallTau).toMatchObject({ status: "ok", n: 12, value: kendallTauB(score, ctr) });
    expect(model.auc).toMatchObject({ status: "ok", clicked: 65, notClicked: 55 });
    expect(report.drift).toEqual([
      { modelId: `${account}:products:v1`, status: "no_profile", reason: NO_ARTIFACT_REASON },
    ]);

    // With the model's profiled artifact in the model store, each day's PSI against its profile.
    const profileRows = Array.from({ length: 200 }, (_, i) => ({ hit_count: i % 20, jaccard: (i % 7) / 7 }));
    const built = buildArtifact(smallDraft(), {
      modelId: `${account}:products:v1`,
      titleField: null,
      tagsField: null,
      profileRows,
    });
    if (!built.ok) throw new Error("artifact build failed");
    await h.kv.put(modelKey(`${account}:products:v1`), built.value.text);
    const again = QualityReportSchema.parse(
      (await h.admin("GET", `/api/v1/admin/accounts/${account}/indexes/products/quality?since=3d`)).body,
    );
    const [drift] = again.drift;
    if (drift?.status !== "ok") throw new Error(`drift expected, got ${JSON.stringify(drift)}`);
    expect(drift.profileRows).toBe(200);
    const n = (c: { status: string; n?: number }) => c.n ?? 0;
    expect(drift.days.reduce((s, d) => s + n(d.score), 0)).toBe(120);
    // The 120 searches span days of fewer than 100 each: no PSI from so few.
    const hit = drift.days.map((d) => d.features.find((f) => f.feature === "hit_count")?.result);
    expect(hit.every((c) => c?.status === "too_little_data" && c.needed === 100)).toBe(true);
  });

  it("puts the serving model and its shadow side by side on the same searches (comparisons)", async () => {
    const store = new MemoryOutcomeStore();
    const h = makeHarness({ outcomes: store });
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const shadowId = `${account}:products:v2`;
    // 12 queries × 10 searches, each scored by the shadow too: the serving score rises with the
    // click-through, the shadow's falls with it; plus 20 searches no shadow scored.
    const searches: ServedSearch[] = [];
    const events: OutcomeEvent[] = [];
    for (let q = 0; q < 12; q++) {
      for (let i = 0; i < 10; i++) {
        const s = search(account, NOW - (q * 10 + i + 1) * 0.4 * HOUR, `query ${q}`, q / 2 + 1);
        searches.push({ ...s, shadowModelId: shadowId, shadowScore: 9 - q / 2 });
        if (i < Math.min(q, 10)) events.push(click(account, s, `user-${q}-${i}`));
      }
    }
    for (let i = 0; i < 20; i++) searches.push(search(account, NOW - (i + 1) * HOUR, "alone", 5));
    await store.recordSearches(searches);
    await store.recordEvents(events);

    const res = await h.admin("GET", `/api/v1/admin/accounts/${account}/indexes/products/quality?since=3d`);
    expect(res.status).toBe(200);
    const report = QualityReportSchema.parse(res.body);
    expect(report.comparisons).toHaveLength(1);
    const [c] = report.comparisons;
    expect(c).toMatchObject({
      servingModelId: `${account}:products:v1`,
      shadowModelId: shadowId,
      pairs: 120,
      withClick: 65,
    });
    expect(c?.agreement).toMatchObject({ status: "ok", n: 120, spearmanRho: -1 });
    expect(c?.serving.kendallTau).toMatchObject({ status: "ok", n: 12 });
    expect(c?.shadow.kendallTau).toMatchObject({ status: "ok", n: 12 });
    if (c?.serving.auc.status !== "ok" || c.shadow.auc.status !== "ok") throw new Error("AUCs expected");
    // The shadow's score is the serving one reversed: its AUC is the serving model's complement.
    expect(c.shadow.auc.value).toBeCloseTo(1 - c.serving.auc.value, 12);
    expect(c.serving.auc.value).toBeGreaterThan(0.8);
  });
});
