import { buildArtifact, compileModel, FEATURE_SET_V1 } from "@relevance/core";
import { smallDraft } from "@relevance/core/test-support/small-model";
import { describe, expect, it } from "vitest";
import { MemoryOutcomeStore } from "../memory-store.ts";
import type { OutcomeScope } from "../ports.ts";
import { uuidV7 } from "../query-uid.ts";
import type { ServedSearch } from "../records.ts";
import {
  driftSection,
  MAX_DRIFT_MODELS,
  modelDrift,
  modelsBySearches,
  NO_ARTIFACT_REASON,
  NO_PROFILE_REASON,
  profileFromArtifact,
} from "./drift-report.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 10);
const MODEL = "acct-a:products:v1";
const HIT = FEATURE_SET_V1.indexOf("hit_count");
const JAC = FEATURE_SET_V1.indexOf("jaccard");

/** A deterministic spread: i-th of n values in [lo, hi). */
const spread = (i: number, n: number, lo: number, hi: number) => lo + ((i * 7919) % n) * ((hi - lo) / n);

/** Another permutation, so a row's jaccard does not follow its hit_count. */
const other = (i: number, n: number) => ((i * 104_729) % n) / n;

const draft = smallDraft();
const model = compileModel(draft);
const trainingRows = Array.from({ length: 1000 }, (_, i) => ({
  hit_count: Math.floor(spread(i, 1000, 0, 20)),
  jaccard: other(i, 1000),
}));

function artifact(withProfile: boolean): string {
  const built = buildArtifact(draft, {
    modelId: MODEL,
    titleField: null,
    tagsField: null,
    ...(withProfile ? { profileRows: trainingRows } : {}),
  });
  if (!built.ok) throw new Error(JSON.stringify(built.errors));
  return built.value.text;
}

let seq = 0;
function served(at: number, hit: number, jaccard: number): ServedSearch {
  seq += 1;
  const features = FEATURE_SET_V1.map(() => 0);
  features[HIT] = hit;
  features[JAC] = jaccard;
  const random = new Uint8Array(10);
  new DataView(random.buffer).setUint32(6, seq);
  return {
    queryUid: uuidV7(at, random),
    account: "acct-a",
    index: "products",
    indexUid: "products",
    modelId: MODEL,
    score: model.predict([hit, jaccard]),
    features,
    query: "q",
    queryKey: "q",
    hitIds: [],
    estimatedTotalHits: hit,
    latencyMs: 1,
    servedAt: at,
    userHash: null,
  };
}

const scope: OutcomeScope = { account: "acct-a", index: "products", since: T0, until: T0 + 3 * DAY };

async function storeWith(days: { day: number; n: number; shifted: boolean }[]) {
  const store = new MemoryOutcomeStore();
  for (const { day, n, shifted } of days)
    await store.recordSearches(
      Array.from({ length: n }, (_, i) =>
        shifted
          ? served(T0 + day * DAY + i, 50 + (i % 5), other(i, n))
          : served(T0 + day * DAY + i, Math.floor(spread(i, n, 0, 20)), other(i, n)),
      ),
    );
  return store;
}

describe("drift per model and day", () => {
  it("finds no drift where live searches look like the training rows, and drift where a feature moved", async () => {
    const store = await storeWith([
      { day: 0, n: 500, shifted: false },
      { day: 1, n: 500, shifted: true },
    ]);
    const [drift] = await driftSection({ store, artifactText: async () => artifact(true) }, scope, [MODEL]);
    if (drift?.status !== "ok") throw new Error(`expected ok, got ${JSON.stringify(drift)}`);
    expect(drift.profileRows).toBe(1000);
    expect(drift.threshold).toBe(0.2);
    expect(drift.days.map((d) => d.day)).toEqual(["2026-03-10", "2026-03-11"]);
    const [normal, shifted] = drift.days;
    const cellOf = (d: typeof normal, f: string) => d?.features.find((x) => x.feature === f)?.result;
    for (const f of ["hit_count", "jaccard"]) {
      const c = cellOf(normal, f);
      expect(c?.status === "ok" && c.psi < 0.05 && !c.drifted, `${f}: ${JSON.stringify(c)}`).toBe(true);
    }
    expect(normal?.score).toMatchObject({ status: "ok", drifted: false, n: 500 });
    expect(cellOf(shifted, "hit_count")).toMatchObject({ status: "ok", drifted: true, n: 500 });
    expect(cellOf(shifted, "jaccard")).toMatchObject({ status: "ok", drifted: false });
    expect(shifted?.score).toMatchObject({ status: "ok", drifted: true });
    // A feature the model does not use has no distribution in its profile.
    expect(cellOf(normal, "query_token_count")).toMatchObject({ status: "not_profiled" });
    expect(normal?.features.map((f) => f.feature)).toEqual([...FEATURE_SET_V1]);
  });

  it("says too_little_data for a day under the PSI's minimum of searches", async () => {
    const store = await storeWith([{ day: 0, n: 99, shifted: true }]);
    const [drift] = await driftSection({ store, artifactText: async () => artifact(true) }, scope, [MODEL]);
    expect(drift?.status === "ok" && drift.days[0]?.score).toEqual({
      status: "too_little_data",
      n: 99,
      needed: 100,
    });
  });

  it("says why there is no drift for a model without a profile or without an artifact", async () => {
    const store = await storeWith([{ day: 0, n: 200, shifted: false }]);
    const texts: Record<string, string> = { [MODEL]: artifact(false) };
    const drift = await driftSection({ store, artifactText: async (id) => texts[id] ?? null }, scope, [
      MODEL,
      "acct-a:products:v9",
    ]);
    expect(drift).toEqual([
      { modelId: MODEL, status: "no_profile", reason: NO_PROFILE_REASON },
      { modelId: "acct-a:products:v9", status: "no_profile", reason: NO_ARTIFACT_REASON },
    ]);
    expect(profileFromArtifact("{not json")).toEqual({
      reason: "the model's artifact is not a valid artifact",
    });
  });

  it("uses the threshold it is given", () => {
    const lookup = profileFromArtifact(artifact(true));
    if (!("profile" in lookup)) throw new Error("no profile");
    const score = lookup.profile.score;
    const even = { counts: score.shares.map((s) => Math.round(s * 1000)), missing: 0 };
    const day = { day: "2026-03-10", score: even, features: [] };
    const strict = modelDrift(MODEL, lookup, [day], 0);
    const loose = modelDrift(MODEL, lookup, [day], 10);
    expect(strict.status === "ok" && strict.days[0]?.score).toMatchObject({ status: "ok" });
    expect(loose.status === "ok" && loose.days[0]?.score).toMatchObject({ drifted: false });
  });

  it("covers the most searched models first, at most MAX_DRIFT_MODELS", async () => {
    const daily = [
      { modelId: "b", searches: 5 },
      { modelId: "a", searches: 5 },
      { modelId: "c", searches: 1 },
      { modelId: "b", searches: 10 },
    ];
    expect(modelsBySearches(daily)).toEqual(["b", "a", "c"]);
    const asked: string[] = [];
    const ids = Array.from({ length: MAX_DRIFT_MODELS + 3 }, (_, i) => `m${i}`);
    const drift = await driftSection(
      {
        store: new MemoryOutcomeStore(),
        artifactText: async (id) => {
          asked.push(id);
          return null;
        },
      },
      scope,
      ids,
    );
    expect(drift).toHaveLength(MAX_DRIFT_MODELS);
    expect(asked).toEqual(ids.slice(0, MAX_DRIFT_MODELS));
  });
});
