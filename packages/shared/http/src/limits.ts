import type { LimitRow } from "@shared/kernel";

export type { LimitRow };

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
