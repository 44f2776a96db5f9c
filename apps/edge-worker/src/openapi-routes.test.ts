// Every route of the search app (what the Worker serves) is in the search proxy's OpenAPI paths,
// and every path listed there is served.

import { createSearchApp, SEARCH_OPENAPI_PATHS } from "@relevance/search";
import { undocumentedRoutes } from "@shared/http";
import { describe, expect, it } from "vitest";

describe("the Worker's OpenAPI paths", () => {
  it("list every route of the search app, and nothing else", () => {
    const app = createSearchApp({
      kv: {
        get: async () => null,
        put: async () => {},
        delete: async () => {},
        list: async () => [],
      } as never,
      retrieval: {
        search: async () => ({ hits: [], estimatedTotalHits: 0 }),
        facetSearch: async () => ({ facetHits: [] }),
      },
      log: { info() {}, warn() {}, error() {} },
    });
    expect(undocumentedRoutes(app, [{ paths: SEARCH_OPENAPI_PATHS as never }])).toEqual({
      undocumented: [],
      unserved: [],
    });
  });
});
