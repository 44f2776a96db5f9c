// The drift check end to end below the apps: recorded searches in the memory outcome store, the
// alert rows in a real settings table (SQLite), notifications on a real webhook receiver, and an
// injected clock that moves from day to day.
import { buildArtifact, compileModel, FEATURE_SET_V1 } from "@relevance/core";
import { smallDraft } from "@relevance/core/test-support/small-model";
import { openDatabase, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { type Notification, webhookChannel } from "@shared/notify";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryOutcomeStore } from "../memory-store.ts";
import { uuidV7 } from "../query-uid.ts";
import type { ServedSearch } from "../records.ts";
import { DRIFT_HISTORY_DAYS, TableDriftAlertStore } from "./drift-alert-store.ts";
import { DRIFT_RULE } from "./drift-alerts.ts";
import { type DriftCheckDeps, runDriftCheck } from "./drift-check.ts";
import { driftCheckEnv, MAX_DRIFT_CHECK_MODELS } from "./drift-check-config.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 10);
const MODEL = "acct:products:v1";
const HIT = FEATURE_SET_V1.indexOf("hit_count");
const JAC = FEATURE_SET_V1.indexOf("jaccard");
const spread = (i: number, n: number, lo: number, hi: number) => lo + ((i * 7919) % n) * ((hi - lo) / n);
const other = (i: number, n: number) => ((i * 104_729) % n) / n;

const draft = smallDraft();
const model = compileModel(draft);
const built = buildArtifact(draft, {
  modelId: MODEL,
  titleField: null,
  tagsField: null,
  profileRows: Array.from({ length: 1000 }, (_, i) => ({
    hit_count: Math.floor(spread(i, 1000, 0, 20)),
    jaccard: other(i, 1000),
  })),
});
if (!built.ok) throw new Error("artifact build failed");
const ARTIFACT = built.value.text;

let seq = 0;
/** One day of 500 searches: like the training rows, or with many more hits per search. */
function day(d: number, shifted: boolean, modelId = MODEL): ServedSearch[] {
  return Array.from({ length: 500 }, (_, i) => {
    seq++;
    const hit = shifted ? 50 + (i % 5) : Math.floor(spread(i, 500, 0, 20));
    const features = FEATURE_SET_V1.map(() => 0);
    features[HIT] = hit;
    features[JAC] = other(i, 500);
    const random = new Uint8Array(10);
    new DataView(random.buffer).setUint32(6, seq);
    const at = T0 + d * DAY + i * 1000;
    return {
      queryUid: uuidV7(at, random),
      account: "acct",
      index: "products",
      indexUid: "products",
      modelId,
      score: model.predict([hit, other(i, 500)]),
      features,
      query: "q",
      queryKey: "q",
      hitIds: [],
      estimatedTotalHits: hit,
      latencyMs: 1,
      servedAt: at,
      userHash: null,
    };
  });
}

let receiver: HttpReceiverDouble;
beforeEach(async () => {
  receiver = await startHttpReceiverDouble();
});
afterEach(async () => receiver.close());

function setup() {
  const outcomes = new MemoryOutcomeStore();
  const table = new SqliteSettingsTable(openDatabase(":memory:"));
  const alerts = new TableDriftAlertStore(table);
  let now = new Date(T0);
  const deps = (over: Partial<DriftCheckDeps> = {}): DriftCheckDeps => ({
    outcomes,
    alerts,
    artifactText: async (id) => (id === MODEL ? ARTIFACT : null),
    channels: [webhookChannel({ name: "hook", url: receiver.url("/hook") })],
    now: () => now,
    claimant: "check-a",
    deliver: { attempts: 1, sleep: async () => {} },
    ...over,
  });
  const at = (d: number) => {
    now = new Date(T0 + d * DAY + 3_600_000);
  };
  return { outcomes, table, deps, at };
}

const bodies = () => receiver.received.map((r) => r.body as Notification);
/** What each notification said, in a stable order (one run sends its changes in row order). */
const said = (ns: Notification[]) =>
  ns
    .map((n) => [n.kind, n.details?.feature, n.details?.day])
    .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
