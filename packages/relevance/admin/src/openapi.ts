// The OpenAPI 3.1 document of the admin and customer APIs, served at GET /api/v1/openapi.json.
// Hand-written so that it says exactly what the routes do; the tests check that it lists every route.
// Every bound comes from limits.ts, the constants the routes enforce.
import { formatBytes, type LimitRow } from "@shared/http";
import {
  adminLimitRows,
  type BodyLimits,
  MAX_ACCOUNT_NAME_CHARS,
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTES,
  MAX_DOCUMENT_BYTES,
  MAX_DOCUMENT_DEPTH,
  MAX_DOCUMENT_FIELDS,
  MAX_DOCUMENT_STRING_BYTES,
  MAX_PAGE_LIMIT,
  MAX_RANKING_RULES,
  MAX_REJECTED_LISTED,
  MAX_SETTINGS_BYTES,
  MAX_STOP_WORDS,
  MAX_SYNONYM_KEYS,
  MAX_SYNONYM_WORDS,
  MAX_TRIGGER_CONFIG_STRING_CHARS,
  MAX_TYPO_DISABLED_WORDS,
  MAX_TYPO_WORD_SIZE,
  MAX_WORD_CHARS,
  resolveBodyLimits,
} from "./limits.ts";

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

const nameList = {
  type: "array",
  items: { type: "string", minLength: 1, maxLength: MAX_ATTRIBUTE_CHARS },
  maxItems: MAX_ATTRIBUTES,
};
const nullableNameList = { ...nameList, type: ["array", "null"] };
const fieldName = { type: ["string", "null"], minLength: 1, maxLength: MAX_TRIGGER_CONFIG_STRING_CHARS };
const word = { type: "string", minLength: 1, maxLength: MAX_WORD_CHARS };
const synonyms = {
  type: "object",
  maxProperties: MAX_SYNONYM_KEYS,
  propertyNames: word,
  additionalProperties: { type: "array", items: word, maxItems: MAX_SYNONYM_WORDS },
};
const stopWords = { type: "array", items: word, maxItems: MAX_STOP_WORDS };
const wordSize = { type: "integer", minimum: 0, maximum: MAX_TYPO_WORD_SIZE };
const typoTolerance = {
  type: "object",
  additionalProperties: false,
  description:
    "Merged into the stored value. disableOnAttributes accepts only [] and disableOnNumbers is refused: the embedded engine cannot honour them (422).",
  properties: {
    enabled: { type: "boolean" },
    minWordSizeForTypos: {
      type: "object",
      additionalProperties: false,
      properties: { oneTypo: wordSize, twoTypos: wordSize },
    },
    disableOnWords: { type: "array", items: word, maxItems: MAX_TYPO_DISABLED_WORDS },
    disableOnAttributes: { type: "array", items: nameList.items, maxItems: 0 },
  },
};
const rankingRules = {
  type: "array",
  items: { type: "string" },
  maxItems: MAX_RANKING_RULES,
  description:
    'Only the default ["words","typo","proximity","attribute","sort","exactness"] is accepted (422 otherwise).',
};

const admin = { security: [{ adminToken: [] }], tags: ["admin"] };
const customer = { security: [{ apiKey: [] }], tags: ["customer"] };
const e401 = error("Missing or wrong credentials.");
const e429 = { $ref: "#/components/responses/TooManyRequests" };
/** The 413 of a route whose body limit is `bytes`. */
const e413 = (bytes: number) =>
  error(
    `Body larger than ${formatBytes(bytes)} (checked from Content-Length before reading, or while reading).`,
  );
const e502Backend = error(
  "With an index manager: the search backend did not take the write (an index creation is undone) or " +
    "could not be read; retry.",
);
const e404Index = error("No such index or alias in this account (another account's index answers the same).");
const e507 = error(
  "No space left on the device (no_space_left_on_device): the write was not stored (the message says " +
    "what became of it); free disk space and send it again. Reads keep working.",
);

