/**
 * `relevance_canary_config`: an internal index setting beside `relevance_trigger_config` (which keeps
 * its three fields exactly), naming a candidate model that serves the score to a stable share of the
 * index's shoppers: those whose (account, index, X-MS-USER-ID) falls in the first `percent` of 100
 * buckets. The same shopper gets the same model on every search and in every Worker isolate; a search
 * without a user id gets the serving model. Absent or null: no canary. Defined once here; the admin
 * API's camelCase body (`relevanceCanaryConfig: {modelId, percent}`) maps onto it.
 */
import type { LimitRow } from "@shared/kernel";
import * as z from "zod";
import { ConfigModelId, MAX_SHADOW_MODEL_ID_CHARS } from "./shadow-config.ts";
import { storedSetting } from "./stored-setting.ts";
import { MAX_USER_ID_CHARS } from "./user-hash.ts";

/** Longest candidate model id (as the shadow's and the trigger config's). */
export const MAX_CANARY_MODEL_ID_CHARS = MAX_SHADOW_MODEL_ID_CHARS;
/** The share of shoppers is a percentage: 0 (nobody) to 100 (every shopper with a user id). */
export const MAX_CANARY_PERCENT = 100;

/** The stored shape (snake_case, as in the settings table and its KV copy). */
export const CanaryConfigSchema = z.strictObject({
  model_id: ConfigModelId,
  percent: z.number().min(0).max(MAX_CANARY_PERCENT),
});
export type CanaryConfig = z.infer<typeof CanaryConfigSchema>;

/** The admin API's shape (camelCase). */
export const CanaryConfigBodySchema = z
  .strictObject({
    modelId: ConfigModelId.meta({
      description:
        "The candidate model, `<system_account_id>:<index_name>:v<n>` of this account, its artifact uploaded (KV relevance_model:<modelId>).",
    }),
    percent: z
      .number()
      .min(0)
      .max(MAX_CANARY_PERCENT)
      .meta({
        description: `Share of the index's shoppers (by X-MS-USER-ID) whose scored searches the candidate serves, 0 to ${MAX_CANARY_PERCENT}.`,
      }),
  })
  .meta({ id: "RelevanceCanaryConfig" });
export type CanaryConfigBody = z.infer<typeof CanaryConfigBodySchema>;

/** The canary config as the search reads it from the KV copy (storedSetting). */
export const canaryConfigOf = (stored: unknown): { config: CanaryConfig | null; valid: boolean } =>
  storedSetting(CanaryConfigSchema, stored);

/**
 * The shopper's bucket in [0, 100): FNV-1a over the UTF-16 code units of account, index and user id
 * (NUL-separated), mixed by MurmurHash3's finaliser so that ids differing in one character spread
 * over every bucket. Synchronous and the same on every runtime: nothing to await on the search path.
 */
export function canaryBucket(account: string, index: string, userId: string): number {
  const text = `${account}\u0000${index}\u0000${userId}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return ((h >>> 0) / 0x1_0000_0000) * 100;
}

/**
 * The candidate model when this shopper is in the canary's share, else null (the serving model).
 * A missing, empty or over-long user id (X-MS-USER-ID beyond its bound) is no shopper: null.
 */
export function canaryModelFor(
  config: CanaryConfig | null,
  account: string,
  index: string,
  userId: string | undefined,
): string | null {
  if (config === null || config.percent <= 0) return null;
  if (userId === undefined || userId === "" || userId.length > MAX_USER_ID_CHARS) return null;
  return canaryBucket(account, index, userId) < config.percent ? config.model_id : null;
}

/** The rows of docs/limits.md for the canary config's admin route. */
export const CANARY_LIMITS: LimitRow[] = [
  {
    area: "admin",
    field: "relevanceCanaryConfig.modelId",
    limit: MAX_CANARY_MODEL_ID_CHARS,
    unit: "characters",
    status: 422,
    note: "the candidate model; a model id of another account, or one whose artifact is not uploaded or does not load, is refused too",
  },
  {
    area: "admin",
    field: "relevanceCanaryConfig.percent",
    limit: MAX_CANARY_PERCENT,
    unit: "percent",
    status: 422,
    note: "the share of shoppers (by X-MS-USER-ID) the candidate serves; below 0 is refused too",
  },
];
