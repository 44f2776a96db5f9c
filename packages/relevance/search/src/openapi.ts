// The search proxy's part of the OpenAPI document: its paths and schemas, with the bounds of
// limits.ts. The admin package's document includes them where the search proxy is served beside
// the APIs (npm start); the Worker serves exactly these paths.

import {
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTE_LIST,
  MAX_BODY_BYTES,
  MAX_CROP_LENGTH,
  MAX_FACETS,
  MAX_FILTER_CHARS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_ITEMS,
  MAX_HITS_PER_PAGE,
  MAX_LIMIT,
  MAX_MULTI_SEARCH_QUERIES,
  MAX_OFFSET,
  MAX_PAGE,
  MAX_QUERY_CHARS,
  MAX_QUERY_WORDS,
  MAX_SORT,
  MAX_TAG_CHARS,
} from "./limits.ts";
import { DEFAULT_LIMIT } from "./request.ts";

const json = (schema: object) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: json(ref("Error")) });

const searchErrors = {
  "400": error("The body is not JSON."),
  "401": error(
    "Missing or wrong API key (x-api-key, or Authorization: Bearer <key> as Meilisearch clients send it).",
  ),
  "404": error("No such index or alias in this account."),
  "405": { $ref: "#/components/responses/MethodNotAllowed" },
  "413": error(`Body larger than ${MAX_BODY_BYTES} bytes.`),
  "422": error(
    "A field is invalid or over its limit; details name it (Meilisearch's code, type and link too).",
  ),
  "429": { $ref: "#/components/responses/TooManyRequests" },
  "502": error("The search backend failed."),
  "503": error("The index settings could not be read right now."),
  "504": error("The search backend did not answer in time."),
};
const keyed = { tags: ["search"], security: [{ apiKey: [] }, { bearerApiKey: [] }] };

/** Paths of the search proxy, as OpenAPI path items. */
export const SEARCH_OPENAPI_PATHS = {
  "/api/v1/multi-search": {
    post: {
      ...keyed,
      summary: `Several searches in one request (at most ${MAX_MULTI_SEARCH_QUERIES}); each result keeps its own relevanceScore when asked.`,
      requestBody: {
        required: true,
        content: json({
          type: "object",
          required: ["queries"],
          properties: {
            queries: {
              type: "array",
              maxItems: MAX_MULTI_SEARCH_QUERIES,
              items: {
                allOf: [ref("SearchRequest")],
                properties: {
                  indexUid: { type: "string", description: "The index or alias of this query." },
                },
                required: ["indexUid"],
              },
            },
          },
        }),
      },
      responses: {
        "200": {
          description: "One result per query, in order, each with its indexUid.",
          content: json({
            type: "object",
            properties: { results: { type: "array", items: ref("SearchResponse") } },
          }),
        },
        ...searchErrors,
      },
    },
  },
  "/api/v1/health": {
    get: {
      tags: ["search"],
      security: [],
      summary: "Liveness, as Meilisearch answers it (no authentication).",
      responses: { "200": { description: '{"status": "available"}', content: json({ type: "object" }) } },
    },
  },
  "/api/v1/version": {
    get: {
      ...keyed,
      summary: "The API's version, shaped like Meilisearch's answer (any valid key).",
      responses: {
        "200": { description: "{commitSha, commitDate, pkgVersion}", content: json({ type: "object" }) },
        "401": error("Missing or wrong API key."),
        "429": { $ref: "#/components/responses/TooManyRequests" },
      },
    },
  },
  "/api/v1/indexes/{index}/search": {
    post: {
      summary: "Search an index (or an alias), optionally with the result set's relevanceScore.",
      ...keyed,
      parameters: [
        {
          name: "index",
          in: "path",
          required: true,
          description: "Index or alias name: 1 to 64 characters of A-Z, a-z, 0-9, _ and -.",
          schema: { type: "string" },
        },
      ],
      requestBody: { required: true, content: json(ref("SearchRequest")) },
      responses: {
        "200": {
          description:
            "Hits; relevanceScore only when asked for and the index has a model that loads. The header x-relevance-model names the model.",
          headers: {
            "x-relevance-model": {
              description: "The modelId that produced relevanceScore.",
              schema: { type: "string" },
            },
          },
          content: json(ref("SearchResponse")),
        },
        ...searchErrors,
      },
    },
  },
} as const;

