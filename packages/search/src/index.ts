// Public surface of the search proxy. Adapters of the Retrieval port live behind subpaths:
// `@relevance/search/meilisearch` and `@relevance/search/embedded`.

export { ApiError, type ErrorBody } from "@relevance/http";
export { createSearchApp, RELEVANCE_MODEL_HEADER, SEARCH_PATH, type SearchAppDeps } from "./app.ts";
export {
  DEFAULT_KV_TIMEOUT_MS,
  DEFAULT_MAX_BYTES,
  MAX_NEGATIVE_TTL_MS,
  ModelCache,
  type ModelCacheOptions,
  type ModelCacheStats,
  type ModelLookup,
} from "./model-cache.ts";
export * from "./ports.ts";
export { DEFAULT_LIMIT, MAX_LIMIT, parseSearchRequest, type SearchRequest } from "./request.ts";
export {
  createScorer,
  RelevanceScorer,
  type RelevanceScorerOptions,
  type Score,
  type ScoreInput,
  type Scorer,
} from "./scorer.ts";
export { parseApiKeyCopy, parseSettingsCopy, type SettingsView } from "./settings-copy.ts";
