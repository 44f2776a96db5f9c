import { isPlainObject } from "@relevance/core";
import { RetrievalError } from "../ports.ts";

/** Meilisearch's documented error body: `{message, code, type, link}`. */
export interface MeilisearchErrorBody {
  message: string;
  code: string;
  type: string;
  link?: string;
}

export function asMeilisearchError(body: unknown): MeilisearchErrorBody | null {
  if (!isPlainObject(body) || typeof body.message !== "string" || typeof body.code !== "string") return null;
  return {
    message: body.message,
    code: body.code,
    type: typeof body.type === "string" ? body.type : "",
    ...(typeof body.link === "string" ? { link: body.link } : {}),
  };
}

/** Error codes about a search parameter the client sent, by the request field at fault. */
const CLIENT_FIELDS: Record<string, string> = {
  invalid_search_q: "q",
  invalid_search_limit: "limit",
  invalid_search_offset: "offset",
  invalid_search_filter: "filter",
  invalid_search_page: "page",
  invalid_search_hits_per_page: "hitsPerPage",
  invalid_search_sort: "sort",
  invalid_search_facets: "facets",
  invalid_search_attributes_to_retrieve: "attributesToRetrieve",
  invalid_search_attributes_to_highlight: "attributesToHighlight",
  invalid_search_attributes_to_crop: "attributesToCrop",
  invalid_search_highlight_pre_tag: "highlightPreTag",
  invalid_search_highlight_post_tag: "highlightPostTag",
  invalid_search_crop_length: "cropLength",
  invalid_search_crop_marker: "cropMarker",
  invalid_search_show_ranking_score: "showRankingScore",
  invalid_search_matching_strategy: "matchingStrategy",
};

/**
 * A Meilisearch error answer as a RetrievalError. Only errors in what the client chose (the filter,
 * mostly: "attribute not filterable", a syntax error) are the client's (422); everything else, an
 * index missing in Meilisearch while its settings exist, a rejected API key, a 5xx, is the
 * backend's or the deployment's problem (502).
 */
export function retrievalErrorOf(status: number, body: unknown): RetrievalError {
  const error = asMeilisearchError(body);
  if (error === null)
    return new RetrievalError("unavailable", `Meilisearch answered ${status} without an error body`);
  const field = CLIENT_FIELDS[error.code];
  if (field !== undefined && status >= 400 && status < 500) {
    return new RetrievalError("invalid_request", clientMessage(error.message), field);
  }
  return new RetrievalError("unavailable", `Meilisearch answered ${status} ${error.code}: ${error.message}`);
}

/** Meilisearch prefixes some messages with the index uid (`Index \`acct_1-products\`: ...`); the client does not need it. */
function clientMessage(message: string): string {
  return message.replace(/^Index `[^`]*`: /, "");
}
