import { describe, expect, it } from "vitest";
import { adminHeaders, makeHarness } from "./test-support/harness.ts";

describe("GET /api/v1/openapi.json", () => {
  it("is OpenAPI 3.1 JSON without authentication, listing every route with its status codes", async () => {
    const h = makeHarness();
    const res = await h.call("GET", "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const doc = JSON.parse(res.text);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, item]) =>
        Object.keys(item)
          .filter((k) => k !== "parameters")
          .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        "GET /api/v1/openapi.json",
        "POST /api/v1/admin/accounts",
        "GET /api/v1/admin/accounts/{id}/indexes/{index}/relevance-trigger-config",
        "PUT /api/v1/admin/accounts/{id}/indexes/{index}/relevance-trigger-config",
        "GET /api/v1/indexes",
        "POST /api/v1/indexes",
        "GET /api/v1/indexes/{name}",
        "DELETE /api/v1/indexes/{name}",
        "GET /api/v1/indexes/{name}/documents",
        "POST /api/v1/indexes/{name}/documents",
        "GET /api/v1/indexes/{name}/settings",
        "PATCH /api/v1/indexes/{name}/settings",
        "PUT /api/v1/aliases/{alias}",
      ].sort(),
    );
    const put = doc.paths["/api/v1/admin/accounts/{id}/indexes/{index}/relevance-trigger-config"].put;
    expect(Object.keys(put.responses).sort()).toEqual(["200", "401", "404", "409", "413", "422", "429"]);
    // Every $ref resolves.
    for (const [, kind, name] of res.text.matchAll(/"#\/components\/(schemas|responses)\/([^"]+)"/g)) {
      expect(doc.components[kind as string], name).toHaveProperty(name as string);
    }
  });

  it("every documented route is served (an authenticated request never answers the route-level 404)", async () => {
    const h = makeHarness();
    const { apiKey } = await h.account();
    const doc = (await h.call("GET", "/api/v1/openapi.json")).body;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item).filter((k) => k !== "parameters")) {
        const concrete = path.replace(/\{[^}]+\}/g, "x");
        const headers = path.startsWith("/api/v1/admin/") ? adminHeaders : { "x-api-key": apiKey };
        const res = await h.call(method.toUpperCase(), concrete, undefined, headers);
        expect(res.status, `${method} ${path}`).not.toBe(401);
        expect(res.body?.error?.message, `${method} ${path}`).not.toBe("no such route");
      }
    }
    const unknown = await h.call("GET", "/api/v1/indexes/x/nothing", undefined, { "x-api-key": apiKey });
    expect(unknown.body.error.message).toBe("no such route");
  });
});
