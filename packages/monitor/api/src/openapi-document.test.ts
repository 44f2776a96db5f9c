// The monitor's OpenAPI document, generated from the routes' zod schemas, is a valid OpenAPI 3.1
// document and lists every route the app answers (and nothing it does not serve), with and
// without a silence store. The document is made without reading the run store.
import { InMemoryCollectorRegistry, InMemorySilenceStore, type RunStore } from "@monitor/core";
import { undocumentedRoutes } from "@shared/http";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { call, makeApp } from "./test-support.ts";

const notRead = {} as RunStore;

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, object>; securitySchemes: Record<string, object> };
};

async function documentOf(withSilences: boolean) {
  const app = makeApp({
    store: notRead,
    registry: new InMemoryCollectorRegistry(),
    ...(withSilences ? { silences: new InMemorySilenceStore() } : {}),
  });
  const res = await call(app, "GET", "/api/system/openapi.json");
  expect(res.status).toBe(200);
  return { app, doc: res.body as Doc };
}

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
          additionalProperties: {
            type: "object",
            required: ["description"],
            properties: { description: { type: "string" }, content: { $ref: "#/$defs/mediaTypes" } },
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

describe("the monitor's OpenAPI document", () => {
  it.each([false, true])("is valid OpenAPI 3.1 (with a silence store: %s)", async (withSilences) => {
    const { doc } = await documentOf(withSilences);
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(OPENAPI_31);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    // Every schema is a JSON Schema 2020-12 schema (OpenAPI 3.1's dialect), every reference resolves,
    // every security requirement names a declared scheme, every path parameter is declared.
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(ajv.validateSchema(schema), `${name}: ${JSON.stringify(ajv.errors)}`).toBe(true);
    }
    for (const ref of refs(doc)) {
      expect(ref, ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.slice("#/components/schemas/".length)], ref).toBeDefined();
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

  it.each([false, true])(
    "lists every route served, and serves every route listed (silences: %s)",
    async (withSilences) => {
      const { app, doc } = await documentOf(withSilences);
      expect(undocumentedRoutes(app, [doc])).toEqual({ undocumented: [], unserved: [] });
      expect(Object.keys(doc.paths).includes("/api/system/silences")).toBe(withSilences);
    },
  );

  it("describes the bodies with their bounds: a run record as the core checks it", async () => {
    const { doc } = await documentOf(false);
    const run = doc.components.schemas.RunRecord as {
      required: string[];
      properties: Record<string, { maxLength?: number; pattern?: string; maximum?: number }>;
    };
    expect(run.required.sort()).toEqual(
      [
        "cloud_account_id",
        "cloud_region",
        "collector",
        "completed_at",
        "events_produced",
        "rows_inserted",
        "started_at",
        "status",
      ].sort(),
    );
    expect(run.properties.collector).toMatchObject({
      maxLength: 64,
      pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$",
    });
    expect(run.properties.error?.maxLength).toBe(4096);
    expect(run.properties.rows_inserted?.maximum).toBe(4294967295);
    const body = doc.paths["/api/system/runs"]?.post?.requestBody as {
      content: { "application/json": { schema: { anyOf: { $ref?: string; maxItems?: number }[] } } };
    };
    expect(body.content["application/json"].schema.anyOf).toEqual([
      { $ref: "#/components/schemas/RunRecord" },
      { type: "array", items: { $ref: "#/components/schemas/RunRecord" }, maxItems: 1000 },
    ]);
    expect((doc as unknown as { "x-limits": unknown[] })["x-limits"].length).toBeGreaterThan(0);
  });
});
