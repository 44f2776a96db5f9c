// Validation results are the kernel's: every validator of both systems returns the same shape.
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
} from "@shared/kernel";
