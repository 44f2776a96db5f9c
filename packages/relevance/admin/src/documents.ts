import { at, describeType, type Issue, isPlainObject, issue } from "@relevance/core";
import { FORBIDDEN_KEYS, formatBytes, shortPath } from "@shared/http";
import { jsonStringBytes } from "@shared/kernel";
import {
  MAX_DETAILS,
  MAX_DOCUMENT_BYTES,
  MAX_DOCUMENT_DEPTH,
  MAX_DOCUMENT_FIELDS,
  MAX_DOCUMENT_ID_CHARS,
  MAX_DOCUMENT_STRING_BYTES,
  MAX_REJECTED_LISTED,
} from "./limits.ts";
import type { Document } from "./ports.ts";

/** Document ids as Meilisearch accepts them: a string of these characters, or a non-negative integer. */
const DOCUMENT_ID = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_DOCUMENT_ID_CHARS}}$`);

/** A document of an upload that was not stored because it is over a per-document limit. */
export interface RejectedDocument {
  /** Its position in the uploaded array. */
  index: number;
  /** Its primary key value. */
  id: string | number;
  /** The place of the problem, in the same syntax as a 422's details (`[3]`, `[3].description`). */
  path: string;
  /** What is over which limit. */
  reason: string;
}

export type DocumentsCheck =
  /** The batch is well formed: `docs` are within every limit, `rejected` lists (at most 100 of) the others. */
  | { ok: true; docs: Document[]; rejected: RejectedDocument[] }
  /** The batch itself is malformed: nothing is stored. */
  | { ok: false; errors: Issue[]; total: number };

/**
 * A documents upload: an array of objects, each with its primary key as a string or an integer, and
 * no key named `__proto__`, `constructor` or `prototype` at any depth. A batch that breaks one of
 * these rules is refused whole (every problem named by its place, `[3].id`; at most 100 listed).
 * In a well-formed batch each document is then held to the per-document limits (size as stored,
 * size of each string, distinct fields, nesting); one over a limit is rejected with its reason and
 * the rest are kept, as a task of that document would fail in Meilisearch.
 */
export function validateDocuments(input: unknown, primaryKey: string): DocumentsCheck {
  if (!Array.isArray(input)) {
    return {
      ok: false,
      errors: [issue("", `must be an array of objects, got ${describeType(input)}`)],
      total: 1,
    };
  }
  const errors: Issue[] = [];
  let total = 0;
  const report = (path: string, message: string) => {
    total++;
    if (errors.length < MAX_DETAILS) errors.push(issue(shortPath(path), message));
  };
  const docs: Document[] = [];
  const rejected: RejectedDocument[] = [];
  for (const [i, doc] of (input as unknown[]).entries()) {
    if (!isPlainObject(doc)) {
      report(at("", i), `must be an object, got ${describeType(doc)}`);
      continue;
    }
    const path = at(at("", i), primaryKey);
    const id = doc[primaryKey];
    if (id === undefined) report(path, "is required (the index's primary key)");
    else if (typeof id === "number") {
      if (!Number.isSafeInteger(id) || id < 0) report(path, "must be a non-negative integer or a string");
    } else if (typeof id !== "string")
      report(path, `must be a string or an integer, got ${describeType(id)}`);
    else if (!DOCUMENT_ID.test(id)) {
      report(path, `must be 1 to ${MAX_DOCUMENT_ID_CHARS} characters of A-Z, a-z, 0-9, _ and -`);
    }
    const { forbidden, problem } = inspectDocument(doc, at("", i));
    for (const key of forbidden) report(key.path, key.message);
    if (problem === null) docs.push(doc);
    else if (rejected.length < MAX_REJECTED_LISTED) {
      rejected.push({ index: i, id: id as string | number, ...problem });
    }
  }
  return total === 0 ? { ok: true, docs, rejected } : { ok: false, errors, total };
}

interface Node {
  value: unknown;
  /** Levels of objects and arrays down to and including this value's container; the document is 1. */
  depth: number;
  /** The dotted field name, array positions left out (`variants.sku`): how a search engine counts fields. */
  field: string;
  key: string | number | null;
  parent: Node | null;
}

/** `[3].variants[2].sku`, built only when a problem needs naming. */
function nodePath(node: Node, base: string): string {
  const keys: (string | number)[] = [];
  for (let n: Node | null = node; n !== null && n.key !== null; n = n.parent) keys.push(n.key);
  return keys.reduceRight<string>((path, key) => at(path, key), base);
}

/**
 * One walk over a document (iterative: depth costs no stack): the first per-document limit it is
 * over, and every forbidden key. Counting stops at the first problem; the walk goes on only to
 * find forbidden keys, and never below the depth limit, so its cost stays within the body's size.
 */
export function inspectDocument(
  doc: Record<string, unknown>,
  base: string,
): { forbidden: Issue[]; problem: { path: string; reason: string } | null } {
  const forbidden: Issue[] = [];
  let problem: { path: string; reason: string } | null = null;
  let bytes = 0;
  const fields = new Set<string>();
  const stack: Node[] = [{ value: doc, depth: 1, field: "", key: null, parent: null }];
  const over = (node: Node, reason: string) => {
    problem ??= { path: shortPath(nodePath(node, base)), reason };
  };
  /** Counts a scalar in place (no stack entry: most values are scalars); false for an object or array. */
  const scalar = (v: unknown, parent: Node, key: string | number): boolean => {
    if (typeof v === "string") {
      const size = jsonStringBytes(v);
      bytes += size;
      if (size - 2 > MAX_DOCUMENT_STRING_BYTES) {
        over(
          { value: v, depth: parent.depth + 1, field: "", key, parent },
          `is ${size - 2} bytes, more than the limit of ${formatBytes(MAX_DOCUMENT_STRING_BYTES)} for one value`,
        );
      }
    } else if (typeof v === "number") bytes += String(v).length;
    else if (typeof v === "boolean") bytes += v ? 4 : 5;
    else if (v === null) bytes += 4;
    else return false;
    return true;
  };
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const v = node.value as object;
    if (node.depth > MAX_DOCUMENT_DEPTH) {
      over(node, `nests deeper than the limit of ${MAX_DOCUMENT_DEPTH} levels`);
      continue;
    }
    if (Array.isArray(v)) {
      bytes += 2 + Math.max(0, v.length - 1);
      for (let i = v.length - 1; i >= 0; i--) {
        if (!scalar(v[i], node, i)) {
          stack.push({ value: v[i], depth: node.depth + 1, field: node.field, key: i, parent: node });
        }
      }
    } else {
      const keys = Object.keys(v);
      bytes += 2 + Math.max(0, 2 * keys.length - 1);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const value = (v as Record<string, unknown>)[key];
        if (FORBIDDEN_KEYS.has(key)) {
          if (forbidden.length < MAX_DETAILS) {
            const at: Node = { value, depth: node.depth + 1, field: "", key, parent: node };
            forbidden.push(issue(shortPath(nodePath(at, base)), `the key "${key}" is not allowed`));
          }
          continue;
        }
        bytes += jsonStringBytes(key);
        const field = node.field === "" ? key : `${node.field}.${key}`;
        if (problem === null) {
          fields.add(field);
          if (fields.size > MAX_DOCUMENT_FIELDS) {
            over(
              node,
              `has more than the limit of ${MAX_DOCUMENT_FIELDS} distinct fields (nested ones by dotted name)`,
            );
          }
        }
        if (!scalar(value, node, key)) {
          stack.push({ value, depth: node.depth + 1, field, key, parent: node });
        }
      }
    }
    if (problem === null && bytes > MAX_DOCUMENT_BYTES) {
      over(
        { value: doc, depth: 1, field: "", key: null, parent: null },
        `is larger than the limit of ${formatBytes(MAX_DOCUMENT_BYTES)} as stored (UTF-8 JSON)`,
      );
    }
  }
  return { forbidden, problem };
}