/** Schemas the search paths refer to. */
export const SEARCH_OPENAPI_SCHEMAS = {
  SearchRequest: {
    type: "object",
    additionalProperties: false,
    description:
      "Meilisearch's search parameters (docs/search.md lists what each backend does with each), plus relevanceScore.",
    properties: {
      q: {
        type: "string",
        maxLength: MAX_QUERY_CHARS,
        description: `The query (absent: every document); retrieval uses its first ${MAX_QUERY_WORDS} words (as Meilisearch), the relevance features all of it.`,
      },
      limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
      offset: { type: "integer", minimum: 0, maximum: MAX_OFFSET, default: 0 },
      page: {
        type: "integer",
        minimum: 1,
        maximum: MAX_PAGE,
        description: "Exhaustive pagination: answers totalHits and totalPages.",
      },
      hitsPerPage: { type: "integer", minimum: 0, maximum: MAX_HITS_PER_PAGE },
      filter: {
        oneOf: [
          { type: "string", maxLength: MAX_FILTER_CHARS },
          {
            type: "array",
            maxItems: MAX_FILTER_ITEMS,
            items: { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
          },
        ],
        description: `Meilisearch filter syntax; an array is ANDed, an inner array ORed; at most ${MAX_FILTER_CHARS} characters and ${MAX_FILTER_DEPTH} levels of parentheses and NOT in all.`,
      },
      sort: { type: "array", maxItems: MAX_SORT, items: { type: "string", pattern: "^.+:(asc|desc)$" } },
      facets: {
        type: "array",
        maxItems: MAX_FACETS,
        items: { type: "string", maxLength: MAX_ATTRIBUTE_CHARS },
      },
      attributesToRetrieve: {
        type: "array",
        maxItems: MAX_ATTRIBUTE_LIST,
        items: { type: "string", maxLength: MAX_ATTRIBUTE_CHARS },
      },
      attributesToHighlight: {
        type: "array",
        maxItems: MAX_ATTRIBUTE_LIST,
        items: { type: "string", maxLength: MAX_ATTRIBUTE_CHARS },
      },
      highlightPreTag: { type: "string", maxLength: MAX_TAG_CHARS },
      highlightPostTag: { type: "string", maxLength: MAX_TAG_CHARS },
      attributesToCrop: {
        type: "array",
        maxItems: MAX_ATTRIBUTE_LIST,
        items: { type: "string", maxLength: MAX_ATTRIBUTE_CHARS },
      },
      cropLength: { type: "integer", minimum: 1, maximum: MAX_CROP_LENGTH },
      cropMarker: { type: "string", maxLength: MAX_TAG_CHARS },
      showRankingScore: { type: "boolean" },
      matchingStrategy: { enum: ["last", "all", "frequency"], default: "last" },
      relevanceScore: {
        type: "boolean",
        default: false,
        description: "true opts in to scoring (our extension).",
      },
    },
  },
  SearchResponse: {
    type: "object",
    required: ["hits", "query", "processingTimeMs"],
    description:
      "With offset/limit: limit, offset, estimatedTotalHits; with page/hitsPerPage: page, hitsPerPage, totalHits, totalPages.",
    properties: {
      hits: { type: "array", items: { type: "object" } },
      query: { type: "string" },
      limit: { type: "integer" },
      offset: { type: "integer" },
      estimatedTotalHits: { type: "integer" },
      page: { type: "integer" },
      hitsPerPage: { type: "integer" },
      totalHits: { type: "integer" },
      totalPages: { type: "integer" },
      facetDistribution: { type: "object" },
      facetStats: { type: "object" },
      processingTimeMs: { type: "integer" },
      relevanceScore: {
        type: "number",
        minimum: 0,
        maximum: 10,
        description:
          "How useful the result set is predicted to be; present only when asked for and a model serves.",
      },
    },
  },
} as const;
