// The OpenAPI 3.1 document of the admin and customer APIs, served at GET /api/v1/openapi.json.
// Hand-written so that it says exactly what the routes do; the tests check that it lists every route.

const json = (schema: object) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: json(ref("Error")) });
const ok = (description: string, schema: object, headers?: object) => ({
  description,
  content: json(schema),
  ...(headers === undefined ? {} : { headers }),
});
const body = (schema: object) => ({ required: true, content: json(schema) });
const pathParam = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
const nameParam = pathParam("name", "Index (or alias) name: 1 to 64 characters of A-Z, a-z, 0-9, _ and -.");
const etagHeader = {
  ETag: { description: 'The record\'s version, quoted: "3".', schema: { type: "string" } },
};
const ifMatch = {
  name: "If-Match",
  in: "header",
  required: false,
  description: 'The version last read ("3", W/"3" or 3); a stale version answers 409.',
  schema: { type: "string" },
};

const nameList = { type: "array", items: { type: "string", minLength: 1, maxLength: 256 }, maxItems: 1000 };
const nullableNameList = { ...nameList, type: ["array", "null"] };
const fieldName = { type: ["string", "null"], minLength: 1, maxLength: 256 };

const admin = { security: [{ adminToken: [] }], tags: ["admin"] };
const customer = { security: [{ apiKey: [] }], tags: ["customer"] };
const e401 = error("Missing or wrong credentials.");
const e404Index = error("No such index or alias in this account (another account's index answers the same).");

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Relevance admin and customer API",
    version: "1.0.0",
    description:
      "The internal admin API ({env}-AdminInternalApi) and the customer management API. Every error answers " +
      '{"error": {"code", "message", "details"?}}; see docs/api.md.',
  },
  components: {
    securitySchemes: {
      adminToken: { type: "http", scheme: "bearer", description: "The internal admin token." },
      apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "An account's API key." },
    },
    schemas: {
      Error: {
        type: "object",
        required: ["error"],
        properties: {
          error: {
            type: "object",
            required: ["code", "message"],
            properties: {
              code: { type: "string", examples: ["validation_failed"] },
              message: { type: "string" },
              details: {
                type: "array",
                items: {
                  type: "object",
                  required: ["path", "message"],
                  properties: { path: { type: "string" }, message: { type: "string" } },
                },
              },
            },
          },
        },
      },
      RelevanceTriggerConfig: {
        type: "object",
        additionalProperties: false,
        required: ["modelId", "titleField", "tagsField"],
        properties: {
          modelId: {
            type: "string",
            minLength: 1,
            maxLength: 256,
            description:
              "Key suffix of the artifact relevance_model:<modelId>; convention <account>:<index>:v<n>.",
          },
          titleField: { ...fieldName, description: "Hit field with titles; null skips the title features." },
          tagsField: { ...fieldName, description: "Hit field with tags; null skips the tag features." },
        },
      },
      Issue: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string" }, message: { type: "string" } },
      },
      IndexView: {
        type: "object",
        required: ["name", "type", "createdAt", "updatedAt"],
        properties: {
          name: { type: "string" },
          type: { enum: ["index", "alias"] },
          primaryKey: { type: "string", description: "Indexes only." },
          index: { type: "string", description: "Aliases only: the index the alias points at." },
          numberOfDocuments: { type: "integer", description: "GET of one index only." },
          createdAt: { type: "string", format: "date-time" },
          updatedAt: { type: "string", format: "date-time" },
        },
      },
      Settings: {
        type: "object",
        properties: {
          searchableAttributes: nameList,
          displayedAttributes: nameList,
          filterableAttributes: nameList,
          sortableAttributes: nameList,
          synonyms: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
          stopWords: { type: "array", items: { type: "string" } },
        },
      },
      SettingsPatch: {
        type: "object",
        additionalProperties: false,
        description:
          "Any subset; null resets a setting to its default. relevanceTriggerConfig / relevance_trigger_config answer 422.",
        properties: {
          searchableAttributes: nullableNameList,
          displayedAttributes: nullableNameList,
          filterableAttributes: nullableNameList,
          sortableAttributes: nullableNameList,
          synonyms: {
            type: ["object", "null"],
            additionalProperties: { type: "array", items: { type: "string" } },
          },
          stopWords: { type: ["array", "null"], items: { type: "string" } },
        },
      },
    },
  },
  paths: {
    "/api/v1/openapi.json": {
      get: {
        summary: "This document (no authentication).",
        security: [],
        responses: { "200": { description: "The OpenAPI document.", content: json({ type: "object" }) } },
      },
    },
    "/api/v1/admin/accounts": {
      post: {
        ...admin,
        summary: "Create an account and its API key (shown once, stored only as a SHA-256 hash).",
        requestBody: body({
          type: "object",
          additionalProperties: false,
          required: ["name"],
          properties: { name: { type: "string", minLength: 1, maxLength: 256 } },
        }),
        responses: {
          "201": ok("Created.", {
            type: "object",
            required: ["systemAccountId", "apiKey"],
            properties: {
              systemAccountId: { type: "string", pattern: "^acct_[0-9a-f]{12}$" },
              apiKey: { type: "string", pattern: "^rk_[A-Za-z0-9_-]{43}$" },
            },
          }),
          "401": e401,
          "422": error("Body not JSON or invalid."),
        },
      },
    },
    "/api/v1/admin/accounts/{id}/indexes/{index}/relevance-trigger-config": {
      parameters: [pathParam("id", "System account ID."), pathParam("index", "Index or alias name.")],
      get: {
        ...admin,
        summary: "Read the relevance trigger config of an index or alias record.",
        responses: {
          "200": ok(
            "The config (null when not set) and the record's version.",
            {
              type: "object",
              required: ["relevanceTriggerConfig", "version"],
              properties: {
                relevanceTriggerConfig: {
                  description:
                    "The config, null when not set; when storedConfigProblems is present, the stored value as is (snake_case).",
                },
                version: { type: "integer" },
                storedConfigProblems: {
                  type: "array",
                  items: ref("Issue"),
                  description:
                    "Only when the stored value is malformed (a direct table edit); then nothing is scored.",
                },
              },
            },
            etagHeader,
          ),
          "401": e401,
          "404": error("No such account or index."),
        },
      },
      put: {
        ...admin,
        summary:
          "Set (or with null remove) the relevance trigger config; a conditional write on the record's version.",
        parameters: [ifMatch],
        requestBody: body({
          type: "object",
          additionalProperties: false,
          required: ["relevanceTriggerConfig"],
          properties: {
            relevanceTriggerConfig: { oneOf: [ref("RelevanceTriggerConfig"), { type: "null" }] },
          },
        }),
        responses: {
          "200": ok(
            "Written.",
            {
              type: "object",
              required: ["relevanceTriggerConfig", "version", "warnings"],
              properties: {
                relevanceTriggerConfig: { oneOf: [ref("RelevanceTriggerConfig"), { type: "null" }] },
                version: { type: "integer" },
                warnings: { type: "array", items: { type: "string" } },
              },
            },
            etagHeader,
          ),
          "401": e401,
          "404": error("No such account or index."),
          "409": error(
            "Another process updated the index since it was read (or If-Match is stale); read and retry.",
          ),
          "422": error(
            "Body not JSON, other top-level keys, a missing/unknown sub-field, wrong types or bad strings.",
          ),
        },
      },
    },
    "/api/v1/indexes": {
      get: {
        ...customer,
        summary: "List the account's indexes and aliases.",
        responses: {
          "200": ok("The records.", {
            type: "object",
            properties: { results: { type: "array", items: ref("IndexView") } },
          }),
          "401": e401,
        },
      },
      post: {
        ...customer,
        summary: "Create an index.",
        requestBody: body({
          type: "object",
          additionalProperties: false,
          required: ["name"],
          properties: {
            name: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
            primaryKey: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$", default: "id" },
          },
        }),
        responses: {
          "201": ok("Created.", ref("IndexView")),
          "400": error("Body not JSON."),
          "401": e401,
          "409": error("An index or alias with this name exists."),
          "422": error("Invalid body."),
        },
      },
    },
    "/api/v1/indexes/{name}": {
      parameters: [nameParam],
      get: {
        ...customer,
        summary: "One index or alias.",
        responses: { "200": ok("The record.", ref("IndexView")), "401": e401, "404": e404Index },
      },
      delete: {
        ...customer,
        summary: "Delete an index (its record and documents) or an alias record.",
        responses: {
          "200": ok("Deleted.", { type: "object", properties: { deleted: { type: "string" } } }),
          "401": e401,
          "404": e404Index,
          "409": error("Aliases point at the index, or it changed meanwhile."),
        },
      },
    },
    "/api/v1/indexes/{name}/documents": {
      parameters: [nameParam],
      post: {
        ...customer,
        summary: "Add or replace documents by primary key (an alias writes to its index).",
        requestBody: body({ type: "array", items: { type: "object" } }),
        responses: {
          "202": ok("Stored.", {
            type: "object",
            required: ["received"],
            properties: { received: { type: "integer" } },
          }),
          "400": error("Body not JSON."),
          "401": e401,
          "404": e404Index,
          "413": error("Body larger than 20 MiB."),
          "422": error(
            "Not an array of objects, or a primary key missing or invalid (details name e.g. [3].id).",
          ),
        },
      },
      get: {
        ...customer,
        summary: "Documents in primary-key order.",
        parameters: [
          { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 1000, default: 20 } },
        ],
        responses: {
          "200": ok("A page.", {
            type: "object",
            properties: {
              results: { type: "array", items: { type: "object" } },
              offset: { type: "integer" },
              limit: { type: "integer" },
              total: { type: "integer" },
            },
          }),
          "401": e401,
          "404": e404Index,
          "422": error("Invalid offset or limit."),
        },
      },
    },
    "/api/v1/indexes/{name}/settings": {
      parameters: [nameParam],
      get: {
        ...customer,
        summary: "The customer settings (never the internal relevance config).",
        responses: { "200": ok("Settings.", ref("Settings"), etagHeader), "401": e401, "404": e404Index },
      },
      patch: {
        ...customer,
        summary: "Change some settings (a conditional read-modify-write, retried on conflict).",
        parameters: [ifMatch],
        requestBody: body(ref("SettingsPatch")),
        responses: {
          "200": ok("The settings after the change.", ref("Settings"), etagHeader),
          "400": error("Body not JSON."),
          "401": e401,
          "404": e404Index,
          "409": error("Stale If-Match, or concurrent writers kept winning."),
          "422": error("Unknown keys, invalid values, or relevanceTriggerConfig / relevance_trigger_config."),
        },
      },
    },
    "/api/v1/aliases/{alias}": {
      parameters: [pathParam("alias", "Alias name: 1 to 64 characters of A-Z, a-z, 0-9, _ and -.")],
      put: {
        ...customer,
        summary: "Create or re-point an alias (its own settings record; its other attributes are kept).",
        requestBody: body({
          type: "object",
          additionalProperties: false,
          required: ["index"],
          properties: { index: { type: "string" } },
        }),
        responses: {
          "200": ok("The alias.", ref("IndexView")),
          "400": error("Body not JSON."),
          "401": e401,
          "404": error("The target index does not exist."),
          "409": error("An index has the alias's name."),
          "422": error("Invalid alias name or body, or the target is an alias."),
        },
      },
    },
  },
} as const;
