/**
 * One row of the limits table (docs/limits.md, and `x-limits` in the OpenAPI document). Each package
 * that checks input exports its rows from its `limits.ts`, next to the constants it enforces, so the
 * documented value and the enforced one are the same number.
 */
export interface LimitRow {
  /** Where it applies: `search`, `admin`, `customer settings`, `documents`, `monitor`, `model artifact`, ... */
  area: string;
  /** The request field or part it bounds, as named in the error's `details[].path` (`q`, `filter`, `body`). */
  field: string;
  /** The bound itself. */
  limit: number;
  unit: "bytes" | "characters" | "items" | "levels" | "words" | "per minute" | "minutes" | "MB";
  /** The status a request beyond it gets (or `0` when it is not a request: a document's task fails, say). */
  status: 400 | 413 | 422 | 429 | 0;
  /** What happens beyond it, when the status alone does not say (truncation, a failed task, ...). */
  note?: string;
  /** The environment variable that changes it, when there is one. */
  env?: string;
}

/** Bounds every HTTP surface shares (the failed-authentication throttle and JSON nesting). */
export const HTTP_LIMITS: readonly LimitRow[] = [
  {
    area: "every route",
    field: "JSON nesting",
    limit: 32,
    unit: "levels",
    status: 422,
    note: "objects and arrays nested deeper than this are refused before validation",
  },
  {
    area: "every route",
    field: 'keys "__proto__", "constructor", "prototype"',
    limit: 0,
    unit: "items",
    status: 422,
    note: "refused anywhere in a JSON body (maps of synonyms, documents, configs), never dropped silently",
  },
  {
    area: "authentication",
    field: "failed attempts per client address",
    limit: 20,
    unit: "per minute",
    status: 429,
    note: "admin token, API key, monitor token and /system login; `Retry-After` says when to retry; correct credentials from other addresses are not slowed",
  },
  {
    area: "authentication",
    field: "failed attempts per credential prefix (first 8 characters)",
    limit: 50,
    unit: "per minute",
    status: 429,
    note: "stops guessing the rest of a key whose prefix is known (keys are shown as `rk_rW9X…`)",
  },
];
