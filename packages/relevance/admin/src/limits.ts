// The bounds of the admin and customer APIs (docs/limits.md, `x-limits` in the OpenAPI document).
// Each constant is the number the code enforces; the rows below are built from the same constants,
// so the documented value and the enforced one cannot drift apart.

import { MAX_SHADOW_MODEL_ID_CHARS, QUALITY_LIMIT_ROWS, TRAINING_LIMIT_ROWS } from "@relevance/outcomes";
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTES,
  MAX_DOCUMENTS_PER_INDEX,
  MAX_RANKING_RULES,
  MAX_SETTINGS_BYTES,
  MAX_STOP_WORDS,
  MAX_SYNONYM_KEYS,
  MAX_SYNONYM_WORDS,
  MAX_TYPO_DISABLED_WORDS,
  MAX_TYPO_WORD_SIZE,
  MAX_WORD_CHARS,
} from "@relevance/settings";
import { DEFAULT_JSON_BODY_BYTES, type LimitRow, MAX_ERROR_DETAILS } from "@shared/http";
import { KEY_LIMIT_ROWS } from "./key-limits.ts";
import { managementLimitRows } from "./management-limits.ts";

/** The body limits a deployment may change (`ApiDeps.limits`, `MAX_JSON_BODY_BYTES`, `MAX_DOCUMENTS_BODY_BYTES`). */
export interface BodyLimits {
  /** Every JSON body except a documents upload. Default 1 MiB. */
  jsonBodyBytes: number;
  /** `POST /api/v1/indexes/{name}/documents`. Default 20 MiB. */
  documentsBodyBytes: number;
}

export const DEFAULT_BODY_LIMITS: Readonly<BodyLimits> = {
  jsonBodyBytes: DEFAULT_JSON_BODY_BYTES,
  documentsBodyBytes: 20 * 1024 * 1024,
};

/** The environment variables that change the body limits. */
export const BODY_LIMIT_ENV = {
  jsonBodyBytes: "MAX_JSON_BODY_BYTES",
  documentsBodyBytes: "MAX_DOCUMENTS_BODY_BYTES",
} as const satisfies Record<keyof BodyLimits, string>;

/** The body limits with the defaults filled in; throws naming the option when a value is not a positive integer. */
export function resolveBodyLimits(limits: Partial<BodyLimits> = {}): BodyLimits {
  const resolved = { ...DEFAULT_BODY_LIMITS, ...limits };
  for (const key of Object.keys(BODY_LIMIT_ENV) as (keyof BodyLimits)[]) {
    const value = resolved[key];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new Error(`limits.${key} must be a positive whole number of bytes, got ${String(value)}`);
    }
  }
  return resolved;
}

/**
 * The body limits set in `env` (`MAX_JSON_BODY_BYTES`, `MAX_DOCUMENTS_BODY_BYTES`: whole bytes);
 * unset or empty ones keep their default. Throws naming the variable when a value is not a positive
 * integer, so a typo fails the start instead of silently lifting a limit.
 */
export function bodyLimitsFromEnv(env: Record<string, string | undefined>): Partial<BodyLimits> {
  const limits: Partial<BodyLimits> = {};
  for (const [key, name] of Object.entries(BODY_LIMIT_ENV) as [keyof BodyLimits, string][]) {
    const raw = (env[name] ?? "").trim();
    if (raw === "") continue;
    const value = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(value >= 1))
      throw new Error(`${name} must be a positive whole number of bytes, got ${JSON.stringify(raw)}`);
    limits[key] = value;
  }
  return limits;
}

// --- admin ---

/** `POST /api/v1/admin/accounts` `name`, in characters (UTF-16 code units, as JavaScript counts them). */
export const MAX_ACCOUNT_NAME_CHARS = 256;
/** `modelId`, `titleField`, `tagsField` of the relevance trigger config (enforced by @relevance/core). */
export const MAX_TRIGGER_CONFIG_STRING_CHARS = 256;

// The customer settings' bounds live in @relevance/settings (settings-limits.ts), beside their check;
// their rows are below.

// --- documents ---

