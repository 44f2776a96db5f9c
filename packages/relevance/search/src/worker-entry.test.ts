// The Worker's entry turns zod's compiled parsers off: workerd refuses new Function, and the entry
// does not leave that to zod's own detection of the Workers runtime.

import { describe, expect, it } from "vitest";
import * as z from "zod";
import { parseSearchRequest } from "./request.ts";
import { createSearchApp } from "./worker-entry.ts";

describe("@relevance/search/worker", () => {
  it("sets zod jitless and still validates a search body", async () => {
    expect(z.config().jitless).toBe(true);
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
    expect((await app.request("/api/v1/health")).status).toBe(200);
    expect(parseSearchRequest({ q: "red", limit: -1, sort: ["price"] })).toEqual({
      ok: false,
      errors: [
        { path: "limit", message: "must be an integer from 0 to 1000, got -1" },
        { path: "sort[0]", message: "must be `attribute:asc` or `attribute:desc`, got `price`" },
      ],
    });
  });
});
