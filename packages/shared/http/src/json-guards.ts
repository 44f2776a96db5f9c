import type { Issue } from "@shared/kernel";
import { ApiError } from "./errors.ts";

/** Keys that reach `Object.prototype` when a map is copied or merged naively (docs/limits.md). */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Default bound on how deeply a request's JSON may nest (objects and arrays). */
export const DEFAULT_MAX_JSON_DEPTH = 32;

/**
 * The most keys any one object of a JSON text has, counted in the text itself (one pass, strings
 * and escapes skipped, nesting on an explicit stack): a body of 90,000 keys can be refused before
 * it is parsed (parsing it, and validating every key, held the event loop for 150 ms). The text
 * need not be valid JSON; the parser says what else is wrong with it.
 */
export function maxJsonObjectKeys(text: string): number {
  // Per open object or array (innermost last): its keys so far, or -1 for an array.
  const open: number[] = [];
  let most = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b /* { */) open.push(0);
    else if (c === 0x5b /* [ */) open.push(-1);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) open.pop();
    else if (c === 0x3a /* : */ && open.length > 0) {
      const keys = (open[open.length - 1] as number) + 1;
      if (keys > 0) {
        open[open.length - 1] = keys;
        if (keys > most) most = keys;
      }
    }
  }
  return most;
}

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
  // Paths are built only for an issue (from each item's parent chain): a 1,000-record batch has
  // tens of thousands of values, and a string per value was most of the check's cost.
  const stack: ShapeItem[] = [{ value, parent: null, key: "", depth: 0 }];
  while (stack.length > 0 && issues.length < 20) {
    const item = stack.pop() as ShapeItem;
    const v = item.value;
    if (typeof v !== "object" || v === null) continue;
    if (item.depth >= maxDepth) {
      issues.push({ path: shapePath(item), message: `nests deeper than the limit of ${maxDepth} levels` });
      break;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const child = v[i];
        if (typeof child === "object" && child !== null)
          stack.push({ value: child, parent: item, key: i, depth: item.depth + 1 });
      }
      continue;
    }
    for (const key of Object.keys(v)) {
      if (FORBIDDEN_KEYS.has(key)) {
        issues.push({
          path: appendKey(shapePath(item), key),
          message: `the key "${key}" is not allowed`,
        });
        continue;
      }
      const child = (v as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null)
        stack.push({ value: child, parent: item, key, depth: item.depth + 1 });
    }
  }
  return issues;
}

/** A value met by checkJsonShape: where it sits (its parent and key) and how deep. */
interface ShapeItem {
  value: unknown;
  parent: ShapeItem | null;
  key: string | number;
  depth: number;
}

/** `a.b[2].c` for an item: the same path the issue would have named were paths built eagerly. */
function shapePath(item: ShapeItem): string {
  const keys: (string | number)[] = [];
  for (let at: ShapeItem | null = item; at !== null && at.parent !== null; at = at.parent) keys.push(at.key);
  return keys.reduceRight<string>(appendKey, "");
}

/** `path` followed by an array index (`[2]`) or an object key (`.c`, or `c` at the top). */
function appendKey(path: string, key: string | number): string {
  return typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`;
}

/** Throws the 422 for a body whose shape `checkJsonShape` refuses; returns the value otherwise. */
export function assertJsonShape<T>(value: T, limits: JsonShapeLimits = {}): T {
  const issues = checkJsonShape(value, limits);
  if (issues.length > 0) {
    throw new ApiError(422, "validation_failed", "the request body has a forbidden shape", issues);
  }
  return value;
}
