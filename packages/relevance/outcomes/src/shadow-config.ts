/**
 * `relevance_shadow_config`: an internal index setting beside `relevance_trigger_config` (which keeps
 * its three fields exactly), naming a second model that scores a sampled share of the index's scored
 * searches after the answer has left, on the same feature vector, so both scores are recorded side by
 * side. Absent or null: no shadow scoring. Defined once here; the admin API's camelCase body
 * (`relevanceShadowConfig: {modelId, sampleRate}`) maps onto it.
 */
import * as z from "zod";
import { storedSetting } from "./stored-setting.ts";

/** Longest model id (as the trigger config's, MAX_NAME_LENGTH of @relevance/core). */
export const MAX_SHADOW_MODEL_ID_CHARS = 256;

/** A model id in a config: the shadow's, the canary's. */
export const ConfigModelId = z
  .string()
  .min(1)
  .max(MAX_SHADOW_MODEL_ID_CHARS)
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "must not contain control characters");

/** The stored shape (snake_case, as in the settings table and its KV copy). */
export const ShadowConfigSchema = z.strictObject({
  model_id: ConfigModelId,
  sample_rate: z.number().min(0).max(1),
});
export type ShadowConfig = z.infer<typeof ShadowConfigSchema>;

/** The admin API's shape (camelCase). */
export const ShadowConfigBodySchema = z
  .strictObject({
    modelId: ConfigModelId.meta({
      description:
        "The shadow model, `<system_account_id>:<index_name>:v<n>` of this account (artifact in KV under relevance_model:<modelId>).",
    }),
    sampleRate: z.number().min(0).max(1).meta({
      description: "Share of the index's scored searches the shadow model scores too, 0 to 1.",
    }),
  })
  .meta({ id: "RelevanceShadowConfig" });
export type ShadowConfigBody = z.infer<typeof ShadowConfigBodySchema>;

/** The shadow config as the search reads it from the KV copy (storedSetting). */
export const shadowConfigOf = (stored: unknown): { config: ShadowConfig | null; valid: boolean } =>
  storedSetting(ShadowConfigSchema, stored);
