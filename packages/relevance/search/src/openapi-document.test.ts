// The search proxy's OpenAPI document, generated from its route configs, is a valid OpenAPI 3.1
// document, lists every route the app answers (and nothing it does not serve), and carries the
// bounds of limits.ts in the request body's schema.
import { undocumentedRoutes } from "@shared/http";
import { openApi31Problems } from "@shared/test-support/openapi-31";
import { describe, expect, it } from "vitest";
import { createSearchApp } from "./app.ts";
import { MAX_FILTER_ITEMS, MAX_LIMIT, MAX_MULTI_SEARCH_QUERIES, MAX_QUERY_CHARS } from "./limits.ts";
import { SEARCH_OPENAPI_PATHS, SEARCH_OPENAPI_SCHEMAS, searchOpenApiDocument } from "./openapi-document.ts";

const app = createSearchApp({
  kv: { get: async () => null, put: async () => {}, delete: async () => {}, list: async () => [] } as never,
  retrieval: {
    search: async () => ({ hits: [], estimatedTotalHits: 0 }),
    facetSearch: async () => ({ facetHits: [] }),
  },
  log: { info() {}, warn() {}, error() {} },
});

type Schema = { properties: Record<string, Record<string, unknown>>; additionalProperties?: unknown };

describe("the search proxy's OpenAPI document", () => {
  const doc = searchOpenApiDocument() as unknown as {
    openapi: string;
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components?: { schemas?: Record<string, unknown> };
  };

  it("is valid OpenAPI 3.1", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(openApi31Problems(doc)).toEqual([]);
  });

  it("lists every route the app answers, and the app answers every route listed", () => {
    expect(undocumentedRoutes(app, [doc])).toEqual({ undocumented: [], unserved: [] });
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/api/v1/events",
      "/api/v1/health",
      "/api/v1/indexes/{index}/facet-search",
      "/api/v1/indexes/{index}/search",
      "/api/v1/multi-search",
      "/api/v1/version",
    ]);
  });

  it("describes the search body with the bounds it is checked against, and refuses unknown fields", () => {
    const body = doc.components?.schemas?.SearchRequest as Schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.q?.maxLength).toBe(MAX_QUERY_CHARS);
    expect(body.properties.limit).toMatchObject({
      type: "integer",
      minimum: 0,
      maximum: MAX_LIMIT,
      default: 20,
    });
    expect(JSON.stringify(body.properties.filter)).toContain(`"maxItems":${MAX_FILTER_ITEMS}`);
    expect(Object.keys(body.properties)).toHaveLength(20);
    const multi = doc.paths["/api/v1/multi-search"]?.post?.requestBody as {
      content: { "application/json": { schema: Schema } };
    };
    const queries = multi.content["application/json"].schema.properties.queries as {
      maxItems: number;
      items: { required: string[] };
    };
    expect(queries.maxItems).toBe(MAX_MULTI_SEARCH_QUERIES);
    expect(queries.items.required).toContain("indexUid");
  });

  it("gives the customer API's document the same paths and the schemas they refer to", () => {
    expect(SEARCH_OPENAPI_PATHS).toEqual(doc.paths);
    expect(Object.keys(SEARCH_OPENAPI_SCHEMAS).sort()).toEqual([
      "Error",
      "EventRequest",
      "FacetSearchRequest",
      "FacetSearchResponse",
      "Issue",
      "SearchMetadata",
      "SearchRequest",
      "SearchResponse",
    ]);
  });
});
