/**
 * The body of a facet search (`POST /api/v1/indexes/{index}/facet-search`), Meilisearch's fields:
 * `facetName` and `facetQuery`, with `q`, `filter` and `matchingStrategy` selecting the documents
 * whose values are counted. Checked like a search body: every field, each with its first problem.
 */
import { describeType, fail, ok, type Result } from "@relevance/core";
import * as z from "zod";
import { MAX_ATTRIBUTE_CHARS, MAX_FACET_QUERY_CHARS, MAX_QUERY_CHARS } from "./limits.ts";
import type { FacetSearchQuery } from "./ports.ts";
import { searchIssues } from "./request.ts";
import {
  boolean,
  filterSchema,
  matchingStrategySchema,
  SearchRequestSchema,
  text,
} from "./search-request-schema.ts";

/**
 * The search fields that do not bear on facet values (paging, highlighting, sort, facets...):
 * Meilisearch ignores them in a facet search, and instant-meilisearch sends its search's along. They
 * are checked with their search bounds, then ignored; anything else is refused by name.
 */
const {
  q: _q,
  filter: _f,
  matchingStrategy: _m,
  relevanceScore: _r,
  ...IGNORED_SEARCH_FIELDS
} = SearchRequestSchema.shape;

const facetName = z
  .string({
    error: (issue) =>
      issue.input === undefined ? "is required" : `must be a string, got ${describeType(issue.input)}`,
  })
  .refine((v) => v !== "" && v.length <= MAX_ATTRIBUTE_CHARS, {
    error: (issue) =>
      `must be from 1 to ${MAX_ATTRIBUTE_CHARS} characters, got ${(issue.input as string).length}`,
  })
  .meta({
    minLength: 1,
    maxLength: MAX_ATTRIBUTE_CHARS,
    description: "A filterable attribute: the facet whose values are searched.",
  });

export const FacetSearchRequestSchema = z
  .strictObject(
    {
      facetName,
      facetQuery: text(MAX_FACET_QUERY_CHARS).meta({
        description:
          "One word matched against the facet's values, as a prefix and with typos (absent: every value).",
      }),
      q: text(MAX_QUERY_CHARS).meta({ description: "Selects the documents whose values are counted." }),
      filter: filterSchema,
      matchingStrategy: matchingStrategySchema,
      exhaustiveFacetCount: boolean.nullish().meta({
        description: "Passed on to Meilisearch; the embedded engine's counts are always exhaustive.",
      }),
      ...IGNORED_SEARCH_FIELDS,
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? "is not a known field"
          : `must be a JSON object, got ${describeType(issue.input)}`,
    },
  )
  .meta({
    id: "FacetSearchRequest",
    description:
      "Meilisearch's facet search parameters (docs/search.md). The other search parameters are checked and ignored, as Meilisearch ignores them here.",
  });

/** The fields, in the order their problems are listed. */
export const FACET_SEARCH_FIELDS = Object.keys(FacetSearchRequestSchema.shape);

export const FacetSearchResponseSchema = z
  .object({
    facetHits: z.array(z.object({ value: z.string(), count: z.number().int() })),
    facetQuery: z.string().nullable(),
    processingTimeMs: z.number().int(),
  })
  .meta({
    id: "FacetSearchResponse",
    description: "The matching facet values with their document counts, alphabetically, at most 100.",
  });

/** A facet search body, checked; null fields read as absent, as Meilisearch reads them. */
export function parseFacetSearchRequest(input: unknown): Result<FacetSearchQuery> {
  const parsed = FacetSearchRequestSchema.safeParse(input);
  if (!parsed.success) return fail(searchIssues(parsed.error, FACET_SEARCH_FIELDS));
  const { facetName, facetQuery, q, filter, matchingStrategy, exhaustiveFacetCount } = parsed.data;
  return ok({
    facetName,
    q: q ?? "",
    ...(facetQuery === undefined || facetQuery === null ? {} : { facetQuery }),
    ...(filter === undefined || filter === null ? {} : { filter }),
    ...(matchingStrategy === undefined ? {} : { matchingStrategy }),
    ...(exhaustiveFacetCount === undefined || exhaustiveFacetCount === null ? {} : { exhaustiveFacetCount }),
  });
}