/** One document as stored (UTF-8 JSON bytes). */
export const MAX_DOCUMENT_BYTES = 100 * 1024;
/** One string value anywhere in a document (UTF-8 bytes). */
export const MAX_DOCUMENT_STRING_BYTES = 64 * 1024;
/** Distinct fields of one document, nested ones counted by their dotted name (`variants.sku`), array positions not. */
export const MAX_DOCUMENT_FIELDS = 1000;
/** Levels of objects and arrays in one document; the document itself is level 1. */
export const MAX_DOCUMENT_DEPTH = 20;
/**
 * Documents in one upload (`POST …/documents`): the batch Meilisearch's clients send
 * (`addDocumentsInBatches`' default), so a 100,000-product catalogue is a hundred requests. Storing
 * a batch is one transaction on the shared event loop: about 20 ms for a thousand products, ten
 * times that for ten thousand.
 */
export const MAX_DOCUMENTS_PER_BATCH = 1000;
/** Rejected documents listed in one upload's answer; `received - accepted` is the total. */
export const MAX_REJECTED_LISTED = 100;
/** Problems listed in one 422's `details` (the message gives the total): every route's one bound. */
export const MAX_DETAILS = MAX_ERROR_DETAILS;

// --- request-wide ---

/** Objects and arrays nested deeper than this in any JSON body but a documents upload: 422. */
export const MAX_JSON_DEPTH = 32;
/** Characters of `Authorization` / `x-api-key` looked at; longer is refused (401) before hashing. */
export const MAX_CREDENTIAL_CHARS = 512;
/** Failed authentications one client address may make per window before it gets 429. */
export const AUTH_FAILURES_PER_ADDRESS = 20;
/** Failed authentications per credential prefix (its first 8 characters) per window. */
export const AUTH_FAILURES_PER_PREFIX = 50;
/** The failed-authentication window, in milliseconds. */
export const AUTH_WINDOW_MS = 60_000;
/** Index, alias and primary key names (`[A-Za-z0-9_-]{1,64}`). */
export const MAX_NAME_CHARS = 64;
/** A document id given as a string (`[A-Za-z0-9_-]{1,511}`, as Meilisearch accepts). */
export const MAX_DOCUMENT_ID_CHARS = 511;
/** Documents per `GET …/documents` page (`limit`). */
export const MAX_PAGE_LIMIT = 1000;

/**
 * The Lambda deployment ({env}-CustomerApi): Lambda takes and answers at most 6 MB, API Gateway
 * included. A documents page is bounded a little under it (`maxResponseBytes`), and an upload's
 * default limit leaves room for the event's envelope.
 */
export const LAMBDA_MAX_RESPONSE_BYTES = 5_500_000;
export const LAMBDA_DOCUMENTS_BODY_BYTES = 5 * 1024 * 1024;

/**
 * The limits table of the admin and customer APIs for the given body limits (the defaults unless
 * configured): areas `admin`, `customer`, `customer settings`, `documents` and `tasks`.
 */
