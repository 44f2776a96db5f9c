// Public surface of the search proxy. Adapters of the Retrieval port live behind subpaths:
// `@relevance/search/meilisearch` and the package `@relevance/search-embedded`.

// The artifact limit's setting, for entry points that read MODEL_MAX_BYTES (the Worker, apps/local).
export { ARTIFACT_MAX_BYTES_ENV, artifactMaxBytes, DEFAULT_ARTIFACT_MAX_BYTES } from "@relevance/core";
export { ApiError, type ErrorBody } from "@shared/http";
export {
  createSearchApp,
  modelCacheBytes,
  RELEVANCE_MODEL_HEADER,
  SEARCH_PATH,
  type SearchAppDeps,
  type SearchRecorder,
} from "./app.ts";
export {
  DEFAULT_EVENTS_PER_KEY_PER_SECOND,
  EVENT_LIMITS,
  EVENTS_PATH,
  EventRequestSchema,
  MAX_EVENT_BODY_BYTES,
  MAX_EVENTS_PER_KEY_PER_SECOND,
} from "./events.ts";
export * from "./index-manager.ts";
export * from "./limits.ts";
export {
  type CachedModel,
  DEFAULT_KV_TIMEOUT_MS,
  DEFAULT_MAX_BYTES,
  estimateModelBytes,
  MAX_NEGATIVE_TTL_MS,
  MODEL_OVERHEAD_BYTES,
  ModelCache,
  type ModelCacheOptions,
  type ModelCacheStats,
  type ModelLookup,
} from "./model-cache.ts";
export {
  SEARCH_OPENAPI_PATHS,
  SEARCH_OPENAPI_SCHEMAS,
  searchOpenApiDocument,
  searchOpenApiParts,
} from "./openapi-document.ts";
export * from "./ports.ts";
export { RECORDING_VARIABLES, type RecordingTuning, recordingTuning } from "./recording-env.ts";
export {
  DEFAULT_LIMIT,
  filterDepthExceeds,
  filterText,
  parseSearchRequest,
  type SearchRequest,
} from "./request.ts";
export {
  createScorer,
  RelevanceScorer,
  type RelevanceScorerOptions,
  type Score,
  type ScoreInput,
  type Scorer,
} from "./scorer.ts";
export {
  DEFAULT_RANKING_RULES,
  DEFAULT_TYPO_TOLERANCE,
  parseApiKeyCopy,
  parseSettingsCopy,
  type SettingsView,
} from "./settings-copy.ts";
export { engineSettingsOf, type SyncOptions, type SyncOutcome, syncIndexSettings } from "./settings-sync.ts";
export {
  outcomesEnvProblems,
  searchTuningProblems,
  type WorkerEnvProblem,
  workerEnvProblems,
} from "./worker-env.ts";
