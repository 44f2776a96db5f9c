// The admin and customer APIs' OpenAPI document, generated from the routes' zod schemas, is a valid
// OpenAPI 3.1 document (every schema JSON Schema 2020-12, every reference resolved, every path
// parameter declared) and lists every route the app answers and nothing it does not serve, for the
// default limits and a deployment's own.
import { undocumentedRoutes } from "@shared/http";
import { openApi31Problems } from "@shared/test-support/openapi-31";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi.ts";
import { makeHarness } from "./test-support/harness.ts";

const configured = { limits: { jsonBodyBytes: 512 * 1024, documentsBodyBytes: 5 * 1024 * 1024 } };

describe("the admin and customer APIs' OpenAPI document", () => {
  it.each([{}, configured])("is valid OpenAPI 3.1 (limits %j)", async (options) => {
    const h = makeHarness(options);
    const res = await h.call("GET", "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(openApi31Problems(res.body)).toEqual([]);
  });

  it.each([{}, configured])(
    "lists every route served, and serves every route listed (limits %j)",
    (options) => {
      const h = makeHarness(options);
      expect(undocumentedRoutes(h.app, [buildOpenApiDocument(options) as never])).toEqual({
        undocumented: [],
        unserved: [],
      });
    },
  );

  it("keeps the paths and schemas of apps served beside these, without letting them replace its own", () => {
    const doc = buildOpenApiDocument({
      extraPaths: { "/indexes/{uid}/search": { post: { responses: { 200: { description: "Hits." } } } } },
      extraSchemas: { SearchRequest: { type: "object" }, Error: { type: "string" } },
    });
    expect(doc.paths["/indexes/{uid}/search"]).toBeDefined();
    expect(doc.components.schemas?.SearchRequest).toEqual({ type: "object" });
    expect(doc.components.schemas?.Error).toMatchObject({ type: "object", required: ["error"] });
  });
});
