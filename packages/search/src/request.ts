import { describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "@relevance/core";

/** The body of `POST /api/v1/indexes/{index}/search`, validated, defaults applied. */
export interface SearchRequest {
  q: string;
  limit: number;
  offset: number;
  filter: string | undefined;
  relevanceScore: boolean;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;
const KNOWN = new Set(["q", "limit", "offset", "filter", "relevanceScore"]);

/** Validates a parsed JSON body; every problem is reported, each naming its field. */
export function parseSearchRequest(input: unknown): Result<SearchRequest> {
  if (!isPlainObject(input)) return fail([issue("", `must be a JSON object, got ${describeType(input)}`)]);
  const errors: Issue[] = [];
  for (const key of Object.keys(input)) {
    if (!KNOWN.has(key)) errors.push(issue(key, "is not a known field"));
  }

  const { q, limit, offset, filter, relevanceScore } = input;
  if (q === undefined) errors.push(issue("q", "is required"));
  else if (typeof q !== "string") errors.push(issue("q", `must be a string, got ${describeType(q)}`));

  if (
    limit !== undefined &&
    !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= MAX_LIMIT)
  ) {
    errors.push(issue("limit", `must be an integer from 1 to ${MAX_LIMIT}, got ${shown(limit)}`));
  }
  if (offset !== undefined && !(Number.isSafeInteger(offset) && (offset as number) >= 0)) {
    errors.push(issue("offset", `must be an integer of at least 0, got ${shown(offset)}`));
  }
  if (filter !== undefined && typeof filter !== "string") {
    errors.push(issue("filter", `must be a string, got ${describeType(filter)}`));
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

/** A number as written; anything else by its type. */
const shown = (value: unknown): string =>
  typeof value === "number" && Number.isFinite(value) ? String(value) : describeType(value);
