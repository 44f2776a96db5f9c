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
  status: 400 | 413 | 422 | 429 | 431 | 0;
  /** What happens beyond it, when the status alone does not say (truncation, a failed task, ...). */
  note?: string;
  /** The environment variable that changes it, when there is one. */
  env?: string;
}

/** Problems an error answer lists in `details`; its message then gives how many there were. */
export const MAX_ERROR_DETAILS = 100;

/** Bounds every HTTP surface shares (each area's own rows give its body size, nesting and throttle). */
export const HTTP_LIMITS: readonly LimitRow[] = [
  {
    area: "every route",
    field: 'keys "__proto__", "constructor", "prototype"',
    limit: 0,
    unit: "items",
    status: 422,
    note: "refused anywhere in a JSON body (maps of synonyms, documents, configs), never dropped silently",
  },
  {
    area: "every route",
    field: "headers",
    limit: 16 * 1024,
    unit: "bytes",
    status: 431,
    note: "all request headers together, Node's own parser limit (npm start); a request the parser refuses gets the JSON 400; on Lambda and Workers the platform's own limits apply first",
  },
  {
    area: "every route",
    field: "failed-authentication throttle state",
    limit: 10_000,
    unit: "items",
    status: 0,
    note: "client addresses and credential prefixes remembered per service instance, oldest forgotten first",
  },
  {
    area: "every route",
    field: "details",
    limit: MAX_ERROR_DETAILS,
    unit: "items",
    status: 0,
    note: "problems listed in one error answer (the first found); its message says how many there were",
  },
];
