import {
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTES,
  MAX_STOP_WORDS,
  MAX_SYNONYM_KEYS,
  MAX_SYNONYM_WORDS,
  MAX_WORD_CHARS,
} from "@relevance/settings";
import { type LimitRow, undocumentedRoutes } from "@shared/http";
import { describe, expect, it } from "vitest";
import { SETTING_ROUTES } from "./customer/setting-routes.ts";
import { ADMIN_LIMITS, MAX_DOCUMENT_FIELDS, MAX_REJECTED_LISTED } from "./limits.ts";
import { buildOpenApiDocument, openApiDocument } from "./openapi.ts";
import { adminHeaders, makeHarness } from "./test-support/harness.ts";

/** Each supported setting's GET, its update (PUT, or PATCH for typo-tolerance) and DELETE. */
const SETTING_ROUTE_LIST = Object.entries(SETTING_ROUTES).flatMap(([setting, { method }]) =>
  ["GET", method.toUpperCase(), "DELETE"].map((m) => `${m} /api/v1/indexes/{name}/settings/${setting}`),
);

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
        "GET /api/v1/admin/accounts/{id}/indexes/{index}/quality",
        "GET /api/v1/admin/accounts/{id}/indexes/{index}/relevance-recording-config",
        "PUT /api/v1/admin/accounts/{id}/indexes/{index}/relevance-recording-config",
        "GET /api/v1/admin/accounts/{id}/indexes/{index}/relevance-shadow-config",
        "PUT /api/v1/admin/accounts/{id}/indexes/{index}/relevance-shadow-config",
        "GET /api/v1/admin/accounts/{id}/indexes/{index}/relevance-canary-config",
        "PUT /api/v1/admin/accounts/{id}/indexes/{index}/relevance-canary-config",
        "GET /api/v1/admin/accounts/{id}/indexes/{index}/training-rows",
        "GET /api/v1/indexes",
        "POST /api/v1/indexes",
        "GET /api/v1/indexes/{name}",
        "DELETE /api/v1/indexes/{name}",
        "GET /api/v1/indexes/{name}/documents",
        "GET /api/v1/indexes/{name}/stats",
        "POST /api/v1/indexes/{name}/documents",
        "GET /api/v1/indexes/{name}/settings",
        "PATCH /api/v1/indexes/{name}/settings",
        "PUT /api/v1/aliases/{alias}",
        "GET /api/v1/tasks/{uid}",
        "GET /api/v1/keys",
        "POST /api/v1/keys",
        "GET /api/v1/keys/{key}",
        "PATCH /api/v1/keys/{key}",
        "DELETE /api/v1/keys/{key}",
        "GET /api/v1/account",
        "PATCH /api/v1/account",
        "GET /api/v1/admin/accounts/{id}",
        "PATCH /api/v1/admin/accounts/{id}",
        "GET /api/v1/admin/accounts/{id}/keys",
        "POST /api/v1/admin/accounts/{id}/keys",
        "GET /api/v1/admin/accounts/{id}/keys/{key}",
        "PATCH /api/v1/admin/accounts/{id}/keys/{key}",
        "DELETE /api/v1/admin/accounts/{id}/keys/{key}",
        "GET /api/v1/tasks",
        "GET /api/v1/stats",
        "PUT /api/v1/indexes/{name}/documents",
        "DELETE /api/v1/indexes/{name}/documents",
        "POST /api/v1/indexes/{name}/documents/fetch",
        "POST /api/v1/indexes/{name}/documents/delete-batch",
        "POST /api/v1/indexes/{name}/documents/delete",
        "GET /api/v1/indexes/{name}/documents/{id}",
        "DELETE /api/v1/indexes/{name}/documents/{id}",
        "DELETE /api/v1/indexes/{name}/settings",
        ...SETTING_ROUTE_LIST,
        ...["GET", "PUT", "PATCH", "DELETE"].map((m) => `${m} /api/v1/indexes/{name}/settings/{setting}`),
      ].sort(),
    );
    const put = doc.paths["/api/v1/admin/accounts/{id}/indexes/{index}/relevance-trigger-config"].put;
    expect(Object.keys(put.responses).sort()).toEqual([
      "200",
      "401",
      "404",
      "409",
      "413",
      "422",
      "429",
      "507",
    ]);
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

