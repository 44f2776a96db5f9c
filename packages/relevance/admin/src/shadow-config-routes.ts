/**
 * The admin side of `relevance_shadow_config`: a second model that scores a sampled share of an
 * index's (or alias's) scored searches after the answer has left, recorded beside the serving score
 * (`…/indexes/{index}/relevance-shadow-config`): the admin API takes
 * `{relevanceShadowConfig: {modelId, sampleRate}}` (or null: no shadow scoring), the settings record
 * stores `relevance_shadow_config: {model_id, sample_rate}`, and the search reads its KV copy
 * (SettingsView.relevanceShadowConfig).
 */
import { modelKey, otherAccountModelProblem, parseArtifact, parseModelId } from "@relevance/core";
import {
  type ShadowConfigBody as Config,
  type ShadowConfig,
  ShadowConfigBodySchema,
  ShadowConfigSchema,
} from "@relevance/outcomes";
import type { Kv } from "@relevance/settings";
import { type IndexSettingDeps, indexSettingRouteDocs, indexSettingRoutes } from "./index-setting-routes.ts";
import type { BodyLimitAnswers } from "./openapi-parts.ts";

/** Warnings, never errors: uploading the artifact and configuring the shadow are independent steps. */
async function shadowWarnings(kv: Kv, modelId: string): Promise<string[]> {
  const warnings: string[] = [];
  if (parseModelId(modelId) === null) {
    warnings.push(`modelId ${JSON.stringify(modelId)} does not follow <system_account_id>:<index_name>:v<n>`);
  }
  const key = modelKey(modelId);
  const text = await kv.get(key);
  if (text === null) {
    warnings.push(
      `no model artifact under ${key} yet; searches are recorded without shadow scores until it is uploaded`,
    );
  } else if (!parseArtifact(text).ok) {
    warnings.push(
      `the value under ${key} is not a valid model artifact; searches are recorded without shadow scores`,
    );
  }
  return warnings;
}

const shadow = (kv: Kv) => ({
  segment: "relevance-shadow-config",
  attribute: "relevance_shadow_config",
  bodyKey: "relevanceShadowConfig",
  label: "relevance shadow config",
  schema: ShadowConfigBodySchema,
  stored: ShadowConfigSchema,
  toStored: (c: Config): ShadowConfig => ({ model_id: c.modelId, sample_rate: c.sampleRate }),
  fromStored: (s: ShadowConfig): Config => ({ modelId: s.model_id, sampleRate: s.sample_rate }),
  // A model of another account is a stored problem too (a direct table edit).
  storedProblem: (s: ShadowConfig, account: string) => {
    const other = otherAccountModelProblem(s.model_id, account);
    return other === null ? null : { path: "model_id", message: other };
  },
  refuse: async (c: Config, account: string) => {
    const other = otherAccountModelProblem(c.modelId, account);
    return other === null ? [] : [{ path: "relevanceShadowConfig.modelId", message: other }];
  },
  warn: (c: Config) => shadowWarnings(kv, c.modelId),
  logFields: (c: Config | null) => ({ modelId: c?.modelId ?? null, sampleRate: c?.sampleRate ?? null }),
  docs: {
    nullMeans: "no shadow scoring",
    readSummary:
      "Read the relevance shadow config (the shadow model and its sample rate) of an index or alias.",
    readAnswer: "The config (null when not set: no shadow scoring) and the record's version.",
    whileMalformed: "nothing is shadow-scored",
    putSummary:
      "Set (or with null remove) the relevance shadow config; a conditional write on the record's version.",
    written: "Written, with warnings.",
    warnings:
      "Problems that do not stop the write: the artifact is not uploaded yet or does not load (then searches are recorded without shadow scores).",
    refused:
      "Body not JSON, other keys, modelId missing, empty, over 256 characters, with control characters or of another account, or sampleRate missing, not a number or outside 0 to 1.",
  },
});

export const shadowConfigRoutes = (deps: IndexSettingDeps & { kv: Kv }) =>
  indexSettingRoutes(shadow(deps.kv), deps);
/** The documents never read KV. */
export const shadowConfigRouteDocs = (limits: BodyLimitAnswers) =>
  indexSettingRouteDocs(shadow(null as unknown as Kv), limits);
