// A search body, checked by its schema (search-request-schema.ts) and read into the request the
// retrieval port takes: the defaults applied, page/hitsPerPage turned into limit and offset.
import { at, fail, type Issue, ok, type Result } from "@relevance/core";
import type * as z from "zod";
import { MAX_LIMIT } from "./limits.ts";
import type { SearchQuery } from "./ports.ts";
import {
  DEFAULT_HITS_PER_PAGE,
  DEFAULT_LIMIT,
  SEARCH_REQUEST_FIELDS,
  SearchRequestSchema,
} from "./search-request-schema.ts";

/** The body of `POST /api/v1/indexes/{index}/search`, validated, defaults applied. */
export interface SearchRequest extends SearchQuery {
  q: string;
  limit: number;
  offset: number;
  relevanceScore: boolean;
}

export { filterDepthExceeds, filterText } from "./search-request-schema.ts";
export { DEFAULT_HITS_PER_PAGE, DEFAULT_LIMIT, MAX_LIMIT };

/**
 * Validates a parsed JSON body; every problem is reported, each naming its field. Every size bound
 * (docs/limits.md) is checked here, before any tokenizing, parsing or backend work. `extra` names
 * fields the caller handles itself (multi-search's `indexUid`).
 */
export function parseSearchRequest(input: unknown, extra: readonly string[] = []): Result<SearchRequest> {
  const own =
    extra.length > 0 && typeof input === "object" && input !== null && !Array.isArray(input)
      ? Object.fromEntries(Object.entries(input).filter(([key]) => !extra.includes(key)))
      : input;
  const parsed = SearchRequestSchema.safeParse(own);
  if (!parsed.success) return fail(searchIssues(parsed.error));
  const { q, limit, offset, page, hitsPerPage, filter, relevanceScore, sort, facets } = parsed.data;
  const { attributesToRetrieve, attributesToHighlight, attributesToCrop } = parsed.data;
  const { highlightPreTag, highlightPostTag, cropMarker, cropLength, showRankingScore, matchingStrategy } =
    parsed.data;
  const { distinct, rankingScoreThreshold } = parsed.data;

  const paged = page !== undefined || hitsPerPage !== undefined;
  const pagination = paged
    ? {
        page: page ?? 1,
        hitsPerPage: hitsPerPage ?? DEFAULT_HITS_PER_PAGE,
      }
    : undefined;
  const request: SearchRequest = {
    q: q ?? "",
    limit: pagination === undefined ? (limit ?? DEFAULT_LIMIT) : pagination.hitsPerPage,
    offset: pagination === undefined ? (offset ?? 0) : (pagination.page - 1) * pagination.hitsPerPage,
    relevanceScore: relevanceScore === true,
  };
  // null is absent, as Meilisearch reads it.
  const optional: { [K in keyof SearchQuery]?: SearchQuery[K] | null } = {
    filter,
    pagination,
    sort,
    facets,
    attributesToRetrieve,
    attributesToHighlight,
    highlightPreTag,
    highlightPostTag,
    attributesToCrop,
    cropLength,
    cropMarker,
    showRankingScore,
    matchingStrategy,
    distinct,
    rankingScoreThreshold,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined && value !== null) (request as unknown as Record<string, unknown>)[key] = value;
  }
  return ok(request);
}

/**
 * Meilisearch search parameters (those the official client's SearchParams has) that this API does
 * not honour, and why: refused by name, never ignored (docs/search.md, "Compatibility: search
 * parameters").
 */
export const UNSUPPORTED_SEARCH_PARAMETERS: Readonly<Record<string, string>> = {
  attributesToSearchOn: "searches run on the index's searchableAttributes",
  hybrid: "there is no vector store (no embedders)",
  vector: "there is no vector store (no embedders)",
  retrieveVectors: "there is no vector store (no embedders)",
  media: "there is no vector store (no embedders)",
  locales: "tokenizing does not depend on a language",
  showMatchesPosition: "match positions are not computed; use attributesToHighlight",
  showRankingScoreDetails: "only the overall _rankingScore is computed (showRankingScore)",
  showPerformanceDetails: "no performance details are recorded",
  personalize: "search personalization is not available",
};

/**
 * A body schema's problems as the search API lists them: unknown fields first, then each of
 * `fields` in order with its first problem (a list over its bound said alone; every
 * sort criterion that is not `attribute:asc|desc`).
 */
export function searchIssues(error: z.ZodError, fields: readonly string[] = SEARCH_REQUEST_FIELDS): Issue[] {
  const unknown: Issue[] = [];
  const byField = new Map<string, z.core.$ZodIssue[]>();
  for (const i of error.issues) {
    if (i.code === "unrecognized_keys") {
      for (const key of i.keys) unknown.push({ path: at(String(i.path[0] ?? ""), key), message: i.message });
    } else {
      const field = i.path.length === 0 ? "" : String(i.path[0]);
      byField.set(field, [...(byField.get(field) ?? []), i]);
    }
  }
  const out: Issue[] = [
    ...(byField.get("") ?? []).map((i) => ({ path: "", message: i.message })),
    ...unknown.map((u) => {
      if (!Object.hasOwn(UNSUPPORTED_SEARCH_PARAMETERS, u.path)) return u;
      return { path: u.path, message: `is not supported: ${UNSUPPORTED_SEARCH_PARAMETERS[u.path]}` };
    }),
  ];
  for (const field of fields) {
    const issues = byField.get(field);
    if (issues === undefined) continue;
    const alone = issues.find((i) => i.code === "custom" && i.params?.alone === true);
    const every = issues.filter((i) => i.code === "custom" && i.params?.every === true);
    const chosen = alone !== undefined ? [alone] : every.length > 0 ? every : issues.slice(0, 1);
    for (const i of chosen) out.push(inFilterElement(i) ?? { path: pathOf(i.path), message: i.message });
  }
  return out;
}

/** `["sort", 0]` → `sort[0]`. */
const pathOf = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((p, k) => at(p, typeof k === "number" ? k : String(k)), "");

/**
 * An array filter with an element that is not a string or an array of strings: the union of its two
 * forms fails as a whole, and the problem is that element's (`filter[2]`).
 */
function inFilterElement(i: z.core.$ZodIssue): Issue | undefined {
  if (i.code !== "invalid_union") return undefined;
  const arrayForm = i.errors.find(
    (branch) => !branch.some((b) => b.code === "invalid_type" && b.path.length === 0),
  );
  const first = arrayForm?.[0];
  return first === undefined
    ? undefined
    : { path: pathOf([...i.path, ...first.path]), message: first.message };
}