export function adminLimitRows(body: BodyLimits = DEFAULT_BODY_LIMITS): LimitRow[] {
  const nesting = `JSON nesting; keys named __proto__, constructor or prototype are refused anywhere (422)`;
  const throttle = (header: string): LimitRow => ({
    area: "",
    field: header,
    limit: AUTH_FAILURES_PER_ADDRESS,
    unit: "per minute",
    status: 429,
    note: `failed authentications per client address, then 429 with Retry-After until the minute ends (except a credential that already worked from that address); one budget per address with the search and monitor APIs in npm start; also ${AUTH_FAILURES_PER_PREFIX} per credential prefix (wrong credentials only: a correct one is never refused by it); a credential over ${MAX_CREDENTIAL_CHARS} characters is refused (401) unread`,
  });
  const rejected =
    "the document is rejected and listed in `rejected` with the reason; the rest of the batch is stored (202)";
  const settingsList = (field: string): LimitRow[] => [
    { area: "customer settings", field, limit: MAX_ATTRIBUTES, unit: "items", status: 422 },
    {
      area: "customer settings",
      field: `${field}[]`,
      limit: MAX_ATTRIBUTE_CHARS,
      unit: "characters",
      status: 422,
      note: "each attribute name, 1 or more characters, no control characters",
    },
  ];
  return [
    {
      area: "admin",
      field: "body",
      limit: body.jsonBodyBytes,
      unit: "bytes",
      status: 413,
      note: "every admin body; checked from Content-Length before reading, or while reading",
      env: BODY_LIMIT_ENV.jsonBodyBytes,
    },
    { area: "admin", field: "body", limit: MAX_JSON_DEPTH, unit: "levels", status: 422, note: nesting },
    { ...throttle("Authorization"), area: "admin" },
    {
      area: "admin",
      field: "name",
      limit: MAX_ACCOUNT_NAME_CHARS,
      unit: "characters",
      status: 422,
      note: "POST /api/v1/admin/accounts; no control characters",
    },
    {
      area: "admin",
      field: "relevanceTriggerConfig.modelId",
      limit: MAX_TRIGGER_CONFIG_STRING_CHARS,
      unit: "characters",
      status: 422,
      note: "a model id of another account (<other_account>:<index>:v<n>) is refused too",
    },
    {
      area: "admin",
      field: "relevanceShadowConfig.modelId",
      limit: MAX_SHADOW_MODEL_ID_CHARS,
      unit: "characters",
      status: 422,
      note: "the shadow model; a model id of another account is refused too",
    },
    {
      area: "admin",
      field: "relevanceTriggerConfig.titleField",
      limit: MAX_TRIGGER_CONFIG_STRING_CHARS,
      unit: "characters",
      status: 422,
    },
    {
      area: "admin",
      field: "relevanceTriggerConfig.tagsField",
      limit: MAX_TRIGGER_CONFIG_STRING_CHARS,
      unit: "characters",
      status: 422,
    },
    {
      area: "customer",
      field: "body",
      limit: body.jsonBodyBytes,
      unit: "bytes",
      status: 413,
      note: "every customer body but a documents upload",
      env: BODY_LIMIT_ENV.jsonBodyBytes,
    },
    { area: "customer", field: "body", limit: MAX_JSON_DEPTH, unit: "levels", status: 422, note: nesting },
    { ...throttle("x-api-key"), area: "customer" },
    {
      area: "customer",
      field: "name",
      limit: MAX_NAME_CHARS,
      unit: "characters",
      status: 422,
      note: "index name, [A-Za-z0-9_-]",
    },
    {
      area: "customer",
      field: "primaryKey",
      limit: MAX_NAME_CHARS,
      unit: "characters",
      status: 422,
      note: "[A-Za-z0-9_-]",
    },
    {
      area: "customer",
      field: "alias",
      limit: MAX_NAME_CHARS,
      unit: "characters",
      status: 422,
      note: "PUT /api/v1/aliases/{alias}: the alias name and its body's index",
    },
    {
      area: "customer",
      field: "limit",
      limit: MAX_PAGE_LIMIT,
      unit: "items",
      status: 422,
      note: "GET /api/v1/indexes/{name}/documents; the page is streamed a few documents at a time, never held whole",
    },
    {
      area: "customer",
      field: "limit",
      limit: LAMBDA_MAX_RESPONSE_BYTES,
      unit: "bytes",
      status: 422,
      note: "{env}-CustomerApi (Lambda) only: a documents page over Lambda's response bound answers response_too_large with a limit that fits",
    },
    {
      area: "customer",
      field: "body",
      limit: LAMBDA_DOCUMENTS_BODY_BYTES,
      unit: "bytes",
      status: 413,
      note: "{env}-CustomerApi (Lambda) only: the documents upload's default there, lower since Lambda takes at most 6 MB (MAX_DOCUMENTS_BODY_BYTES still sets it); batch larger uploads",
    },
    ...settingsList("searchableAttributes"),
    ...settingsList("displayedAttributes"),
    ...settingsList("filterableAttributes"),
    ...settingsList("sortableAttributes"),
    {
      area: "customer settings",
      field: "synonyms",
      limit: MAX_SYNONYM_KEYS,
      unit: "items",
      status: 422,
      note: "keys (words with synonyms)",
    },
    {
      area: "customer settings",
      field: "synonyms.<word>",
      limit: MAX_SYNONYM_WORDS,
      unit: "words",
      status: 422,
      note: "synonyms of one word",
    },
    {
      area: "customer settings",
      field: "synonyms.<word>[]",
      limit: MAX_WORD_CHARS,
      unit: "characters",
      status: 422,
      note: "each key and each synonym, 1 or more characters, no control characters",
    },
    { area: "customer settings", field: "stopWords", limit: MAX_STOP_WORDS, unit: "words", status: 422 },
    {
      area: "customer settings",
      field: "stopWords[]",
      limit: MAX_WORD_CHARS,
      unit: "characters",
      status: 422,
      note: "each stop word",
    },
    {
      area: "customer settings",
      field: "typoTolerance.disableOnWords",
      limit: MAX_TYPO_DISABLED_WORDS,
      unit: "words",
      status: 422,
      note: `each word 1 to ${MAX_WORD_CHARS} characters and one word`,
    },
    {
      area: "customer settings",
      field: "typoTolerance.minWordSizeForTypos.*",
      limit: MAX_TYPO_WORD_SIZE,
      unit: "characters",
      status: 422,
      note: "oneTypo and twoTypos: whole numbers from 0, oneTypo at most twoTypos",
    },
    {
      area: "customer settings",
      field: "rankingRules",
      limit: MAX_RANKING_RULES,
      unit: "items",
      status: 422,
      note: 'only the default ["words","typo","proximity","attribute","sort","exactness"] is accepted, with "sort" at any position',
    },
    {
      area: "customer settings",
      field: "settings",
      limit: MAX_SETTINGS_BYTES,
      unit: "bytes",
      status: 422,
      note: "the eight settings together as stored (UTF-8 JSON) after the PATCH is applied: the record must stay one DynamoDB item and cheap to read at search time",
    },
    {
      area: "documents",
      field: "body",
      limit: body.documentsBodyBytes,
      unit: "bytes",
      status: 413,
      note: "POST /api/v1/indexes/{name}/documents",
      env: BODY_LIMIT_ENV.documentsBodyBytes,
    },
    {
      area: "documents",
      field: "body",
      limit: MAX_DOCUMENTS_PER_BATCH,
      unit: "items",
      status: 422,
      note: "documents in one POST /api/v1/indexes/{name}/documents, counted in the body's text before it is parsed; nothing of a larger batch is stored (as Meilisearch's clients batch them)",
    },
    {
      area: "documents",
      field: "index",
      limit: MAX_DOCUMENTS_PER_INDEX,
      unit: "items",
      status: 422,
      note: "documents one index holds where npm start keeps them (SQLite and the embedded engine): a batch that would take the index past it is refused whole, nothing stored (a task that would, fails with index_documents_limit_exceeded); with Meilisearch behind the API, Meilisearch's own",
    },
    {
      area: "documents",
      field: "[i].<primaryKey>",
      limit: MAX_DOCUMENT_ID_CHARS,
      unit: "characters",
      status: 422,
      note: "a string id of [A-Za-z0-9_-], or a non-negative integer; a missing or bad id refuses the whole batch (nothing stored), and so does a key named __proto__, constructor or prototype at any depth",
    },
    {
      area: "documents",
      field: "[i]",
      limit: MAX_DOCUMENT_BYTES,
      unit: "bytes",
      status: 0,
      note: `one document as stored (UTF-8 JSON); ${rejected}`,
    },
    {
      area: "documents",
      field: "[i].<field>",
      limit: MAX_DOCUMENT_STRING_BYTES,
      unit: "bytes",
      status: 0,
      note: `each string value at any depth (UTF-8); ${rejected}`,
    },
    {
      area: "documents",
      field: "[i]",
      limit: MAX_DOCUMENT_FIELDS,
      unit: "items",
      status: 0,
      note: `distinct fields of one document, nested ones by dotted name (variants.sku); ${rejected}`,
    },
    {
      area: "documents",
      field: "[i]",
      limit: MAX_DOCUMENT_DEPTH,
      unit: "levels",
      status: 0,
      note: `objects and arrays nested in one document, the document being level 1; ${rejected}`,
    },
    {
      area: "documents",
      field: "rejected",
      limit: MAX_REJECTED_LISTED,
      unit: "items",
      status: 0,
      note: "rejected documents listed in one answer; received - accepted is the total",
    },
    ...KEY_LIMIT_ROWS,
    ...managementLimitRows(MAX_ATTRIBUTE_CHARS),
    ...QUALITY_LIMIT_ROWS,
    ...TRAINING_LIMIT_ROWS,
  ];
}

/** The limits table with the default body limits. */
export const ADMIN_LIMITS: LimitRow[] = adminLimitRows();
