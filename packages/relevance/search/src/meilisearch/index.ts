// The Retrieval port over Meilisearch's HTTP API (production search backend).
export { asMeilisearchError, type MeilisearchErrorBody, retrievalErrorOf } from "./errors.ts";
export {
  DEFAULT_INDEX_MANAGER_TIMEOUT_MS,
  failureOf,
  MeilisearchIndexManager,
  type MeilisearchIndexManagerOptions,
} from "./index-manager.ts";
export {
  DEFAULT_MEILISEARCH_TIMEOUT_MS,
  defaultIndexUid,
  type MeilisearchOptions,
  MeilisearchRetrieval,
} from "./retrieval.ts";
