import { describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "@relevance/core";
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTE_LIST,
  MAX_CROP_LENGTH,
  MAX_FACETS,
  MAX_FILTER_CHARS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_ITEMS,
  MAX_HITS_PER_PAGE,
  MAX_LIMIT,
  MAX_OFFSET,
  MAX_PAGE,
  MAX_QUERY_CHARS,
  MAX_SORT,
  MAX_TAG_CHARS,
} from "./limits.ts";
import type { MatchingStrategy, SearchFilter, SearchQuery } from "./ports.ts";

/** The body of `POST /api/v1/indexes/{index}/search`, validated, defaults applied. */
export interface SearchRequest extends SearchQuery {
  q: string;
  limit: number;
  offset: number;
  relevanceScore: boolean;
}

export const DEFAULT_LIMIT = 20;
export const DEFAULT_HITS_PER_PAGE = 20;
export { MAX_LIMIT };

const FIELDS = [
  "q",
  "limit",
  "offset",
  "page",
  "hitsPerPage",
  "filter",
  "sort",
  "facets",
  "attributesToRetrieve",
  "attributesToHighlight",
  "highlightPreTag",
  "highlightPostTag",
  "attributesToCrop",
  "cropLength",
  "cropMarker",
  "showRankingScore",
  "matchingStrategy",
  "relevanceScore",
] as const;
const KNOWN = new Set<string>(FIELDS);
const STRATEGIES: readonly MatchingStrategy[] = ["last", "all", "frequency"];
const SORT_CRITERION = /^(.+):(asc|desc)$/;

/**
 * An array filter as one expression: the outer elements ANDed, an inner array's ORed, each element
 * in parentheses. Blank elements are left out (as Meilisearch ignores them).
 */
export function filterText(filter: SearchFilter): string {
  if (typeof filter === "string") return filter;
  const parts: string[] = [];
  for (const element of filter) {
    const ors = (typeof element === "string" ? [element] : element).filter((e) => e.trim() !== "");
    if (ors.length > 0) parts.push(`(${ors.map((e) => `(${e})`).join(" OR ")})`);
  }
  return parts.join(" AND ");
}

/**
 * Validates a parsed JSON body; every problem is reported, each naming its field. Every size bound
 * (docs/limits.md) is checked here, before any tokenizing, parsing or backend work. `extra` names
 * fields the caller handles itself (multi-search's `indexUid`).
 */
export function parseSearchRequest(input: unknown, extra: readonly string[] = []): Result<SearchRequest> {
  if (!isPlainObject(input)) return fail([issue("", `must be a JSON object, got ${describeType(input)}`)]);
  const errors: Issue[] = [];
  for (const key of Object.keys(input)) {
    if (!KNOWN.has(key) && !extra.includes(key)) errors.push(issue(key, "is not a known field"));
  }

  const { q, limit, offset, page, hitsPerPage, filter, relevanceScore } = input;
  if (q !== undefined && q !== null && typeof q !== "string") {
    errors.push(issue("q", `must be a string, got ${describeType(q)}`));
  } else if (typeof q === "string" && q.length > MAX_QUERY_CHARS) {
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
  if (
    page !== undefined &&
    !(Number.isSafeInteger(page) && (page as number) >= 1 && (page as number) <= MAX_PAGE)
  ) {
    errors.push(issue("page", `must be an integer from 1 to ${MAX_PAGE}, got ${shown(page)}`));
  }
  if (
    hitsPerPage !== undefined &&
    !(
      Number.isSafeInteger(hitsPerPage) &&
      (hitsPerPage as number) >= 0 &&
      (hitsPerPage as number) <= MAX_HITS_PER_PAGE
    )
  ) {
    errors.push(
      issue("hitsPerPage", `must be an integer from 0 to ${MAX_HITS_PER_PAGE}, got ${shown(hitsPerPage)}`),
    );
  }
  checkFilter(filter, errors);
  const sort = attributeList(input, "sort", MAX_SORT, errors);
  for (const [i, criterion] of (sort ?? []).entries()) {
    if (!SORT_CRITERION.test(criterion)) {
      errors.push(
        issue(`sort[${i}]`, `must be \`attribute:asc\` or \`attribute:desc\`, got \`${criterion}\``),
      );
    }
  }
  const facets = attributeList(input, "facets", MAX_FACETS, errors);
  const attributesToRetrieve = attributeList(input, "attributesToRetrieve", MAX_ATTRIBUTE_LIST, errors);
  const attributesToHighlight = attributeList(input, "attributesToHighlight", MAX_ATTRIBUTE_LIST, errors);
  const attributesToCrop = attributeList(input, "attributesToCrop", MAX_ATTRIBUTE_LIST, errors);
  const highlightPreTag = tag(input, "highlightPreTag", errors);
  const highlightPostTag = tag(input, "highlightPostTag", errors);
  const cropMarker = tag(input, "cropMarker", errors);
  const { cropLength, showRankingScore, matchingStrategy } = input;
  if (
    cropLength !== undefined &&
    !(
      Number.isSafeInteger(cropLength) &&
      (cropLength as number) >= 1 &&
      (cropLength as number) <= MAX_CROP_LENGTH
    )
  ) {
    errors.push(
      issue("cropLength", `must be an integer from 1 to ${MAX_CROP_LENGTH}, got ${shown(cropLength)}`),
    );
  }
  if (showRankingScore !== undefined && typeof showRankingScore !== "boolean") {
    errors.push(issue("showRankingScore", `must be a boolean, got ${describeType(showRankingScore)}`));
  }
  if (matchingStrategy !== undefined && !STRATEGIES.includes(matchingStrategy as MatchingStrategy)) {
    errors.push(
      issue(
        "matchingStrategy",
        `must be one of \`last\`, \`all\`, \`frequency\`, got ${describeType(matchingStrategy)}`,
      ),
    );
  }
  if (relevanceScore !== undefined && typeof relevanceScore !== "boolean") {
    errors.push(issue("relevanceScore", `must be a boolean, got ${describeType(relevanceScore)}`));
  }
  if (errors.length > 0) return fail(errors);

  const paged = page !== undefined || hitsPerPage !== undefined;
  const pagination = paged
    ? {
        page: (page as number | undefined) ?? 1,
        hitsPerPage: (hitsPerPage as number | undefined) ?? DEFAULT_HITS_PER_PAGE,
      }
    : undefined;
  const request: SearchRequest = {
    q: (q as string | null | undefined) ?? "",
    limit:
      pagination === undefined ? ((limit as number | undefined) ?? DEFAULT_LIMIT) : pagination.hitsPerPage,
    offset:
      pagination === undefined
        ? ((offset as number | undefined) ?? 0)
        : (pagination.page - 1) * pagination.hitsPerPage,
    relevanceScore: relevanceScore === true,
  };
  const optional: Partial<SearchQuery> = {
    filter: filter as SearchFilter | undefined,
    pagination,
    sort,
    facets,
    attributesToRetrieve,
    attributesToHighlight,
    highlightPreTag,
    highlightPostTag,
    attributesToCrop,
    cropLength: cropLength as number | undefined,
    cropMarker,
    showRankingScore: showRankingScore as boolean | undefined,
    matchingStrategy: matchingStrategy as MatchingStrategy | undefined,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined && value !== null) (request as unknown as Record<string, unknown>)[key] = value;
  }
  return ok(request);
}

