// Meilisearch's error fields next to ours on the search routes: `{"error": {code, message,
// details}, "message", "code", "type", "link"}`. Our `error` object stays the contract; the
// top-level fields are what the official Meilisearch clients read (`MeiliSearchApiError` takes
// its message, code, type and link from them).
import type { Issue } from "@relevance/core";
import { isPlainObject } from "@relevance/core";
import type { ErrorHandler } from "hono";

export type MeilisearchErrorType = "invalid_request" | "auth" | "internal" | "system";

export interface MeilisearchErrorFields {
  message: string;
  code: string;
  type: MeilisearchErrorType;
  link: string;
}

/**
 * Meilisearch's error code for each search request field, one table both ways: our 422s name the
 * code of the field at fault, and a Meilisearch error with one of these codes is the client's
 * (meilisearch/errors.ts reads it backwards).
 */
export const SEARCH_FIELD_CODES = {
  q: "invalid_search_q",
  limit: "invalid_search_limit",
  offset: "invalid_search_offset",
  page: "invalid_search_page",
  hitsPerPage: "invalid_search_hits_per_page",
  filter: "invalid_search_filter",
  sort: "invalid_search_sort",
  facets: "invalid_search_facets",
  attributesToRetrieve: "invalid_search_attributes_to_retrieve",
  attributesToHighlight: "invalid_search_attributes_to_highlight",
  highlightPreTag: "invalid_search_highlight_pre_tag",
  highlightPostTag: "invalid_search_highlight_post_tag",
  attributesToCrop: "invalid_search_attributes_to_crop",
  cropLength: "invalid_search_crop_length",
  cropMarker: "invalid_search_crop_marker",
  showRankingScore: "invalid_search_show_ranking_score",
  matchingStrategy: "invalid_search_matching_strategy",
  distinct: "invalid_search_distinct",
  rankingScoreThreshold: "invalid_search_ranking_score_threshold",
} as const satisfies Record<string, string>;

/** Meilisearch's codes for the fields only a facet search has. */
export const FACET_SEARCH_FIELD_CODES = {
  facetName: "invalid_facet_search_facet_name",
  facetQuery: "invalid_facet_search_facet_query",
  exhaustiveFacetCount: "invalid_facet_search_exhaustive_facet_count",
} as const satisfies Record<string, string>;

/** The request field of a Meilisearch search or facet search error code: the tables read backwards. */
export const FIELD_OF_SEARCH_CODE: ReadonlyMap<string, string> = new Map(
  Object.entries({ ...SEARCH_FIELD_CODES, ...FACET_SEARCH_FIELD_CODES }).map(([field, code]) => [
    code,
    field,
  ]),
);

/** Meilisearch's codes for the search parameters this API refuses by name (UNSUPPORTED_SEARCH_PARAMETERS). */
const UNSUPPORTED_FIELD_CODES: Record<string, string> = {
  attributesToSearchOn: "invalid_search_attributes_to_search_on",
  hybrid: "invalid_search_hybrid_query",
  vector: "invalid_search_vector",
  retrieveVectors: "invalid_search_retrieve_vectors",
  media: "invalid_search_media",
  locales: "invalid_search_locales",
  showMatchesPosition: "invalid_search_show_matches_position",
  showRankingScoreDetails: "invalid_search_show_ranking_score_details",
  showPerformanceDetails: "invalid_search_show_performance_details",
  personalize: "invalid_search_personalize",
};

/** Meilisearch's code for a field at fault: a search field, or one of multi-search's own. */
const FIELD_CODES: Record<string, string> = {
  ...UNSUPPORTED_FIELD_CODES,
  ...SEARCH_FIELD_CODES,
  ...FACET_SEARCH_FIELD_CODES,
  indexUid: "invalid_index_uid",
  queries: "invalid_multi_search_queries",
};

/** Our codes that map one to one. */
const CODES: Record<string, [string, MeilisearchErrorType]> = {
  invalid_json: ["malformed_payload", "invalid_request"],
  bad_request: ["bad_request", "invalid_request"],
  payload_too_large: ["payload_too_large", "invalid_request"],
  too_many_requests: ["too_many_requests", "auth"],
  invalid_api_key: ["invalid_api_key", "auth"],
  origin_not_allowed: ["origin_not_allowed", "auth"],
  not_found: ["index_not_found", "invalid_request"],
  internal: ["internal", "internal"],
  settings_unavailable: ["settings_unavailable", "system"],
  backend_unavailable: ["backend_unavailable", "system"],
  backend_timeout: ["backend_timeout", "system"],
  events_unavailable: ["events_unavailable", "system"],
};

/** `queries[2].limit` → `limit`; `sort[0]` → `sort`. */
function fieldOf(path: string): string {
  const last = path.replace(/^queries\[\d+\]\.?/, "");
  return (last === "" ? path : last).replace(/\[\d+\]$/, "").split(/[.[]/)[0] ?? "";
}

/**
 * The Meilisearch fields for one of our error answers. `authCode` tells the two 401s apart (no key:
 * `missing_authorization_header`; a wrong one: `invalid_api_key`).
 */
export function meilisearchFields(
  status: number,
  code: string,
  message: string,
  details: readonly Issue[] | undefined,
  authCode?: string,
): MeilisearchErrorFields {
  let meiliCode: string;
  let type: MeilisearchErrorType;
  if (status === 401) {
    meiliCode = authCode ?? "invalid_api_key";
    type = "auth";
  } else if (code === "validation_failed") {
    const first = details?.[0];
    const field = first === undefined ? "" : fieldOf(first.path);
    if (first !== undefined && /^queries\[\d+\]$/.test(first.path))
      meiliCode = "invalid_multi_search_queries";
    else if (first?.message === "is not a known field") meiliCode = "bad_request";
    else if (field === "facetName" && first?.message === "is required")
      meiliCode = "missing_facet_search_facet_name";
    else meiliCode = Object.hasOwn(FIELD_CODES, field) ? (FIELD_CODES[field] as string) : "bad_request";
    type = "invalid_request";
  } else {
    const known = CODES[code];
    meiliCode = known?.[0] ?? (status >= 500 ? "internal" : code);
    type = known?.[1] ?? (status >= 500 ? "internal" : "invalid_request");
  }
  return { message, code: meiliCode, type, link: `https://docs.meilisearch.com/errors#${meiliCode}` };
}

/** The header our 401s use to say which one it is (removed before the answer leaves). */
export const AUTH_CODE_HEADER = "x-meilisearch-auth-code";

/**
 * Wraps an error handler: whatever JSON error body it answers gets the Meilisearch fields added
 * at the top level; its status and headers stay.
 */
export function withMeilisearchFields(base: ErrorHandler): ErrorHandler {
  return async (err, c) => {
    const res = await base(err, c);
    let body: unknown;
    try {
      body = await res.clone().json();
    } catch {
      return res;
    }
    if (!isPlainObject(body) || !isPlainObject(body.error)) return res;
    const { code, message, details } = body.error as { code: unknown; message: unknown; details?: Issue[] };
    if (typeof code !== "string" || typeof message !== "string") return res;
    const headers = new Headers(res.headers);
    const authCode = headers.get(AUTH_CODE_HEADER) ?? undefined;
    headers.delete(AUTH_CODE_HEADER);
    headers.delete("content-length");
    const fields = meilisearchFields(res.status, code, message, details, authCode);
    return new Response(JSON.stringify({ ...body, ...fields }), { status: res.status, headers });
  };
}
