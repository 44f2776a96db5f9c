/**
 * The canary: a candidate model (relevance_canary_config of the record the request named) serves
 * the score to the shoppers whose stable bucket of (account, index, X-MS-USER-ID) falls below its
 * percentage; everyone else, and every search without a user id, gets the serving model. The
 * choice is a pure function of the request, so a shopper keeps one model across searches, processes
 * and Worker isolates. The served model is answered as `x-relevance-model` and recorded as the
 * search's modelId. A canary-served search is not shadow-scored: the pairs the comparison reads are
 * the serving model's.
 */
import { otherAccountModelProblem } from "@relevance/core";
import { canaryConfigOf, canaryModelFor } from "@relevance/outcomes";
import type { Logger } from "@relevance/settings";
import type { RateLimiter } from "./rate-limit.ts";

/** The candidate model for this shopper, or undefined for the serving model. Never throws. */
export type CanaryChoice = (
  account: string,
  index: string,
  storedConfig: unknown,
  userId: string | undefined,
) => string | undefined;

export function canaryChoice(deps: { log: Logger; limiter: RateLimiter }): CanaryChoice {
  const { log, limiter } = deps;
  return (account, index, storedConfig, userId) => {
    try {
      if (storedConfig === undefined || storedConfig === null) return undefined;
      const { config } = canaryConfigOf(storedConfig);
      // A model of another account is never loaded for this one (a direct table edit).
      const problem = config === null ? "is malformed" : otherAccountModelProblem(config.model_id, account);
      if (config === null || problem !== null) {
        if (limiter.take(`canary\u0000${account}\u0000${index}`) !== null)
          log.error("relevance canary config is not used", { account, index, problem });
        return undefined;
      }
      return canaryModelFor(config, account, index, userId) ?? undefined;
    } catch {
      return undefined;
    }
  };
}