export interface OpenApiOptions {
  /** The deployment's body limits (the defaults unless given). */
  limits?: Partial<BodyLimits> | undefined;
  /** More rows for `x-limits` (the search and monitor limits, say), after the admin and customer rows. */
  extraLimitRows?: readonly LimitRow[] | undefined;
  /** Paths of other apps served beside these (the search proxy's in npm start), and their schemas. */
  extraPaths?: Readonly<Record<string, object>> | undefined;
  extraSchemas?: Readonly<Record<string, object>> | undefined;
}

/** The document for a deployment's body limits, with `x-limits`: the whole limits table. */
export function buildOpenApiDocument(options: OpenApiOptions = {}) {
  const limits = resolveBodyLimits(options.limits);
  const jsonLimit = e413(limits.jsonBodyBytes);
  return {
    openapi: "3.1.0",
    info: {
      title: "Relevance admin and customer API",
      version: "1.0.0",
      description:
        "The internal admin API ({env}-AdminInternalApi) and the customer management API. Every error answers " +
        '{"error": {"code", "message", "details"?}}; see docs/api.md. A path no route serves answers 404; a ' +
        "path served for other methods answers 405 with Allow (components.responses.MethodNotAllowed). Every " +
        "bound is listed in x-limits (docs/limits.md).",
    },
    components: {
      responses: {
        TooManyRequests: {
          description:
            "Too many failed authentications from this client address (or with this credential prefix); " +
            "refused whatever credential is presented until the window ends, except one that already worked from that address.",
          headers: {
            "Retry-After": {
              description: "Seconds until the client may try again.",
              schema: { type: "integer" },
            },
          },
          content: json(ref("Error")),
        },
        MethodNotAllowed: {
          description: "The path exists, but not for this method (any route).",
          headers: {
            Allow: {
              description: "The methods the path serves, e.g. DELETE, GET, HEAD.",
              schema: { type: "string" },
            },
          },
          content: json(ref("Error")),
        },
      },
      securitySchemes: {
        adminToken: { type: "http", scheme: "bearer", description: "The internal admin token." },
        apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "An account's API key." },
        bearerApiKey: {
          type: "http",
          scheme: "bearer",
          description:
            "An account's API key as Authorization: Bearer <key> (what Meilisearch clients send; search routes only).",
        },
      },
      schemas: {
        ...options.extraSchemas,
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
              maxLength: MAX_TRIGGER_CONFIG_STRING_CHARS,
              description:
                "Key suffix of the artifact relevance_model:<modelId>; convention <account>:<index>:v<n>.",
            },
            titleField: {
              ...fieldName,
              description: "Hit field with titles; null skips the title features.",
            },
            tagsField: { ...fieldName, description: "Hit field with tags; null skips the tag features." },
          },
        },
        Issue: {
          type: "object",
          required: ["path", "message"],
          properties: { path: { type: "string" }, message: { type: "string" } },
        },
        TaskSummary: {
          type: "object",
          description:
            "Meilisearch's summarized task, answered by a write when the deployment hands writes on to an " +
            "index manager (absent otherwise): nested as `task` and, for Meilisearch's clients, its fields at " +
            "the top level of the answer (an index view keeps its own `type`). `indexUid` is the index's name; " +
            "follow it with GET /api/v1/tasks/{uid}.",
          required: ["taskUid", "indexUid", "status", "type", "enqueuedAt"],
          properties: {
            taskUid: {
              type: "integer",
              description:
                "Never given twice. The embedded stack numbers each account's tasks from 1 (no other account's count shows); Meilisearch numbers its instance's.",
            },
            indexUid: { type: "string" },
            status: { enum: ["enqueued", "processing", "succeeded", "failed"] },
            type: {
              enum: [
                "indexCreation",
                "indexDeletion",
                "documentAdditionOrUpdate",
                "documentDeletion",
                "settingsUpdate",
              ],
            },
            enqueuedAt: { type: "string", format: "date-time" },
          },
        },
        IndexView: {
          type: "object",
          required: ["uid", "name", "type", "createdAt", "updatedAt"],
          properties: {
            uid: { type: "string", description: "The name, as Meilisearch calls it." },
            name: { type: "string" },
            type: { enum: ["index", "alias"] },
            primaryKey: { type: "string", description: "Indexes only." },
            index: { type: "string", description: "Aliases only: the index the alias points at." },
            numberOfDocuments: { type: "integer", description: "GET of one index only." },
            task: ref("TaskSummary"),
            taskUid: { type: "integer", description: "With an index manager: the task's uid (see task)." },
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
            synonyms,
            stopWords,
            typoTolerance,
            rankingRules,
            task: ref("TaskSummary"),
          },
        },
        SettingsPatch: {
          type: "object",
          additionalProperties: false,
          description:
            "Any subset; null resets a setting to its default. relevanceTriggerConfig / relevance_trigger_config answer 422. " +
            `The eight settings together, after the change, as GET answers them, may take at most ${formatBytes(MAX_SETTINGS_BYTES)} of JSON (422, path settings).`,
          properties: {
            searchableAttributes: nullableNameList,
            displayedAttributes: nullableNameList,
            filterableAttributes: nullableNameList,
            sortableAttributes: nullableNameList,
            synonyms: { ...synonyms, type: ["object", "null"] },
            stopWords: { ...stopWords, type: ["array", "null"] },
            typoTolerance: { ...typoTolerance, type: ["object", "null"] },
            rankingRules: { ...rankingRules, type: ["array", "null"] },
          },
        },
      },
    },
    paths: {
      ...options.extraPaths,
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
            properties: { name: { type: "string", minLength: 1, maxLength: MAX_ACCOUNT_NAME_CHARS } },
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
            "413": jsonLimit,
            "422": error("Body not JSON or invalid, or a key named __proto__, constructor or prototype."),
            "429": e429,
            "507": e507,
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
            "429": e429,
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
            "413": jsonLimit,
            "422": error(
              "Body not JSON, other top-level keys, a missing/unknown sub-field, wrong types or bad strings.",
            ),
            "429": e429,
            "507": e507,
          },
        },
      },
      "/api/v1/indexes": {
        get: {
          ...customer,
          summary: "List the account's indexes and aliases by name, a page at a time (Meilisearch's shape).",
          parameters: [
            { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
            {
              name: "limit",
              in: "query",
              schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_LIMIT, default: 20 },
            },
          ],
          responses: {
            "200": ok("The records.", {
              type: "object",
              required: ["results", "offset", "limit", "total"],
              properties: {
                results: { type: "array", items: ref("IndexView") },
                offset: { type: "integer" },
                limit: { type: "integer" },
                total: { type: "integer" },
              },
            }),
            "401": e401,
            "422": error("Invalid offset or limit."),
            "429": e429,
          },
        },
        post: {
          ...customer,
          summary: "Create an index.",
          requestBody: body({
            type: "object",
            additionalProperties: false,
            description:
              "`name`, or `uid` as Meilisearch's clients send it (taken as the name when name is absent).",
            properties: {
              name: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
              uid: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
              primaryKey: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$", default: "id" },
            },
          }),
          responses: {
            "201": ok("Created.", ref("IndexView")),
            "400": error("Body not JSON."),
            "401": e401,
            "409": error("An index or alias with this name exists."),
            "413": jsonLimit,
            "422": error("Invalid body."),
            "429": e429,
            "502": e502Backend,
            "507": e507,
          },
        },
      },
      "/api/v1/indexes/{name}": {
        parameters: [nameParam],
        get: {
          ...customer,
          summary: "One index or alias.",
          responses: {
            "200": ok("The record.", ref("IndexView")),
            "401": e401,
            "404": e404Index,
            "429": e429,
          },
        },
        delete: {
          ...customer,
          summary: "Delete an index (its record and documents) or an alias record.",
          responses: {
            "200": ok("Deleted.", {
              type: "object",
              properties: {
                deleted: { type: "string" },
                task: ref("TaskSummary"),
                taskUid: {
                  type: "integer",
                  description: "With an index manager: the task's uid (see task).",
                },
              },
            }),
            "401": e401,
            "404": e404Index,
            "409": error("Aliases point at the index, or it changed meanwhile."),
            "429": e429,
            "502": e502Backend,
            "507": e507,
          },
        },
      },
      "/api/v1/indexes/{name}/stats": {
        parameters: [nameParam],
        get: {
          ...customer,
          summary:
            "The index's statistics (an alias answers its index's), as Meilisearch's GET /indexes/{uid}/stats: " +
            "the number of documents and how many have each top-level field.",
          responses: {
            "200": ok("The statistics.", {
              type: "object",
              required: ["numberOfDocuments", "isIndexing", "fieldDistribution"],
              properties: {
                numberOfDocuments: { type: "integer" },
                isIndexing: { type: "boolean" },
                fieldDistribution: { type: "object", additionalProperties: { type: "integer" } },
              },
            }),
            "401": e401,
            "404": e404Index,
            "429": e429,
          },
        },
      },
      "/api/v1/indexes/{name}/documents": {
        parameters: [nameParam],
        post: {
          ...customer,
          summary:
            "Add or replace documents by primary key (an alias writes to its index). Documents over a " +
            "per-document limit are rejected with their reason; the others are stored.",
          requestBody: body({
            type: "array",
            items: {
              type: "object",
              maxProperties: MAX_DOCUMENT_FIELDS,
              description:
                `At most ${formatBytes(MAX_DOCUMENT_BYTES)} as stored (UTF-8 JSON), each string at most ` +
                `${formatBytes(MAX_DOCUMENT_STRING_BYTES)}, at most ${MAX_DOCUMENT_FIELDS} distinct fields ` +
                `(nested ones by dotted name), at most ${MAX_DOCUMENT_DEPTH} levels of nesting; else rejected (202).`,
            },
          }),
          responses: {
            "202": ok(
              "The batch was well formed: `accepted` documents are stored; `rejected` lists those over a " +
                "per-document limit (also when none was stored); received - accepted is how many were rejected.",
              {
                type: "object",
                required: ["received", "accepted", "rejected"],
                properties: {
                  task: ref("TaskSummary"),
                  taskUid: {
                    type: "integer",
                    description: "With an index manager: the task's uid (see task).",
                  },
                  received: { type: "integer", description: "Documents in the body." },
                  accepted: { type: "integer", description: "Documents stored." },
                  rejected: {
                    type: "array",
                    maxItems: MAX_REJECTED_LISTED,
                    description: `The first ${MAX_REJECTED_LISTED} rejected documents.`,
                    items: {
                      type: "object",
                      required: ["index", "id", "path", "reason"],
                      properties: {
                        index: { type: "integer", description: "Position in the body." },
                        id: { type: ["string", "integer"], description: "Its primary key." },
                        path: { type: "string", examples: ["[3].description"] },
                        reason: { type: "string", description: "The field and the limit it is over." },
                      },
                    },
                  },
                },
              },
            ),
            "400": error("Body not JSON."),
            "401": e401,
            "404": e404Index,
            "413": e413(limits.documentsBodyBytes),
            "422": error(
              "Not an array of objects, a primary key missing or invalid, or a key named __proto__, " +
                "constructor or prototype (details name e.g. [3].id); nothing is stored.",
            ),
            "429": e429,
            "502": e502Backend,
            "507": e507,
          },
        },
        get: {
          ...customer,
          summary:
            "Documents in a stable order: primary-key order in the embedded stack, Meilisearch's own order " +
            "where Meilisearch holds them.",
          parameters: [
            { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
            {
              name: "limit",
              in: "query",
              schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_LIMIT, default: 20 },
            },
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
            "422": error(
              "Invalid offset or limit, or (where the deployment bounds a response, as on Lambda) a page " +
                "over the response limit: code response_too_large, details name limit and a limit that fits.",
            ),
            "429": e429,
            "502": e502Backend,
          },
        },
      },
      "/api/v1/tasks/{uid}": {
        parameters: [
          pathParam(
            "uid",
            "The task's uid (taskUid of a write's answer), never given twice: the account's own numbers from 1 in the embedded stack, Meilisearch's instance-wide ones where it holds the documents.",
          ),
        ],
        get: {
          ...customer,
          summary:
            "A task of one of the account's indexes, as Meilisearch's GET /tasks/{uid} (deployments with an " +
            "index manager; elsewhere writes are synchronous and there are no tasks).",
          responses: {
            "200": ok("The task.", {
              type: "object",
              required: [
                "uid",
                "indexUid",
                "status",
                "type",
                "enqueuedAt",
                "startedAt",
                "finishedAt",
                "error",
                "details",
              ],
              properties: {
                uid: { type: "integer" },
                indexUid: { type: "string", description: "The index's name." },
                status: { enum: ["enqueued", "processing", "succeeded", "failed"] },
                type: { type: "string" },
                enqueuedAt: { type: "string", format: "date-time" },
                startedAt: { type: ["string", "null"], format: "date-time" },
                finishedAt: { type: ["string", "null"], format: "date-time" },
                error: {
                  type: ["object", "null"],
                  description: "Why it failed: Meilisearch's {message, code, type, link}.",
                },
                details: { type: "object" },
              },
            }),
            "401": e401,
            "404": error("No such task of this account (code task_not_found)."),
            "429": e429,
            "502": e502Backend,
          },
        },
      },
      "/api/v1/indexes/{name}/settings": {
        parameters: [nameParam],
        get: {
          ...customer,
          summary: "The customer settings (never the internal relevance config).",
          responses: {
            "200": ok("Settings.", ref("Settings"), etagHeader),
            "401": e401,
            "404": e404Index,
            "429": e429,
          },
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
            "413": jsonLimit,
            "422": error(
              "Unknown keys, invalid values, a value over its limit, settings over the total, a key named " +
                "__proto__, constructor or prototype, or relevanceTriggerConfig / relevance_trigger_config.",
            ),
            "429": e429,
            "502": e502Backend,
            "507": e507,
          },
        },
      },
      "/api/v1/aliases/{alias}": {
        parameters: [pathParam("alias", "Alias name: 1 to 64 characters of A-Z, a-z, 0-9, _ and -.")],
        put: {
          ...customer,
          summary: "Create or re-point an alias (its own settings record; its other attributes are kept).",
          parameters: [
            {
              name: "If-None-Match",
              in: "header",
              required: false,
              description:
                "`*`: create the alias only if no index or alias has the name (else 409, nothing written).",
              schema: { type: "string", enum: ["*"] },
            },
          ],
          requestBody: body({
            type: "object",
            additionalProperties: false,
            required: ["index"],
            properties: { index: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" } },
          }),
          responses: {
            "200": ok("The alias.", ref("IndexView"), etagHeader),
            "400": error("Body not JSON."),
            "401": e401,
            "404": error("The target index does not exist."),
            "409": error("An index has the alias's name, or the alias exists and If-None-Match is *."),
            "413": jsonLimit,
            "422": error("Invalid alias name or body, or the target is an alias."),
            "429": e429,
            "507": e507,
          },
        },
      },
    },
    "x-limits": [...adminLimitRows(limits), ...(options.extraLimitRows ?? [])],
  };
}

/** The document with the default limits. */
export const openApiDocument = buildOpenApiDocument();
