import { at, describeType, type Issue, isPlainObject, issue } from "@relevance/core";
import type { Document } from "./ports.ts";

/** Document ids as Meilisearch accepts them: a string of these characters, or a non-negative integer. */
const DOCUMENT_ID = /^[A-Za-z0-9_-]{1,511}$/;
const MAX_DETAILS = 100;

/**
 * A documents upload: an array of objects, each with its primary key as a string or an integer.
 * Every problem is named by its place (`[3].id`); at most 100 are listed.
 */
export function validateDocuments(
  input: unknown,
  primaryKey: string,
): { ok: true; docs: Document[] } | { ok: false; errors: Issue[]; total: number } {
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
    if (errors.length < MAX_DETAILS) errors.push(issue(path, message));
  };
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
    else if (!DOCUMENT_ID.test(id)) report(path, "must be 1 to 511 characters of A-Z, a-z, 0-9, _ and -");
  }
  return total === 0 ? { ok: true, docs: input as Document[] } : { ok: false, errors, total };
}
