/**
 * The body of a search (`POST /api/v1/indexes/{index}/search`, and each query of a multi-search) as
 * one zod schema: it validates, gives the types and documents the bounds of limits.ts
 * (docs/limits.md). Each field answers with the words of docs/search.md and reports its first
 * problem; every field is checked, so a request lists all its problems at once.
 */
import { describeType } from "@relevance/core";
import * as z from "zod";
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
  MAX_QUERY_WORDS,
  MAX_SORT,
  MAX_TAG_CHARS,
} from "./limits.ts";
import type { SearchFilter } from "./ports.ts";

export const DEFAULT_LIMIT = 20;
export const DEFAULT_HITS_PER_PAGE = 20;

const SORT_CRITERION = /^(.+):(asc|desc)$/;
const got = (issue: { input?: unknown }): string => describeType(issue.input);
/** A number as written; anything else by its type. */
const shown = (value: unknown): string =>
  typeof value === "number" && Number.isFinite(value) ? String(value) : describeType(value);
/** Later checks of a field run only while it has no problem, so each field lists its first. */
const unfailed = (payload: { issues: readonly unknown[] }): boolean => payload.issues.length === 0;

/** An integer from `min` to `max`; one message for every way of missing it. */
function integer(min: number, max: number) {
  const rule = (issue: { input?: unknown }) =>
    `must be an integer from ${min} to ${max}, got ${shown(issue.input)}`;
  return z
    .number({ error: rule })
    .refine((v) => Number.isSafeInteger(v) && v >= min && v <= max, { error: rule })
    .meta({ type: "integer", minimum: min, maximum: max });
}

/** Text of at most `max` UTF-16 code units (JavaScript string length); null is absent. */
export function text(max: number) {
  return z
    .string({ error: (issue) => `must be a string, got ${got(issue)}` })
    .refine((v) => v.length <= max, {
      error: (issue) => `must be at most ${max} characters, got ${(issue.input as string).length}`,
    })
    .meta({ maxLength: max })
    .nullish();
}

export const attributeName = z
  .string({ error: (issue) => `must be a string, got ${got(issue)}` })
  .refine((v) => v !== "" && v.length <= MAX_ATTRIBUTE_CHARS, {
    error: (issue) =>
      `must be from 1 to ${MAX_ATTRIBUTE_CHARS} characters, got ${(issue.input as string).length}`,
  })
  .meta({ minLength: 1, maxLength: MAX_ATTRIBUTE_CHARS });

/** At most `max` attribute names; null is absent. Too many is said alone, before any name is looked at. */
function attributeList(max: number) {
  return z
    .array(attributeName, { error: (issue) => `must be an array of strings, got ${got(issue)}` })
    .refine((v) => v.length <= max, {
      error: (issue) => `must have at most ${max} items, got ${(issue.input as unknown[]).length}`,
      when: (payload) => Array.isArray(payload.value),
      params: { alone: true },
    })
    .meta({ maxItems: max });
}

const sortList = attributeList(MAX_SORT).superRefine(
  (criteria, ctx) => {
    for (const [i, criterion] of criteria.entries()) {
      if (!SORT_CRITERION.test(criterion)) {
        ctx.addIssue({
          code: "custom",
          path: [i],
          input: criterion,
          message: `must be \`attribute:asc\` or \`attribute:desc\`, got \`${criterion}\``,
          params: { every: true },
        });
      }
    }
  },
  { when: unfailed },
);

/** The first element of an array filter element that is not a string (the element itself if not an array). */
const firstNonString = (element: unknown): unknown =>
  Array.isArray(element) ? element.find((e) => typeof e !== "string") : element;

const filterElement = z.union([z.string(), z.array(z.string())], {
  error: (issue) =>
    `must be a string or an array of strings, got ${describeType(firstNonString(issue.input))}`,
});

