/**
 * The quality report's `drift` section: per model, the PSI of the score and of each feature of its
 * served searches against the model's training profile, per UTC day. `modelDrift` is pure (the
 * profile and the store's binned counts in, ModelDrift out); `driftSection` reads both for the
 * models of a report (the store's driftCounts, the artifact from where the deployment keeps models).
 */

import type { ProfileDistribution } from "@relevance/core";
import { FEATURE_SET_V1, parseArtifact, type TrainingProfile } from "@relevance/core";
import type { DriftCountsQuery, DriftDayCounts, OutcomeScope, OutcomeStore } from "../ports.ts";
import type { DriftDay, ModelDrift, PsiCell } from "./drift-schema.ts";
import { PSI_DRIFT_THRESHOLD, psi } from "./psi.ts";

/** Models a report computes drift for (the most searched first): each costs an artifact read. */
export const MAX_DRIFT_MODELS = 8;

export const NO_PROFILE_REASON =
  "the model's artifact carries no training profile (export it with `relevance model export --profile-rows`)";
export const NO_ARTIFACT_REASON = "the model's artifact is not in the model store";

/** A model's profile, or why there is none. */
export type ProfileLookup = { profile: TrainingProfile } | { reason: string };

/** What to ask the store for a profile: the score's edges and each profiled feature's. */
export function driftCountsQuery(
  scope: OutcomeScope,
  modelId: string,
  profile: TrainingProfile,
): DriftCountsQuery {
  const features: { index: number; edges: number[] }[] = [];
  FEATURE_SET_V1.forEach((name, index) => {
    const dist = profile.features[name];
    if (dist !== undefined) features.push({ index, edges: dist.edges });
  });
  return { ...scope, modelId, scoreEdges: profile.score.edges, features };
}

function cell(
  dist: ProfileDistribution,
  counts: { counts: number[]; missing: number },
  threshold: number,
): PsiCell {
  const r = psi(dist, counts);
  if (r.kind === "psi") return { status: "ok", psi: r.psi, n: r.observed, drifted: r.psi > threshold };
  if (r.kind === "too-few") return { status: "too_little_data", n: r.observed, needed: r.minimum };
  return { status: "not_profiled", reason: "the profile has no distribution for it" };
}

/**
 * One model's drift from its profile and the counts the store binned with driftCountsQuery's edges
 * (features in FEATURE_SET_V1 order; those the profile lacks are not_profiled).
 */
export function modelDrift(
  modelId: string,
  lookup: ProfileLookup,
  days: readonly DriftDayCounts[],
  threshold = PSI_DRIFT_THRESHOLD,
): ModelDrift {
  if (!("profile" in lookup)) return { modelId, status: "no_profile", reason: lookup.reason };
  const { profile } = lookup;
  const out: DriftDay[] = days.map((d) => {
    let k = 0;
    const features = FEATURE_SET_V1.map((feature) => {
      const dist = profile.features[feature];
      if (dist === undefined)
        return {
          feature,
          result: {
            status: "not_profiled" as const,
            reason: "the training profile has no distribution for it",
          },
        };
      const counts = d.features[k++] ?? { counts: new Array<number>(dist.shares.length).fill(0), missing: 0 };
      return { feature, result: cell(dist, counts, threshold) };
    });
    return { day: d.day, score: cell(profile.score, d.score, threshold), features };
  });
  return { modelId, status: "ok", threshold, profileRows: profile.rows, days: out };
}

/** A model's profile from its artifact text (null: no artifact). */
export function profileFromArtifact(text: string | null): ProfileLookup {
  if (text === null) return { reason: NO_ARTIFACT_REASON };
  const parsed = parseArtifact(text);
  if (!parsed.ok) return { reason: "the model's artifact is not a valid artifact" };
  const profile = parsed.value.trainingProfile;
  return profile === undefined ? { reason: NO_PROFILE_REASON } : { profile };
}

export interface DriftSources {
  store: OutcomeStore;
  /** A model's artifact text where the deployment keeps models (KV `relevance_model:<id>`), or null. */
  artifactText(modelId: string): Promise<string | null>;
}

/**
 * The drift of the scope's models (at most MAX_DRIFT_MODELS, in the order given: the caller lists
 * the most searched first), each against its own profile.
 */
export async function driftSection(
  sources: DriftSources,
  scope: OutcomeScope,
  modelIds: readonly string[],
  threshold = PSI_DRIFT_THRESHOLD,
): Promise<ModelDrift[]> {
  const out: ModelDrift[] = [];
  for (const modelId of modelIds.slice(0, MAX_DRIFT_MODELS)) {
    const lookup = profileFromArtifact(await sources.artifactText(modelId));
    const days =
      "profile" in lookup
        ? await sources.store.driftCounts(driftCountsQuery(scope, modelId, lookup.profile))
        : [];
    out.push(modelDrift(modelId, lookup, days, threshold));
  }
  return out;
}

/** The models of a quality report's daily counts, the most searched first (then by id). */
export function modelsBySearches(daily: readonly { modelId: string; searches: number }[]): string[] {
  const total = new Map<string, number>();
  for (const d of daily) total.set(d.modelId, (total.get(d.modelId) ?? 0) + d.searches);
  return [...total.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
}