const about = (ns: Notification[], kind: string, feature: string) =>
  ns.find((n) => n.kind === kind && n.details?.feature === feature);

describe("the drift check", () => {
  it("stays quiet on normal traffic, fires when the searches drift and resolves when they return", async () => {
    const { outcomes, deps, at } = setup();
    await outcomes.recordSearches([...day(0, false), ...day(1, true), ...day(2, false)]);

    at(1); // checks day 0: like the training rows
    expect(await runDriftCheck(deps())).toMatchObject({ day: "2026-03-10", checked: 1, transitions: [] });
    expect(receiver.received).toEqual([]);

    at(2); // checks day 1: many more hits per search, so the score moves too
    const fired = await runDriftCheck(deps());
    expect(fired.transitions.map((t) => [t.status, t.subject])).toEqual([
      ["firing", "score"],
      ["firing", "hit_count"],
    ]);
    expect(said(bodies())).toEqual([
      ["firing", "hit_count", "2026-03-11"],
      ["firing", "score", "2026-03-11"],
    ]);
    const hit = about(bodies(), "firing", "hit_count");
    expect(hit?.rule).toBe(DRIFT_RULE);
    expect(hit?.details).toMatchObject({ index: "products", modelId: MODEL, feature: "hit_count" });
    expect(hit?.details?.psi as number).toBeGreaterThan(0.2);

    // The same day again (a later run, a restart): nothing new, nothing re-sent.
    expect((await runDriftCheck(deps())).transitions).toEqual([]);
    expect(receiver.received).toHaveLength(2);

    at(3); // checks day 2: back to normal
    const resolved = await runDriftCheck(deps());
    expect(resolved.transitions.map((t) => [t.status, t.subject])).toEqual([
      ["resolved", "score"],
      ["resolved", "hit_count"],
    ]);
    expect(said(bodies().slice(2))).toEqual([
      ["resolved", "hit_count", "2026-03-12"],
      ["resolved", "score", "2026-03-12"],
    ]);
    // A resolve pairs with its start: the same fingerprint and startsAt.
    const start = about(bodies(), "firing", "hit_count")?.alerts?.[0];
    const end = about(bodies(), "resolved", "hit_count")?.alerts?.[0];
    expect(end?.fingerprint).toBe(start?.fingerprint);
    expect(end?.startsAt).toBe(start?.startsAt);
    expect(end?.status).toBe("resolved");
  });

  it("keeps a change unsent while the channel fails and sends it on the next run", async () => {
    const { outcomes, deps, at } = setup();
    await outcomes.recordSearches(day(1, true));
    at(2);
    receiver.failNext(2);
    const first = await runDriftCheck(deps());
    expect(first.transitions).toHaveLength(2);
    expect(first.failed).toHaveLength(2);
    const second = await runDriftCheck(deps());
    expect(second.transitions).toEqual([]);
    expect(second.delivered).toEqual(first.failed);
    expect(receiver.received.filter((r) => r.status === 204).map((r) => (r.body as Notification).id)).toEqual(
      first.failed,
    );
  });

  it("sends each change once when two checks run at once", async () => {
    const { outcomes, deps, at } = setup();
    await outcomes.recordSearches(day(1, true));
    at(2);
    const [a, b] = await Promise.all([
      runDriftCheck(deps({ claimant: "check-a" })),
      runDriftCheck(deps({ claimant: "check-b" })),
    ]);
    expect([...a.delivered, ...b.delivered].sort()).toHaveLength(2);
    const ids = receiver.received.map((r) => (r.body as Notification).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(2);
  });

  it("stores the changes without a channel and sends what they owe once one is configured", async () => {
    const { outcomes, deps, at } = setup();
    await outcomes.recordSearches(day(1, true));
    at(2);
    expect((await runDriftCheck(deps({ channels: [] }))).transitions).toHaveLength(2);
    expect(receiver.received).toEqual([]);
    expect((await runDriftCheck(deps())).delivered).toHaveLength(2);
  });

  it("skips models without a training profile", async () => {
    const { outcomes, deps, at } = setup();
    await outcomes.recordSearches(day(1, true, "acct:products:v9"));
    at(2);
    expect(await runDriftCheck(deps())).toMatchObject({ checked: 0, unprofiled: 1, transitions: [] });
    expect(receiver.received).toEqual([]);
  });

  it("reads at most MAX_DRIFT_CHECK_MODELS models a run, and says so when it reaches them", async () => {
    const { outcomes, deps, at } = setup();
    at(2);
    const asked: number[] = [];
    const warned: string[] = [];
    const many = Array.from({ length: MAX_DRIFT_CHECK_MODELS }, (_, i) => ({
      account: "acct",
      index: "products",
      modelId: `m${i}`,
      searches: 1,
    }));
    const capped = Object.assign(Object.create(outcomes) as MemoryOutcomeStore, {
      scoredModels: async (q: { limit: number }) => {
        asked.push(q.limit);
        return many;
      },
    });
    const r = await runDriftCheck(
      deps({
        outcomes: capped,
        artifactText: async () => null,
        log: { info() {}, warn: (m) => warned.push(m) },
      }),
    );
    expect(asked).toEqual([MAX_DRIFT_CHECK_MODELS]);
    expect(r.unprofiled).toBe(MAX_DRIFT_CHECK_MODELS);
    expect(warned).toEqual(["drift check: only the first models are checked"]);
  });

  it("deletes sent rows older than DRIFT_HISTORY_DAYS but keeps each alert's latest", async () => {
    const { outcomes, table, deps, at } = setup();
    await outcomes.recordSearches([...day(1, true), ...day(2, false)]);
    at(2);
    await runDriftCheck(deps()); // fires (day 1)
    at(3);
    await runDriftCheck(deps()); // resolves (day 2)
    const rows = async () => (await table.query("DRIFT#acct", "")).length;
    expect(await rows()).toBe(4);
    at(3 + DRIFT_HISTORY_DAYS); // the firing rows are now past the history; the resolves are the latest
    await outcomes.recordSearches(day(3 + DRIFT_HISTORY_DAYS - 1, false));
    await runDriftCheck(deps());
    expect(await rows()).toBe(2);
    const left = await table.query("DRIFT#acct", "");
    expect(left.map((r) => (r.attributes.transition as { status: string }).status)).toEqual([
      "resolved",
      "resolved",
    ]);
  });

  it("takes DRIFT_PSI_THRESHOLD and DRIFT_CHECK_INTERVAL_MS within their bounds", async () => {
    expect(driftCheckEnv({})).toEqual({ ok: true, value: { threshold: 0.2, intervalMs: 3_600_000 } });
    expect(driftCheckEnv({ DRIFT_PSI_THRESHOLD: "0.1", DRIFT_CHECK_INTERVAL_MS: "60000" })).toEqual({
      ok: true,
      value: { threshold: 0.1, intervalMs: 60_000 },
    });
    for (const [name, value] of [
      ["DRIFT_PSI_THRESHOLD", "0"],
      ["DRIFT_PSI_THRESHOLD", "11"],
      ["DRIFT_PSI_THRESHOLD", "x"],
      ["DRIFT_CHECK_INTERVAL_MS", "9999"],
      ["DRIFT_CHECK_INTERVAL_MS", "86400001"],
      ["DRIFT_CHECK_INTERVAL_MS", "15000.5"],
    ] as const) {
      const r = driftCheckEnv({ [name]: value });
      expect(r.ok === false && r.error.startsWith(name), `${name}=${value}`).toBe(true);
    }
    // A lower threshold fires sooner: the same mild drift.
    const { outcomes, deps, at } = setup();
    await outcomes.recordSearches(day(1, false));
    at(2);
    expect((await runDriftCheck(deps({ threshold: 1e-9 }))).transitions.length).toBeGreaterThan(0);
  });
});