/** A string, or an array of strings and arrays of strings; bounded in items, characters and depth. */
export const filterSchema = z
  .union(
    [
      z.string().meta({ maxLength: MAX_FILTER_CHARS }),
      z.array(filterElement).meta({ maxItems: MAX_FILTER_ITEMS }),
    ],
    {
      error: (issue) => `must be a string or an array, got ${got(issue)}`,
    },
  )
  .superRefine((value, ctx) => {
    if (Array.isArray(value)) {
      const items = value.reduce<number>((n, e) => n + (Array.isArray(e) ? e.length : 1), 0);
      if (items > MAX_FILTER_ITEMS) {
        ctx.addIssue({
          code: "custom",
          input: value,
          message: `must have at most ${MAX_FILTER_ITEMS} expressions, got ${items}`,
        });
        return;
      }
    }
    const whole = filterText(value);
    if (whole.length > MAX_FILTER_CHARS) {
      ctx.addIssue({
        code: "custom",
        input: value,
        message: `must be at most ${MAX_FILTER_CHARS} characters, got ${whole.length}`,
      });
    } else if (filterDepthExceeds(whole, MAX_FILTER_DEPTH)) {
      ctx.addIssue({
        code: "custom",
        input: value,
        message: `nests deeper than the limit of ${MAX_FILTER_DEPTH} levels (parentheses and NOT)`,
      });
    }
  })
  .meta({
    description: `Meilisearch filter syntax; an array is ANDed, an inner array ORed; at most ${MAX_FILTER_CHARS} characters and ${MAX_FILTER_DEPTH} levels of parentheses and NOT in all.`,
  })
  .nullish();

export const boolean = z.boolean({ error: (issue) => `must be a boolean, got ${got(issue)}` });

export const matchingStrategySchema = z
  .enum(["last", "all", "frequency"], {
    error: (issue) => `must be one of \`last\`, \`all\`, \`frequency\`, got ${got(issue)}`,
  })
  .optional()
  .meta({ default: "last" });

/**
 * The fields in the order their problems are listed. Unknown fields are refused (listed first).
 */
export const SearchRequestSchema = z
  .strictObject(
    {
      q: text(MAX_QUERY_CHARS).meta({
        description: `The query (absent: every document); retrieval uses its first ${MAX_QUERY_WORDS} words (as Meilisearch), the relevance features all of it.`,
      }),
      limit: integer(0, MAX_LIMIT)
        .optional()
        .meta({ default: DEFAULT_LIMIT, description: "0 answers the totals and facets only (hits [])." }),
      offset: integer(0, MAX_OFFSET).optional().meta({ default: 0 }),
      page: integer(1, MAX_PAGE)
        .optional()
        .meta({ description: "Exhaustive pagination: answers totalHits and totalPages." }),
      hitsPerPage: integer(0, MAX_HITS_PER_PAGE).optional(),
      filter: filterSchema,
      sort: sortList.meta({ items: { type: "string", pattern: SORT_CRITERION.source } }).nullish(),
      facets: attributeList(MAX_FACETS).nullish(),
      attributesToRetrieve: attributeList(MAX_ATTRIBUTE_LIST).nullish(),
      attributesToHighlight: attributeList(MAX_ATTRIBUTE_LIST).nullish(),
      attributesToCrop: attributeList(MAX_ATTRIBUTE_LIST).nullish(),
      highlightPreTag: text(MAX_TAG_CHARS),
      highlightPostTag: text(MAX_TAG_CHARS),
      cropMarker: text(MAX_TAG_CHARS),
      cropLength: integer(1, MAX_CROP_LENGTH).optional(),
      showRankingScore: boolean.optional(),
      distinct: attributeName.nullish().meta({
        description:
          "At most one hit per value of this attribute (Meilisearch adapter; the embedded engine answers 422).",
      }),
      rankingScoreThreshold: z
        .number({ error: (issue) => `must be a number from 0 to 1, got ${shown(issue.input)}` })
        .refine((v) => v >= 0 && v <= 1, {
          error: (issue) => `must be a number from 0 to 1, got ${shown(issue.input)}`,
        })
        .nullish()
        .meta({
          minimum: 0,
          maximum: 1,
          description:
            "Leaves out hits ranked below this score (Meilisearch adapter; the embedded engine answers 422).",
        }),
      matchingStrategy: matchingStrategySchema,
      relevanceScore: boolean
        .optional()
        .meta({ default: false, description: "true opts in to scoring (our extension)." }),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? "is not a known field"
          : `must be a JSON object, got ${got(issue)}`,
    },
  )
  .meta({
    id: "SearchRequest",
    description:
      "Meilisearch's search parameters (docs/search.md lists what each backend does with each), plus relevanceScore.",
  });

/** The search body as a client sends it. */
export type SearchRequestBody = z.input<typeof SearchRequestSchema>;

/** The request fields, in the order their problems are listed. */
export const SEARCH_REQUEST_FIELDS = Object.keys(SearchRequestSchema.shape) as (keyof SearchRequestBody)[];

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
