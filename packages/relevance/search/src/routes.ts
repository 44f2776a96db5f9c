/**
 * The search proxy's routes as @hono/zod-openapi route configs, with the schemas of their bodies
 * and answers (the request body: search-request-schema.ts). The app serves them (app.ts) and the
 * OpenAPI document is generated from them (openapi-document.ts). Plain objects, so the Worker gets
 * the schemas without the document generator (docs/search.md).
 */
import type { RouteConfig } from "@hono/zod-openapi";
import { describeType } from "@relevance/core";
import { INDEX_NAME, INDEX_NAME_RULE } from "@relevance/settings";
import { ErrorSchema, errorAnswer, json } from "@shared/http";
import * as z from "zod";
import { eventsRoute } from "./events.ts";
import { FacetSearchRequestSchema, FacetSearchResponseSchema } from "./facet-search-schema.ts";
import {
  MAX_BODY_BYTES,
  MAX_MULTI_SEARCH_QUERIES,
  MAX_QUERY_PARAMS,
  MAX_QUERY_STRING_CHARS,
} from "./limits.ts";
import { SearchRequestSchema } from "./search-request-schema.ts";

/** The field rules of the multi-search body, shared by its schema and the check of its envelope. */
const queriesOf = <T extends z.ZodType>(query: T) =>
  z
    .array(query, { error: (issue) => `must be an array, got ${describeType(issue.input)}` })
    .refine((v) => v.length <= MAX_MULTI_SEARCH_QUERIES, {
      error: (issue) =>
        `must have at most ${MAX_MULTI_SEARCH_QUERIES} items, got ${(issue.input as unknown[]).length}`,
      when: (payload) => Array.isArray(payload.value),
    })
    .meta({ maxItems: MAX_MULTI_SEARCH_QUERIES });
/** One query of a multi-search: a search body with the index (or alias) it runs on. */
export const MultiSearchQuerySchema = SearchRequestSchema.extend({
  indexUid: z
    .string({ error: (issue) => `is required, a string, got ${describeType(issue.input)}` })
    .meta({ description: "The index or alias of this query." }),
});
const bodyObject = {
  error: (issue: { code?: string; input?: unknown }) =>
    issue.code === "unrecognized_keys"
      ? "is not a known field"
      : `must be a JSON object, got ${describeType(issue.input)}`,
};
export const MultiSearchRequestSchema = z.strictObject(
  { queries: queriesOf(MultiSearchQuerySchema) },
  bodyObject,
);
/** The multi-search body with its queries not yet looked at (each is checked as a search, by number). */
export const MultiSearchEnvelopeSchema = z.strictObject({ queries: queriesOf(z.unknown()) }, bodyObject);

/** Meilisearch's search metadata (answered under `Meili-Include-Metadata: true`). */
export const SearchMetadataSchema = z
  .object({
    queryUid: z.string().meta({ description: "This search's uid (a UUID v7); send it back in events." }),
    indexUid: z.string().meta({ description: "The index or alias the request named." }),
    primaryKey: z.string(),
  })
  .meta({
    id: "SearchMetadata",
    description:
      "Present with the header Meili-Include-Metadata: true, and on every answer with a relevanceScore (header or not).",
  });

export const SearchResponseSchema = z
  .object({
    hits: z.array(z.record(z.string(), z.unknown())),
    query: z.string(),
    limit: z.number().int().optional(),
    offset: z.number().int().optional(),
    estimatedTotalHits: z.number().int().optional(),
    page: z.number().int().optional(),
    hitsPerPage: z.number().int().optional(),
    totalHits: z.number().int().optional(),
    totalPages: z.number().int().optional(),
    facetDistribution: z.record(z.string(), z.unknown()).optional(),
    facetStats: z.record(z.string(), z.unknown()).optional(),
    processingTimeMs: z.number().int(),
    relevanceScore: z.number().min(0).max(10).optional().meta({
      description:
        "How useful the result set is predicted to be; present only when asked for and a model serves.",
    }),
    metadata: SearchMetadataSchema.optional(),
  })
  .meta({
    id: "SearchResponse",
    description:
      "With offset/limit: limit, offset, estimatedTotalHits; with page/hitsPerPage: page, hitsPerPage, totalHits, totalPages.",
  });

const tooManyRequests = {
  description:
    "Too many failed authentications from this client address (or with this credential prefix); Retry-After says when to retry.",
  headers: z.object({
    "Retry-After": z.string().meta({ description: "Seconds until the client may try again." }),
  }),
  content: json(ErrorSchema),
};
const SEARCH_ERRORS = {
  400: errorAnswer("The body is not JSON."),
  401: errorAnswer(
    "Missing or wrong API key (x-api-key, or Authorization: Bearer <key> as Meilisearch clients send it).",
  ),
  403: errorAnswer(
    "The key lacks the search action or the index (code invalid_api_key), or the request's Origin is not in the account's CORS origins (origin_not_allowed).",
  ),
  404: errorAnswer("No such index or alias in this account."),
  405: {
    description: "The path exists, but not for this method.",
    headers: z.object({ Allow: z.string().meta({ description: "The methods the path serves." }) }),
    content: json(ErrorSchema),
  },
  413: errorAnswer(`Body larger than ${MAX_BODY_BYTES} bytes.`),
  422: errorAnswer(
    "A field is invalid or over its limit; details name it (Meilisearch's code, type and link too).",
  ),
  429: tooManyRequests,
  502: errorAnswer("The search backend failed."),
  503: errorAnswer("The index settings could not be read right now."),
  504: errorAnswer("The search backend did not answer in time."),
};
/** An account's API key, as x-api-key or as Authorization: Bearer (what Meilisearch clients send). */
const KEYED: { tags: string[]; security: Record<string, string[]>[] } = {
  tags: ["search"],
  security: [{ apiKey: [] }, { bearerApiKey: [] }],
};

