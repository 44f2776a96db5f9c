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
  unit:
    | "bytes"
    | "characters"
    | "items"
    | "levels"
    | "words"
    | "per second"
    | "per minute"
    | "minutes"
    | "days"
    | "MB"
    | "percent";
  /** The status a request beyond it gets (or `0` when it is not a request: a document's task fails, say). */
  status: 400 | 413 | 422 | 429 | 431 | 0;
  /** What happens beyond it, when the status alone does not say (truncation, a failed task, ...). */
  note?: string;
  /** The environment variable that changes it, when there is one. */
  env?: string;
}
