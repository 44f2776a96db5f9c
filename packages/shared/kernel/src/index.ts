export { type Settled, settleWithin, TimeoutError, withDeadline, withTimeout } from "./deadline.ts";
export { errorMessage } from "./error-message.ts";
export { jsonBytes, jsonStringBytes } from "./json-size.ts";
export type { LimitRow } from "./limit-row.ts";
export type { Logger } from "./logger.ts";
export {
  at,
  describeType,
  fail,
  formatIssues,
  type Issue,
  isPlainObject,
  issue,
  ok,
  type Result,
} from "./result.ts";
export { mulberry32 } from "./seeded-random.ts";
export { USAGE_EXIT, UserError } from "./user-error.ts";
