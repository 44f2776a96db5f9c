/**
 * The port this package owns: where served searches and outcome events are kept and how the
 * quality report and the training export read them back. Every adapter (memory, ClickHouse over
 * HTTP, chDB) runs the one contract suite in contract/.
 */
import type { OutcomeEvent, ServedSearch } from "./records.ts";

/** Which searches a report or an export covers: one account's index (as named), a time range. */
export interface OutcomeScope {
  account: string;
  /** The index or alias as the searches named it (ServedSearch.index). */
  index: string;
  /** Epoch ms, inclusive. */
  since: number;
  /** Epoch ms, exclusive. */
  until: number;
  /** Only this model's searches; every model's when absent. */
  modelId?: string;
}

export interface QualityQuery extends OutcomeScope {
  /** Queries with fewer searches than this are left out of `queries`. */
  minImpressions: number;
  /** At most this many queries (those with the most searches first, then by query). */
  maxQueries: number;
}

/**
 * What the pure report (quality/) needs, aggregated by the store. An event counts for a search
 * only when its account and queryUid are the search's; the same (userHash, queryUid, objectId,
 * eventType) counts once.
 */
export interface QualityInputs {
  /** Searches per model and UTC day (YYYY-MM-DD), in score bins of width 1: bin b holds [b, b+1), a 10 is in bin 9. */
  daily: { modelId: string; day: string; bin: number; searches: number }[];
  /**
   * Searches per model in fine score bins (bin = Math.round(score * 100), 0..1000), with how many
   * had at least one click and at least one conversion.
   */
  bins: { modelId: string; bin: number; searches: number; clicked: number; converted: number }[];
  /** Per model and queryKey with at least minImpressions searches: counts and the mean score served. */
  queries: {
    modelId: string;
    queryKey: string;
    impressions: number;
    clicked: number;
    converted: number;
    meanScore: number;
  }[];
  /**
   * Events of the scope's account and index received in the range: attributed to a search of the
   * scope, sent for a queryUid that matches no search of this account (or none), and repeats of a
   * counted event.
   */
  events: { attributed: number; unattributed: number; duplicates: number };
}

export interface TrainingRowsQuery extends OutcomeScope {
  minImpressions: number;
  /** At most this many rows, in queryKey order. */
  limit: number;
  /** Rows after this queryKey (paging). */
  after?: string;
}

/** One query's outcome over the range, with the feature vector of its most recent served search. */
export interface TrainingQueryRow {
  queryKey: string;
  /** The query text of that most recent search. */
  query: string;
  modelId: string;
  /** Feature set v1 as served, FEATURE_SET_V1 order. */
  features: number[];
  impressions: number;
  /** Searches of the query with at least one click / one conversion. */
  clicked: number;
  converted: number;
  lastServedAt: number;
}

/** The scope's searches that a shadow model scored too, oldest first, at most `limit`. */
export interface ShadowPairsQuery extends OutcomeScope {
  limit: number;
}

/** One search scored by both models: the served score and the shadow's, on the same feature vector. */
export interface ShadowPair {
  queryUid: string;
  servedAt: number;
  modelId: string;
  score: number;
  shadowModelId: string;
  shadowScore: number;
}

/** What the serving-against-shadow comparison reads: a quality query plus how many pairs ρ samples. */
export interface ShadowComparisonQuery extends QualityQuery {
  /** Per model pair, at most this many of the most recent paired searches for ρ between the two scores. */
  maxSamples: number;
}

/**
 * What the comparison (quality/comparison.ts) needs, aggregated by the store over the scope's
 * searches that carry a shadow score, per serving and shadow model pair. Events join as in quality().
 */
