import type { Issue } from "@relevance/core";
import { ApiError } from "./errors.ts";

/** Keys that reach `Object.prototype` when a map is copied or merged naively (docs/limits.md). */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Default bound on how deeply a request's JSON may nest (objects and arrays). */
export const DEFAULT_MAX_JSON_DEPTH = 32;

export interface JsonShapeLimits {
  /** Objects and arrays nested deeper than this are refused. Default 32. */
  maxDepth?: number;
}

/**
 * Checks a parsed JSON value for keys named `__proto__`, `constructor` or `prototype` (anywhere) and
 * for nesting beyond `maxDepth`. Iterative, so a value nested a million levels deep costs a loop,
 * not the stack; it stops at the first nesting problem and reports at most 20 forbidden keys.
 */
export function checkJsonShape(value: unknown, limits: JsonShapeLimits = {}): Issue[] {
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const issues: Issue[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: "", depth: 0 }];
  while (stack.length > 0 && issues.length < 20) {
    const item = stack.pop() as { value: unknown; path: string; depth: number };
    const v = item.value;
    if (typeof v !== "object" || v === null) continue;
    if (item.depth >= maxDepth) {
      issues.push({ path: item.path, message: `nests deeper than the limit of ${maxDepth} levels` });
      break;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i], path: `${item.path}[${i}]`, depth: item.depth + 1 });
      }
      continue;
    }
    for (const key of Object.keys(v)) {
      const path = item.path === "" ? key : `${item.path}.${key}`;
      if (FORBIDDEN_KEYS.has(key)) {
        issues.push({ path, message: `the key "${key}" is not allowed` });
        continue;
      }
      stack.push({ value: (v as Record<string, unknown>)[key], path, depth: item.depth + 1 });
    }
  }
  return issues;
}

/** Throws the 422 for a body whose shape `checkJsonShape` refuses; returns the value otherwise. */
export function assertJsonShape<T>(value: T, limits: JsonShapeLimits = {}): T {
  const issues = checkJsonShape(value, limits);
  if (issues.length > 0) {
    throw new ApiError(422, "validation_failed", "the request body has a forbidden shape", issues);
  }
  return value;
}
