import { describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "@relevance/core";
import { MAX_FILTER_CHARS, MAX_FILTER_DEPTH, MAX_LIMIT, MAX_OFFSET, MAX_QUERY_CHARS } from "./limits.ts";

/** The body of `POST /api/v1/indexes/{index}/search`, validated, defaults applied. */
export interface SearchRequest {
  q: string;
  limit: number;
  offset: number;
  filter: string | undefined;
  relevanceScore: boolean;
}

export const DEFAULT_LIMIT = 20;
export { MAX_LIMIT };

const KNOWN = new Set(["q", "limit", "offset", "filter", "relevanceScore"]);

/**
 * Validates a parsed JSON body; every problem is reported, each naming its field. Every size bound
 * (docs/limits.md) is checked here, before any tokenizing, parsing or backend work.
 */
export function parseSearchRequest(input: unknown): Result<SearchRequest> {
  if (!isPlainObject(input)) return fail([issue("", `must be a JSON object, got ${describeType(input)}`)]);
  const errors: Issue[] = [];
  for (const key of Object.keys(input)) {
    if (!KNOWN.has(key)) errors.push(issue(key, "is not a known field"));
  }

  const { q, limit, offset, filter, relevanceScore } = input;
  if (q === undefined) errors.push(issue("q", "is required"));
  else if (typeof q !== "string") errors.push(issue("q", `must be a string, got ${describeType(q)}`));
  else if (q.length > MAX_QUERY_CHARS) {
    errors.push(issue("q", `must be at most ${MAX_QUERY_CHARS} characters, got ${q.length}`));
  }

  if (
    limit !== undefined &&
    !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= MAX_LIMIT)
  ) {
    errors.push(issue("limit", `must be an integer from 1 to ${MAX_LIMIT}, got ${shown(limit)}`));
  }
  if (
    offset !== undefined &&
    !(Number.isSafeInteger(offset) && (offset as number) >= 0 && (offset as number) <= MAX_OFFSET)
  ) {
    errors.push(issue("offset", `must be an integer from 0 to ${MAX_OFFSET}, got ${shown(offset)}`));
  }
  if (filter !== undefined && typeof filter !== "string") {
    errors.push(issue("filter", `must be a string, got ${describeType(filter)}`));
  } else if (typeof filter === "string") {
    if (filter.length > MAX_FILTER_CHARS) {
      errors.push(issue("filter", `must be at most ${MAX_FILTER_CHARS} characters, got ${filter.length}`));
    } else if (filterDepthExceeds(filter, MAX_FILTER_DEPTH)) {
      errors.push(
        issue("filter", `nests deeper than the limit of ${MAX_FILTER_DEPTH} levels (parentheses and NOT)`),
      );
    }
  }
  if (relevanceScore !== undefined && typeof relevanceScore !== "boolean") {
    errors.push(issue("relevanceScore", `must be a boolean, got ${describeType(relevanceScore)}`));
  }
  if (errors.length > 0) return fail(errors);
  return ok({
    q: q as string,
    limit: (limit as number | undefined) ?? DEFAULT_LIMIT,
    offset: (offset as number | undefined) ?? 0,
    filter: filter as string | undefined,
    relevanceScore: relevanceScore === true,
  });
}

/** Characters that end a bare word of a filter (as in the embedded engine's lexer). */
const isWordEnd = (c: string): boolean =>
  c === "(" || c === ")" || c === "[" || c === "]" || c === "," || c === '"' || c === "'" || /\s/u.test(c);

/**
 * Whether a filter nests deeper than `max`, counting each open parenthesis and each `NOT` whose
 * operand has not ended yet (`NOT NOT (NOT a = 1)` is 4 deep). Quoted text does not count. It
 * looks at every character once and stops at the first level beyond `max`, so it is safe to run on
 * any string before a recursive parser (or the backend) sees it. Syntax errors are not its
 * business: an unbalanced filter is left to the parser.
 */
export function filterDepthExceeds(source: string, max: number): boolean {
  // pending[level]: NOTs at this parenthesis level still waiting for their operand to end.
  const pending: number[] = [0];
  let depth = 0;
  for (let i = 0; i < source.length; ) {
    const c = source.charAt(i);
    if (c === '"' || c === "'") {
      i++;
      while (i < source.length && source.charAt(i) !== c) i += source.charAt(i) === "\\" ? 2 : 1;
      i++;
    } else if (c === "(") {
      pending.push(0);
      if (++depth > max) return true;
      i++;
    } else if (c === ")") {
      if (pending.length > 1) depth -= 1 + (pending.pop() as number);
      i++;
    } else if (isWordEnd(c)) {
      i++;
    } else {
      const start = i;
      while (i < source.length && !isWordEnd(source.charAt(i))) i++;
      const word = source.slice(start, i).toUpperCase();
      const level = pending.length - 1;
      if (word === "NOT") {
        pending[level] = (pending[level] as number) + 1;
        if (++depth > max) return true;
      } else if (word === "AND" || word === "OR") {
        // The operands of the NOTs before this keyword have ended.
        depth -= pending[level] as number;
        pending[level] = 0;
      }
    }
  }
  return false;
}

/** A number as written; anything else by its type. */
const shown = (value: unknown): string =>
  typeof value === "number" && Number.isFinite(value) ? String(value) : describeType(value);
