import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { undocumentedRoutes } from "./openapi-routes.ts";

describe("undocumentedRoutes", () => {
  const app = new Hono();
  app.use("*", async (_c, next) => next());
  app.post("/api/v1/indexes/:index/search", (c) => c.json({}));
  app.get("/api/v1/indexes/:name", (c) => c.json({}));

  it("matches routes and documented operations whatever the parameter names", () => {
    const doc = {
      paths: {
        "/api/v1/indexes/{index}/search": { post: {} },
        "/api/v1/indexes/{uid}": { get: {}, parameters: [] },
      },
    };
    expect(undocumentedRoutes(app, [doc])).toEqual({ undocumented: [], unserved: [] });
  });

  it("names a route no document lists, and an operation no route serves", () => {
    const doc = {
      paths: { "/api/v1/indexes/{index}/search": { post: {} }, "/api/v1/indexes/{name}": { delete: {} } },
    };
    expect(undocumentedRoutes(app, [doc])).toEqual({
      undocumented: ["GET /api/v1/indexes/{}"],
      unserved: ["DELETE /api/v1/indexes/{}"],
    });
  });
});
