// What an OpenAPI 3.1 document must be, as a test checks it: the document's structure, each schema
// a JSON Schema 2020-12 schema, every reference resolved, every security scheme and path
// parameter declared. Tests of both systems' generated documents use it.
import { Ajv2020 } from "ajv/dist/2020.js";

/**
 * The structure OpenAPI 3.1 requires of a document (spec.openapis.org/oas/v3.1.0): the version,
 * info, paths of operations whose responses have descriptions, parameters with their location, and
 * security schemes of the known types. Schema objects are JSON Schema 2020-12, checked apart.
 */
export const OPENAPI_31 = {
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
export function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (typeof value === "object" && value !== null)
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  return out;
}

type Doc = {
  paths: Record<string, Record<string, { parameters?: unknown; security?: unknown }>>;
  components?: {
    schemas?: Record<string, object>;
    responses?: Record<string, object>;
    securitySchemes?: Record<string, object>;
  };
};

/** Every way `doc` falls short of OpenAPI 3.1 (empty: valid). */
export function openApi31Problems(doc: unknown): string[] {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const validate = ajv.compile(OPENAPI_31);
  if (!validate(doc)) return [JSON.stringify(validate.errors)];
  const { paths, components } = doc as Doc;
  const schemas = components?.schemas ?? {};
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(schemas))
    if (!ajv.validateSchema(schema)) problems.push(`schema ${name}: ${JSON.stringify(ajv.errors)}`);
  for (const ref of refs(doc)) {
    // A schema or a shared response (a 429 every authenticated route may answer, say).
    const [, kind, name] = /^#\/components\/(schemas|responses)\/(.+)$/.exec(ref) ?? [];
    const target = kind === "schemas" ? schemas : kind === "responses" ? (components?.responses ?? {}) : {};
    if (name === undefined || target[name] === undefined) problems.push(`unresolved ${ref}`);
  }
  for (const [path, item] of Object.entries(paths)) {
    const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string).sort();
    for (const [method, op] of Object.entries(item)) {
      const declared = ((op.parameters ?? []) as { name: string; in: string }[])
        .filter((p) => p.in === "path")
        .map((p) => p.name)
        .sort();
      if (JSON.stringify(declared) !== JSON.stringify(inPath))
        problems.push(`${method} ${path}: path parameters ${declared.join(",")}`);
      for (const requirement of (op.security ?? []) as Record<string, unknown>[])
        for (const scheme of Object.keys(requirement))
          if (components?.securitySchemes?.[scheme] === undefined)
            problems.push(`${method} ${path}: undeclared security scheme ${scheme}`);
    }
  }
  return problems;
}