export const searchRoute = {
  method: "post",
  path: "/api/v1/indexes/{index}/search",
  ...KEYED,
  summary: "Search an index (or an alias), optionally with the result set's relevanceScore.",
  request: {
    params: z.object({
      index: z.string().meta({
        description: `Index or alias name: ${INDEX_NAME_RULE}.`,
        pattern: INDEX_NAME.source,
      }),
    }),
    body: { required: true, content: json(SearchRequestSchema) },
  },
  responses: {
    200: {
      description:
        "Hits; relevanceScore only when asked for and the index has a model that loads. The header x-relevance-model names the model.",
      headers: z.object({
        "x-relevance-model": z
          .string()
          .optional()
          .meta({ description: "The modelId that produced relevanceScore." }),
      }),
      content: json(SearchResponseSchema),
    },
    ...SEARCH_ERRORS,
  },
} satisfies RouteConfig;

const indexParam = z.object({
  index: z.string().meta({
    description: `Index or alias name: ${INDEX_NAME_RULE}.`,
    pattern: INDEX_NAME.source,
  }),
});

/** A GET search's parameters: those of the POST body, as text; lists comma-separated. */
const listParam = (what: string) =>
  z
    .string()
    .optional()
    .meta({ description: `${what}, comma-separated.` });
const SearchGetQuerySchema = z.object({
  q: z.string().optional(),
  offset: z.string().optional().meta({ description: "An integer." }),
  limit: z.string().optional().meta({ description: "An integer; 0 answers the totals and facets only." }),
  page: z.string().optional().meta({ description: "An integer." }),
  hitsPerPage: z.string().optional().meta({ description: "An integer." }),
  filter: z.string().optional().meta({ description: "One filter expression." }),
  sort: listParam("`attribute:asc|desc` criteria"),
  facets: listParam("Attributes"),
  attributesToRetrieve: listParam("Attributes"),
  attributesToHighlight: listParam("Attributes"),
  attributesToCrop: listParam("Attributes"),
  highlightPreTag: z.string().optional(),
  highlightPostTag: z.string().optional(),
  cropMarker: z.string().optional(),
  cropLength: z.string().optional().meta({ description: "An integer." }),
  showRankingScore: z.enum(["true", "false"]).optional(),
  matchingStrategy: z.enum(["last", "all", "frequency"]).optional(),
  relevanceScore: z.enum(["true", "false"]).optional().meta({ description: "true opts in to scoring." }),
});

export const searchGetRoute = {
  method: "get",
  path: "/api/v1/indexes/{index}/search",
  ...KEYED,
  summary:
    "Search with the parameters in the query string (Meilisearch's searchGet); the same bounds and answer as the POST search.",
  request: { params: indexParam, query: SearchGetQuerySchema },
  responses: {
    200: searchRoute.responses[200],
    ...SEARCH_ERRORS,
    422: errorAnswer(
      `A parameter is invalid or over its limit, an unknown parameter, more than ${MAX_QUERY_PARAMS} parameters or a query string over ${MAX_QUERY_STRING_CHARS} characters; details name it.`,
    ),
  },
} satisfies RouteConfig;

export const facetSearchRoute = {
  method: "post",
  path: "/api/v1/indexes/{index}/facet-search",
  ...KEYED,
  summary:
    "Search the values of a filterable attribute (Meilisearch's facet search), counted over the documents q and filter select.",
  request: { params: indexParam, body: { required: true, content: json(FacetSearchRequestSchema) } },
  responses: {
    200: {
      description: "The matching facet values and their counts.",
      content: json(FacetSearchResponseSchema),
    },
    ...SEARCH_ERRORS,
  },
} satisfies RouteConfig;

export const multiSearchRoute = {
  method: "post",
  path: "/api/v1/multi-search",
  ...KEYED,
  summary: `Several searches in one request (at most ${MAX_MULTI_SEARCH_QUERIES}); each result keeps its own relevanceScore when asked.`,
  request: { body: { required: true, content: json(MultiSearchRequestSchema) } },
  responses: {
    200: {
      description: "One result per query, in order, each with its indexUid.",
      content: json(z.object({ results: z.array(SearchResponseSchema.extend({ indexUid: z.string() })) })),
    },
    ...SEARCH_ERRORS,
  },
} satisfies RouteConfig;

export const healthRoute = {
  method: "get",
  path: "/api/v1/health",
  tags: ["search"],
  security: [],
  summary: "Liveness, as Meilisearch answers it (no authentication).",
  responses: {
    200: {
      description: '{"status": "available"}',
      content: json(z.object({ status: z.literal("available") })),
    },
  },
} satisfies RouteConfig;

export const versionRoute = {
  method: "get",
  path: "/api/v1/version",
  ...KEYED,
  summary: "The API's version, shaped like Meilisearch's answer (a key with the version action).",
  responses: {
    200: {
      description: "{commitSha, commitDate, pkgVersion}",
      content: json(z.object({ commitSha: z.string(), commitDate: z.string(), pkgVersion: z.string() })),
    },
    401: errorAnswer("Missing or wrong API key."),
    403: errorAnswer("The key lacks the version action (code invalid_api_key)."),
    429: tooManyRequests,
  },
} satisfies RouteConfig;

/** Every route of the search proxy. */
export const SEARCH_ROUTES: readonly RouteConfig[] = [
  multiSearchRoute,
  healthRoute,
  versionRoute,
  searchRoute,
  searchGetRoute,
  facetSearchRoute,
  eventsRoute,
];
