/**
 * The admin side of `relevance_canary_config`: a candidate model that serves the score to a stable
 * share of an index's (or alias's) shoppers, chosen by their X-MS-USER-ID
 * (`…/indexes/{index}/relevance-canary-config`): the admin API takes
 * `{relevanceCanaryConfig: {modelId, percent}}` (or null: no canary), the settings record stores
 * `relevance_canary_config: {model_id, percent}`, and the search reads its KV copy
 * (SettingsView.relevanceCanaryConfig). Unlike a shadow, a canary answers shoppers: its artifact must
 * be uploaded and load before the config is written.
 */
import { modelKey, otherAccountModelProblem, parseArtifact, parseModelId } from "@relevance/core";
import {
  type CanaryConfig,
  CanaryConfigBodySchema,
  CanaryConfigSchema,
  type CanaryConfigBody as Config,
} from "@relevance/outcomes";
import type { Kv } from "@relevance/settings";
import { type IndexSettingDeps, indexSettingRouteDocs, indexSettingRoutes } from "./index-setting-routes.ts";
import type { BodyLimitAnswers } from "./openapi-parts.ts";

const PATH = "relevanceCanaryConfig.modelId";

/** Refusals: a model of another account, or one that would not load when a shopper's search needs it. */
async function canaryRefusals(kv: Kv, modelId: string, account: string) {
  const other = otherAccountModelProblem(modelId, account);
  if (other !== null) return [{ path: PATH, message: other }];
  const key = modelKey(modelId);
  const text = await kv.get(key);
  if (text === null) {
    return [{ path: PATH, message: `no model artifact under ${key}; upload it before a canary serves it` }];
  }
  if (!parseArtifact(text).ok)
    return [{ path: PATH, message: `the value under ${key} is not a valid model artifact` }];
  return [];
}

const canary = (kv: Kv) => ({
  segment: "relevance-canary-config",
  attribute: "relevance_canary_config",
  bodyKey: "relevanceCanaryConfig",
  label: "relevance canary config",
  schema: CanaryConfigBodySchema,
  stored: CanaryConfigSchema,
  toStored: (c: Config): CanaryConfig => ({ model_id: c.modelId, percent: c.percent }),
  fromStored: (s: CanaryConfig): Config => ({ modelId: s.model_id, percent: s.percent }),
  storedProblem: (s: CanaryConfig, account: string) => {
    const other = otherAccountModelProblem(s.model_id, account);
    return other === null ? null : { path: "model_id", message: other };
  },
  refuse: (c: Config, account: string) => canaryRefusals(kv, c.modelId, account),
  warn: async (c: Config) =>
    parseModelId(c.modelId) === null
      ? [`modelId ${JSON.stringify(c.modelId)} does not follow <system_account_id>:<index_name>:v<n>`]
      : [],
  logFields: (c: Config | null) => ({ modelId: c?.modelId ?? null, percent: c?.percent ?? null }),
  docs: {
    nullMeans: "no canary, the serving model scores every search",
    readSummary:
      "Read the relevance canary config (the candidate model and its share of shoppers) of an index or alias.",
    readAnswer: "The config (null when not set: no canary) and the record's version.",
    whileMalformed: "the serving model scores every search",
    putSummary:
      "Set (or with null remove) the relevance canary config; a conditional write on the record's version.",
    written: "Written, with warnings.",
    warnings:
      "Problems that do not stop the write (a modelId not of the form <system_account_id>:<index_name>:v<n>).",
    refused:
      "Body not JSON, other keys, modelId missing, empty, over 256 characters, with control characters, of another account or without a loadable artifact, or percent missing, not a number or outside 0 to 100.",
  },
});

export const canaryConfigRoutes = (deps: IndexSettingDeps & { kv: Kv }) =>
  indexSettingRoutes(canary(deps.kv), deps);
/** The documents never read KV. */
export const canaryConfigRouteDocs = (limits: BodyLimitAnswers) =>
  indexSettingRouteDocs(canary(null as unknown as Kv), limits);