/** A string, or an array of strings and arrays of strings; bounded in items, characters and depth. */
function checkFilter(filter: unknown, errors: Issue[]): void {
  if (filter === undefined || filter === null) return;
  let text: string;
  if (typeof filter === "string") {
    text = filter;
  } else if (Array.isArray(filter)) {
    let items = 0;
    for (const [i, element] of filter.entries()) {
      const inner = Array.isArray(element) ? element : [element];
      for (const e of inner) {
        if (typeof e !== "string") {
          errors.push(
            issue(`filter[${i}]`, `must be a string or an array of strings, got ${describeType(e)}`),
          );
          return;
        }
      }
      items += inner.length;
    }
    if (items > MAX_FILTER_ITEMS) {
      errors.push(issue("filter", `must have at most ${MAX_FILTER_ITEMS} expressions, got ${items}`));
      return;
    }
    text = filterText(filter as (string | string[])[]);
  } else {
    errors.push(issue("filter", `must be a string or an array, got ${describeType(filter)}`));
    return;
  }
  if (text.length > MAX_FILTER_CHARS) {
    errors.push(issue("filter", `must be at most ${MAX_FILTER_CHARS} characters, got ${text.length}`));
  } else if (filterDepthExceeds(text, MAX_FILTER_DEPTH)) {
    errors.push(
      issue("filter", `nests deeper than the limit of ${MAX_FILTER_DEPTH} levels (parentheses and NOT)`),
    );
  }
}

/** An array of attribute names (or null/absent), at most `max` of them, each at most MAX_ATTRIBUTE_CHARS. */
function attributeList(
  input: Record<string, unknown>,
  field: string,
  max: number,
  errors: Issue[],
): string[] | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    errors.push(issue(field, `must be an array of strings, got ${describeType(value)}`));
    return undefined;
  }
  if (value.length > max) {
    errors.push(issue(field, `must have at most ${max} items, got ${value.length}`));
    return undefined;
  }
  for (const [i, name] of value.entries()) {
    if (typeof name !== "string") {
      errors.push(issue(`${field}[${i}]`, `must be a string, got ${describeType(name)}`));
      return undefined;
    }
    if (name.length > MAX_ATTRIBUTE_CHARS || name === "") {
      errors.push(
        issue(`${field}[${i}]`, `must be from 1 to ${MAX_ATTRIBUTE_CHARS} characters, got ${name.length}`),
      );
      return undefined;
    }
  }
  return value as string[];
}

function tag(input: Record<string, unknown>, field: string, errors: Issue[]): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    errors.push(issue(field, `must be a string, got ${describeType(value)}`));
  } else if (value.length > MAX_TAG_CHARS) {
    errors.push(issue(field, `must be at most ${MAX_TAG_CHARS} characters, got ${value.length}`));
  } else {
    return value;
  }
  return undefined;
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