describe("the limits in the OpenAPI document", () => {
  it("x-limits is the whole limits table, with the deployment's body limits and any extra rows after it", async () => {
    const h = makeHarness();
    const doc = (await h.call("GET", "/api/v1/openapi.json")).body;
    expect(doc["x-limits"]).toEqual(ADMIN_LIMITS);
    expect(new Set(ADMIN_LIMITS.map((r) => r.area))).toEqual(
      new Set(["admin", "customer", "customer settings", "documents", "tasks"]),
    );

    const extra: LimitRow = { area: "search", field: "q", limit: 512, unit: "characters", status: 400 };
    const configured = makeHarness({
      limits: { jsonBodyBytes: 512 * 1024, documentsBodyBytes: 5 * 1024 * 1024 },
      extraLimitRows: [extra],
    });
    const served = (await configured.call("GET", "/api/v1/openapi.json")).body;
    const rows = served["x-limits"] as LimitRow[];
    expect(rows.at(-1)).toEqual(extra);
    expect(rows.filter((r) => r.env === "MAX_JSON_BODY_BYTES").map((r) => r.limit)).toEqual([524288, 524288]);
    expect(rows.find((r) => r.env === "MAX_DOCUMENTS_BODY_BYTES")?.limit).toBe(5 * 1024 * 1024);
    const upload = served.paths["/api/v1/indexes/{name}/documents"].post;
    expect(upload.responses["413"].description).toContain("5 MiB");
    expect(served.paths["/api/v1/indexes"].post.responses["413"].description).toContain("512 KiB");
    expect(buildOpenApiDocument({ extraLimitRows: [extra] })["x-limits"]).toEqual([...ADMIN_LIMITS, extra]);
  });

  it("every route with a body documents 413, every authenticated route 429, and 405 is described once", () => {
    const doc = openApiDocument as unknown as {
      paths: Record<
        string,
        Record<string, { requestBody?: unknown; security?: unknown[]; responses: object }>
      >;
      components: { responses: Record<string, { headers: Record<string, unknown> }> };
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === "parameters") continue;
        const codes = Object.keys(op.responses);
        if (op.requestBody !== undefined) expect(codes, `${method} ${path}`).toContain("413");
        if (op.security?.length !== 0) expect(codes, `${method} ${path}`).toContain("429");
      }
    }
    expect(doc.components.responses.TooManyRequests?.headers).toHaveProperty("Retry-After");
    expect(doc.components.responses.MethodNotAllowed?.headers).toHaveProperty("Allow");
  });

  it("schemas carry the bounds the routes enforce", () => {
    // As a client reads it: plain JSON.
    const doc = JSON.parse(JSON.stringify(openApiDocument));
    const schemas = doc.components.schemas;
    const patch = schemas.SettingsPatch.properties;
    expect(patch.filterableAttributes).toMatchObject({
      maxItems: MAX_ATTRIBUTES,
      items: { maxLength: MAX_ATTRIBUTE_CHARS },
    });
    expect(patch.synonyms).toMatchObject({
      maxProperties: MAX_SYNONYM_KEYS,
      propertyNames: { maxLength: MAX_WORD_CHARS },
      additionalProperties: { maxItems: MAX_SYNONYM_WORDS, items: { maxLength: MAX_WORD_CHARS } },
    });
    expect(patch.stopWords).toMatchObject({ maxItems: MAX_STOP_WORDS, items: { maxLength: MAX_WORD_CHARS } });
    const upload = doc.paths["/api/v1/indexes/{name}/documents"].post;
    expect(upload.requestBody.content["application/json"].schema.items.maxProperties).toBe(
      MAX_DOCUMENT_FIELDS,
    );
    expect(upload.responses["202"].content["application/json"].schema.properties.rejected.maxItems).toBe(
      MAX_REJECTED_LISTED,
    );
  });
});

describe("the OpenAPI document against the registered routes", () => {
  it("lists every route of the APIs app (the admin Lambda serves a subset of them), and nothing unserved", () => {
    const h = makeHarness();
    expect(undocumentedRoutes(h.app, [openApiDocument as never])).toEqual({ undocumented: [], unserved: [] });
  });
});
