// The bounds of API keys and of an account's CORS origins (docs/limits.md), enforced by schemas.ts
// and the key routes; the rows below are built from the same constants.

import { API_KEY_ACTIONS } from "@relevance/settings";
import type { LimitRow } from "@shared/http";

/** Keys of one account, the default two included: checked before a key is created. */
export const MAX_KEYS_PER_ACCOUNT = 100;
/** A key's `name`, in characters. */
export const MAX_KEY_NAME_CHARS = 255;
/** A key's `description`, in characters. */
export const MAX_KEY_DESCRIPTION_CHARS = 1000;
/** Index names or `prefix*` patterns in a key's `indexes`. */
export const MAX_KEY_INDEXES = 100;
/** One item of `indexes`: an index name (64 characters) and the pattern's `*`. */
export const MAX_KEY_INDEX_PATTERN_CHARS = 65;
/** Items of a key's `actions`: each known action once. */
export const MAX_KEY_ACTIONS = API_KEY_ACTIONS.length;
/** Keys per `GET /keys` page (`limit`). */
export const MAX_KEYS_PAGE_LIMIT = MAX_KEYS_PER_ACCOUNT;
/** Origins in each of the account's CORS lists (`readOrigins`, `writeOrigins`). */
export const MAX_CORS_ORIGINS = 50;
/** One origin (`https://shop.example:8443`), in characters. */
export const MAX_ORIGIN_CHARS = 255;

const keys = "POST /api/v1/keys (and the admin API's keys route)";
export const KEY_LIMIT_ROWS: LimitRow[] = [
  {
    area: "customer",
    field: "keys",
    limit: MAX_KEYS_PER_ACCOUNT,
    unit: "items",
    status: 422,
    note: `API keys per account, the two default keys included; ${keys} beyond it answers 422, nothing written (delete a key first)`,
  },
  { area: "customer", field: "keys.name", limit: MAX_KEY_NAME_CHARS, unit: "characters", status: 422 },
  {
    area: "customer",
    field: "keys.description",
    limit: MAX_KEY_DESCRIPTION_CHARS,
    unit: "characters",
    status: 422,
  },
  {
    area: "customer",
    field: "keys.indexes",
    limit: MAX_KEY_INDEXES,
    unit: "items",
    status: 422,
    note: "index names or prefix* patterns (* for every index)",
  },
  {
    area: "customer",
    field: "keys.indexes[]",
    limit: MAX_KEY_INDEX_PATTERN_CHARS,
    unit: "characters",
    status: 422,
    note: "an index name, or a name's start followed by *",
  },
  {
    area: "customer",
    field: "keys.actions",
    limit: MAX_KEY_ACTIONS,
    unit: "items",
    status: 422,
    note: "each one of Meilisearch's action names (docs/api.md)",
  },
  { area: "customer", field: "keys.limit", limit: MAX_KEYS_PAGE_LIMIT, unit: "items", status: 422 },
  {
    area: "customer",
    field: "cors.readOrigins",
    limit: MAX_CORS_ORIGINS,
    unit: "items",
    status: 422,
    note: "also cors.writeOrigins; PATCH /api/v1/account (and the admin API's account cors route)",
  },
  {
    area: "customer",
    field: "cors.readOrigins[]",
    limit: MAX_ORIGIN_CHARS,
    unit: "characters",
    status: 422,
    note: "also cors.writeOrigins[]; scheme://host[:port] in lower case, or *",
  },
];
