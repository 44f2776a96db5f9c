// The admin and customer APIs' OpenAPI document, generated from the routes' zod schemas, is a valid
// OpenAPI 3.1 document (every schema JSON Schema 2020-12, every reference resolved, every path
// parameter declared) and lists every route the app answers and nothing it does not serve, for the
// default limits and a deployment's own.
import { undocumentedRoutes } from "@shared/http";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi.ts";
import { makeHarness } from "./test-support/harness.ts";

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: {
    schemas: Record<string, object>;
    responses: Record<string, object>;
    securitySchemes: Record<string, object>;
  };
};

/**
 * The structure OpenAPI 3.1 requires of a document (spec.openapis.org/oas/v3.1.0): the version,
 * info, paths of operations whose responses have descriptions, parameters with their location, and
 * security schemes of the known types. Schema objects are JSON Schema 2020-12, checked apart.
 */
const OPENAPI_31 = {
  $defs: {
    mediaTypes: {
      type: "object",
      additionalProperties: { type: "object", properties: { schema: { type: "object" } } },
    },
    operation: {
      type: "object",
      required: ["responses"],
      properties: {
        summary: { type: "string" },
        description: { type: "string" },
        security: { type: "array", items: { type: "object", additionalProperties: { type: "array" } } },
        parameters: {
          type: "array",
          items: {
            type: "object",
            required: ["name", "in"],
            properties: {
              name: { type: "string" },
              in: { enum: ["query", "header", "path", "cookie"] },
              required: { type: "boolean" },
              schema: { type: "object" },
            },
            if: { properties: { in: { const: "path" } } },
            // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
            then: { required: ["required"], properties: { required: { const: true } } },
          },
        },
        requestBody: {
          type: "object",
          required: ["content"],
          properties: { content: { $ref: "#/$defs/mediaTypes" }, required: { type: "boolean" } },
        },
        responses: {
          type: "object",
          minProperties: 1,
          propertyNames: { pattern: "^([1-5][0-9X]{2}|default)$" },
          // A response, or a Reference Object to one in components.responses.
          additionalProperties: {
            oneOf: [
              {
                type: "object",
                required: ["description"],
                properties: { description: { type: "string" }, content: { $ref: "#/$defs/mediaTypes" } },
              },
              {
                type: "object",
                required: ["$ref"],
                additionalProperties: false,
                properties: { $ref: { type: "string", pattern: "^#/components/responses/" } },
              },
            ],
          },
        },
      },
    },
  },
  type: "object",
  required: ["openapi", "info", "paths"],
  properties: {
    openapi: { type: "string", pattern: "^3\\.1\\.\\d+$" },
    info: {
      type: "object",
      required: ["title", "version"],
      properties: { title: { type: "string" }, version: { type: "string" } },
    },
    paths: {
      type: "object",
      propertyNames: { pattern: "^/" },
      additionalProperties: {
        type: "object",
        propertyNames: {
          enum: ["get", "put", "post", "delete", "patch", "head", "options", "trace", "parameters"],
        },
        additionalProperties: { $ref: "#/$defs/operation" },
      },
    },
    components: {
      type: "object",
      properties: {
        schemas: { type: "object" },
        responses: {
          type: "object",
          additionalProperties: { type: "object", required: ["description"] },
        },
        securitySchemes: {
          type: "object",
          additionalProperties: {
            type: "object",
            required: ["type"],
            properties: { type: { enum: ["apiKey", "http", "mutualTLS", "oauth2", "openIdConnect"] } },
          },
        },
      },
    },
  },
};

/** Every `$ref` in `value`. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (typeof value === "object" && value !== null)
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  return out;
}

const configured = { limits: { jsonBodyBytes: 512 * 1024, documentsBodyBytes: 5 * 1024 * 1024 } };

describe("the admin and customer APIs' OpenAPI document", () => {
  it.each([{}, configured])("is valid OpenAPI 3.1 (limits %j)", async (options) => {
    const h = makeHarness(options);
    const res = await h.call("GET", "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body as Doc;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(OPENAPI_31);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(ajv.validateSchema(schema), `${name}: ${JSON.stringify(ajv.errors)}`).toBe(true);
    }
    for (const ref of refs(doc)) {
      const [, kind, name] = /^#\/components\/(schemas|responses)\/(.+)$/.exec(ref) ?? [];
      expect(kind, ref).toBeDefined();
      expect(doc.components[kind as "schemas" | "responses"][name as string], ref).toBeDefined();
    }
    for (const [path, item] of Object.entries(doc.paths)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(item)) {
        const declared = ((op.parameters ?? []) as { name: string; in: string }[])
          .filter((p) => p.in === "path")
          .map((p) => p.name);
        expect(declared.sort(), `${method} ${path}`).toEqual([...inPath].sort());
        for (const requirement of (op.security ?? []) as Record<string, unknown>[])
          for (const scheme of Object.keys(requirement))
            expect(doc.components.securitySchemes[scheme], scheme).toBeDefined();
      }
    }
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