export interface ShadowComparisonInputs {
  pairs: {
    servingModelId: string;
    shadowModelId: string;
    pairs: number;
    /** Paired searches with at least one click. */
    withClick: number;
    /** Sum over paired searches of |shadow − serving| and of (shadow − serving). */
    absDiffSum: number;
    diffSum: number;
  }[];
  /** Fine bins (Math.round(score × 100)) of each model's score over the paired searches. */
  bins: {
    servingModelId: string;
    shadowModelId: string;
    side: "serving" | "shadow";
    bin: number;
    searches: number;
    clicked: number;
    converted: number;
  }[];
  /** Per query with at least minImpressions paired searches (at most maxQueries): both mean scores. */
  queries: {
    servingModelId: string;
    shadowModelId: string;
    queryKey: string;
    impressions: number;
    clicked: number;
    servingMeanScore: number;
    shadowMeanScore: number;
  }[];
  /** Paired searches per UTC day in the shadow score's ten bins (floor of the score, a 10 in bin 9). */
  daily: { servingModelId: string; shadowModelId: string; day: string; bin: number; searches: number }[];
  /** The most recent paired searches' two scores, at most maxSamples per pair, newest first. */
  samples: { servingModelId: string; shadowModelId: string; score: number; shadowScore: number }[];
}

/**
 * One model's searches of the scope counted per UTC day in the bins of given edges: the score's and
 * the chosen features' (a model's training profile, drift/). Bins as core's profileBin: bin i holds
 * edges[i] <= v < edges[i + 1], the first and the last open; no edges, every value missing.
 */
export interface DriftCountsQuery extends OutcomeScope {
  modelId: string;
  /** The score's edges (at most MAX_PROFILE_BINS + 1, ascending). */
  scoreEdges: readonly number[];
  /** Features to count: their index in FEATURE_SET_V1 and their edges; at most FEATURE_SET_V1.length. */
  features: readonly { index: number; edges: readonly number[] }[];
}

/** Counts in the bins of the query's edges (one more count than edges less one; none without edges). */
export interface DriftBinCounts {
  counts: number[];
  /** Values that fell in no bin: not finite, or the distribution has no edges. */
  missing: number;
}

/** One UTC day's counts: `features` in the query's order. */
export interface DriftDayCounts {
  day: string;
  score: DriftBinCounts;
  features: DriftBinCounts[];
}

/** Which models served searches in a time range, across accounts: what the drift check goes over. */
export interface ScoredModelsQuery {
  /** Epoch ms, inclusive. */
  since: number;
  /** Epoch ms, exclusive. */
  until: number;
  /** At most this many, in (account, index, modelId) order. */
  limit: number;
}

export interface ScoredModel {
  account: string;
  index: string;
  modelId: string;
  searches: number;
}

export interface OutcomeStore {
  /** Stores served searches; resolves only once they are stored (a failure rejects). */
  recordSearches(rows: readonly ServedSearch[]): Promise<void>;
  /** Stores outcome events; resolves only once they are stored. */
  recordEvents(rows: readonly OutcomeEvent[]): Promise<void>;
  quality(query: QualityQuery): Promise<QualityInputs>;
  trainingRows(query: TrainingRowsQuery): Promise<TrainingQueryRow[]>;
  /** Searches with shadow scores (`shadowModelId` set), ordered by servedAt then queryUid. */
  shadowPairs(query: ShadowPairsQuery): Promise<ShadowPair[]>;
  /** Serving against shadow on the same searches, aggregated per model pair. */
  shadowComparison(query: ShadowComparisonQuery): Promise<ShadowComparisonInputs>;
  /**
   * The model's searches per UTC day (ascending; days without searches absent), binned in the store
   * by the query's edges: a day of a million searches reaches JavaScript as a few hundred counts.
   */
  driftCounts(query: DriftCountsQuery): Promise<DriftDayCounts[]>;
  /** Every (account, index, model) with searches in the range, with how many, in that order. */
  scoredModels(query: ScoredModelsQuery): Promise<ScoredModel[]>;
  /** Deletes searches and events older than `before` (epoch ms): the retention. */
  purge(before: number): Promise<void>;
}
