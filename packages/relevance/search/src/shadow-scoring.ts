/**
 * Shadow scoring: for a sampled share of an index's scored searches, the model named by its
 * `relevance_shadow_config` predicts on the feature vector the serving model saw, and the served
 * search's row carries both scores. It runs where the row is built, after the answer has left (in
 * the Worker inside `waitUntil`): never on the response path, never in the response. A shadow that
 * does not load costs the row nothing but its shadow fields.
 */
import { otherAccountModelProblem } from "@relevance/core";
import { shadowConfigOf } from "@relevance/outcomes";
import type { Logger } from "@relevance/settings";
import type { RateLimiter } from "./rate-limit.ts";
import type { Scorer } from "./scorer.ts";

interface ServedForShadow {
  account: string;
  index: string;
  modelId: string;
  features: readonly number[];
}

/** The shadow fields of a served search's row, or null for none. Never throws. */
export type ShadowFields = (
  served: ServedForShadow,
  storedConfig: unknown,
) => Promise<{ shadowModelId: string; shadowScore: number } | null>;

export function shadowScoring(deps: {
  scorer: Scorer;
  log: Logger;
  /** One line per index and window for a malformed config. */
  limiter: RateLimiter;
  random: () => number;
}): ShadowFields {
  const { scorer, log, limiter, random } = deps;
  return async (served, storedConfig) => {
    try {
      if (storedConfig === undefined || storedConfig === null || scorer.shadowScore === undefined)
        return null;
      const { config, valid } = shadowConfigOf(storedConfig);
      // A model of another account is never loaded for this one (a direct table edit).
      const problem =
        config === null ? "is malformed" : otherAccountModelProblem(config.model_id, served.account);
      if (!valid || config === null || problem !== null) {
        if (limiter.take(`shadow\u0000${served.account}\u0000${served.index}`) !== null)
          log.error("relevance shadow config is not used", {
            account: served.account,
            index: served.index,
            problem,
          });
        return null;
      }
      if (!(random() < config.sample_rate)) return null;
      const score = await scorer.shadowScore({
        account: served.account,
        index: served.index,
        modelId: config.model_id,
        features: served.features,
      });
      return score === null ? null : { shadowModelId: config.model_id, shadowScore: score };
    } catch {
      // The row is recorded without shadow fields; the scorer logs its own problems.
      return null;
    }
  };
}
