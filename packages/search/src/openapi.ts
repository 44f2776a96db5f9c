// The search proxy's part of the OpenAPI document: its paths and schemas, with the bounds of
// limits.ts. The admin package's document includes them where the search proxy is served beside
// the APIs (npm start); the Worker serves exactly these paths.

import {
  MAX_BODY_BYTES,
  MAX_FILTER_CHARS,
  MAX_FILTER_DEPTH,
  MAX_LIMIT,
  MAX_OFFSET,
  MAX_QUERY_CHARS,
  MAX_QUERY_WORDS,
} from "./limits.ts";
import { DEFAULT_LIMIT } from "./request.ts";

const json = (schema: object) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: json(ref("Error")) });

/** Paths of the search proxy, as OpenAPI path items. */
export const SEARCH_OPENAPI_PATHS = {
  "/api/v1/indexes/{index}/search": {
    post: {
      summary: "Search an index (or an alias), optionally with the result set's relevanceScore.",
      tags: ["search"],
      security: [{ apiKey: [] }],
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
        "400": error("The body is not JSON."),
        "401": error("Missing or wrong API key."),
        "404": error("No such index or alias in this account."),
        "405": { $ref: "#/components/responses/MethodNotAllowed" },
        "413": error(`Body larger than ${MAX_BODY_BYTES} bytes.`),
        "422": error("A field is invalid or over its limit; details name it."),
        "429": { $ref: "#/components/responses/TooManyRequests" },
        "502": error("The search backend failed."),
        "503": error("The index settings could not be read right now."),
        "504": error("The search backend did not answer in time."),
      },
    },
  },
} as const;

/** Schemas the search paths refer to. */
export const SEARCH_OPENAPI_SCHEMAS = {
  SearchRequest: {
    type: "object",
    additionalProperties: false,
    required: ["q"],
    properties: {
      q: {
        type: "string",
        maxLength: MAX_QUERY_CHARS,
        description: `The query; retrieval uses its first ${MAX_QUERY_WORDS} words (as Meilisearch), the relevance features all of it.`,
      },
      limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
      offset: { type: "integer", minimum: 0, maximum: MAX_OFFSET, default: 0 },
      filter: {
        type: "string",
        maxLength: MAX_FILTER_CHARS,
        description: `Meilisearch filter syntax; at most ${MAX_FILTER_DEPTH} levels of parentheses and NOT.`,
      },
      relevanceScore: { type: "boolean", default: false, description: "true opts in to scoring." },
    },
  },
  SearchResponse: {
    type: "object",
    required: ["hits", "query", "limit", "offset", "estimatedTotalHits", "processingTimeMs"],
    properties: {
      hits: { type: "array", items: { type: "object" } },
      query: { type: "string" },
      limit: { type: "integer" },
      offset: { type: "integer" },
      estimatedTotalHits: { type: "integer" },
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
