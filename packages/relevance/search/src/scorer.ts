import {
  clampScore,
  computeFeaturesV1,
  formatIssues,
  validateStoredRelevanceTriggerConfig,
} from "@relevance/core";
import type { Logger } from "@relevance/settings";
import { ModelCache, type ModelCacheOptions, type ModelCacheStats } from "./model-cache.ts";
import { RateLimiter } from "./rate-limit.ts";
import { errorMessage } from "./timeout.ts";

export interface ScoreInput {
  account: string;
  /** The index the request named (for an alias: the alias), for logs. */
  index: string;
  /** `relevance_trigger_config` as stored in the settings copy: absent, null, or possibly malformed. */
  config: unknown;
  query: string;
  hits: readonly Record<string, unknown>[];
  estimatedTotalHits: number;
  /**
   * The canary's candidate model when this shopper is in its share (relevance_canary_config): it
   * scores instead of the serving model, on the same features; when its artifact does not load, the
   * serving model scores (a log line per model and window).
   */
  candidateModelId?: string | undefined;
}

export interface Score {
  /** In [0, 10]. */
  score: number;
  /** The model that produced it (answered as the `x-relevance-model` header). */
  modelId: string;
  /**
   * Feature set v1 exactly as the model saw it (FEATURE_SET_V1 order): what a served-search record
   * keeps, so training from outcomes reads the vector that was served, not a recomputation.
   */
  features: number[];
}

/** A shadow model's prediction on a feature vector a serving model saw. */
export interface ShadowInput {
  account: string;
  index: string;
  /** The shadow model (`relevance_shadow_config.model_id`). */
  modelId: string;
  /** Feature set v1 as served (Score.features). */
  features: readonly number[];
}

/** Computes `relevanceScore`. Never throws: any problem means no score (and a log line). */
export interface Scorer {
  score(input: ScoreInput): Promise<Score | null>;
  /**
   * The shadow model's score in [0, 10] on the served feature vector, or null when its artifact is
   * missing or does not load (a log line per model and window). Absent: no shadow scoring.
   */
  shadowScore?(input: ShadowInput): Promise<number | null>;
}

export interface RelevanceScorerOptions extends Omit<ModelCacheOptions, "now"> {
  log: Logger;
  now?: () => number;
  /** Use this cache instead of a new one (options for the cache are then ignored). */
  cache?: ModelCache;
  /** Each log line (per kind, account, index and modelId) at most once per window. Default 60 s. */
  logWindowMs?: number;
}

/**
 * The scorer of the search proxy: validates the index's config, gets the model from the cache
 * (KV `relevance_model:<modelId>`), computes feature set v1 over the returned hits and predicts.
 */
export class RelevanceScorer implements Scorer {
  readonly cache: ModelCache;
  private readonly log: Logger;
  private readonly limiter: RateLimiter;

  constructor(options: RelevanceScorerOptions) {
    const now = options.now ?? Date.now;
    this.cache = options.cache ?? new ModelCache({ ...options, now });
    this.log = options.log;
    this.limiter = new RateLimiter(now, options.logWindowMs ?? 60_000);
  }

  stats(): ModelCacheStats {
    return this.cache.stats();
  }

  async score(input: ScoreInput): Promise<Score | null> {
    const { account, index } = input;
    let modelId: string | undefined;
    try {
      if (input.config === undefined || input.config === null) return null; // scoring not configured
      const config = validateStoredRelevanceTriggerConfig(input.config, undefined, account);
      if (!config.ok) {
        this.emit("error", "relevance trigger config is malformed", "config", {
          account,
          index,
          problem: formatIssues(config.errors),
        });
        return null;
      }
      if (config.value === null) return null;
      modelId = config.value.modelId;
      const candidate = input.candidateModelId;
      const served = candidate === undefined ? null : await this.candidate(candidate, account, index);
      if (served !== null) modelId = candidate as string;
      const found = served ?? (await this.cache.get(modelId));
      switch (found.status) {
        case "missing":
          this.emit("warn", "relevance model artifact missing", "missing", { account, index, modelId });
          return null;
        case "malformed":
          this.emit("error", "relevance model artifact is malformed", "malformed", {
            account,
            index,
            modelId,
            problem: found.problem,
          });
          return null;
        case "too_large":
          this.emit("error", "relevance model is too large for the model cache", "too_large", {
            account,
            index,
            modelId,
            problem: found.problem,
          });
          return null;
        case "kv_error":
          this.emit("error", "relevance model artifact could not be read", "kv", {
            account,
            index,
            modelId,
            problem: found.problem,
          });
          return null;
      }
      const features = computeFeaturesV1({
        query: input.query,
        hits: input.hits,
        estimatedTotalHits: input.estimatedTotalHits,
        titleField: config.value.titleField,
        tagsField: config.value.tagsField,
      });
      const score = clampScore(found.model.model.predictV1(features));
      if (score === null) {
        this.emit("error", "relevance model produced no number", "nan", { account, index, modelId });
        return null;
      }
      return { score, modelId, features: Array.from(features) };
    } catch (error) {
      this.emit("error", "relevance scoring failed", "failed", {
        account,
        index,
        modelId,
        problem: errorMessage(error),
      });
      return null;
    }
  }

  /** The candidate's cache entry, or null (and a rate-limited line) when the serving model must score. */
  private async candidate(modelId: string, account: string, index: string) {
    const found = await this.cache.get(modelId);
    if (found.status === "loaded") return found;
    this.emit(
      "warn",
      "relevance canary model does not load; the serving model scores",
      `canary_${found.status}`,
      {
        account,
        index,
        modelId,
        ...(found.status === "missing" ? {} : { problem: found.problem }),
      },
    );
    return null;
  }

  async shadowScore(input: ShadowInput): Promise<number | null> {
    const { account, index, modelId } = input;
    try {
      const found = await this.cache.get(modelId);
      if (found.status === "missing") {
        this.emit("warn", "relevance shadow model artifact missing", "shadow_missing", {
          account,
          index,
          modelId,
        });
        return null;
      }
      if (found.status !== "loaded") {
        this.emit("error", "relevance shadow model does not load", `shadow_${found.status}`, {
          account,
          index,
          modelId,
          problem: found.problem,
        });
        return null;
      }
      const score = clampScore(found.model.model.predictV1(Float64Array.from(input.features)));
      if (score === null) {
        this.emit("error", "relevance shadow model produced no number", "shadow_nan", {
          account,
          index,
          modelId,
        });
      }
      return score;
    } catch (error) {
      this.emit("error", "relevance shadow scoring failed", "shadow_failed", {
        account,
        index,
        modelId,
        problem: errorMessage(error),
      });
      return null;
    }
  }

  /** One line per kind, account, index and modelId per window; `repeats` counts the lines held back. */
  private emit(
    level: "warn" | "error",
    message: string,
    kind: string,
    fields: { account: string; index: string; modelId?: string | undefined; problem?: string },
  ): void {
    try {
      const repeats = this.limiter.take(
        `${kind}\u0000${fields.account}\u0000${fields.index}\u0000${fields.modelId ?? ""}`,
      );
      if (repeats === null) return;
      this.log[level](message, repeats > 0 ? { ...fields, repeats } : fields);
    } catch {
      // A failing logger must not fail the search either.
    }
  }
}

export function createScorer(options: RelevanceScorerOptions): RelevanceScorer {
  return new RelevanceScorer(options);
}
