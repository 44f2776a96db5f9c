// The subset of Meilisearch's filter syntax the embedded engine supports (docs/search.md):
//   attr = value | attr != value | attr > n | attr >= n | attr < n | attr <= n | attr IN [v, ...]
// joined with AND / OR (AND binds tighter) and grouped with parentheses. Keywords are
// case-insensitive; attribute names and values are quoted ("..." or '...', backslash escapes) or
// bare. Anything else is an invalid_request naming the problem, with field "filter".

import { nfkc } from "@relevance/core";
import { MAX_FILTER_DEPTH, RetrievalError } from "@relevance/search";
import { fieldReader } from "./fields.ts";

export type ComparisonOperator = "=" | "!=" | ">" | ">=" | "<" | "<=";

export type FilterExpression =
  | { kind: "and" | "or"; operands: FilterExpression[] }
  | { kind: "compare"; attribute: string; operator: ComparisonOperator; value: string }
  | { kind: "in"; attribute: string; values: string[] };

/** A compiled filter: whether a document passes. */
export type DocumentPredicate = (doc: Record<string, unknown>) => boolean;

type Token =
  | { type: "punct"; text: "(" | ")" | "[" | "]" | ","; at: number }
  | { type: "op"; text: ComparisonOperator; at: number }
  | { type: "word"; text: string; quoted: boolean; at: number };

/** Meilisearch filter keywords this engine does not support: named in the error. */
const UNSUPPORTED = new Set([
  "NOT",
  "TO",
  "EXISTS",
  "IS",
  "NULL",
  "EMPTY",
  "CONTAINS",
  "STARTS",
  "_GEORADIUS",
  "_GEOBOUNDINGBOX",
]);
const SUPPORTED = "=, !=, >, >=, <, <=, IN [...], AND, OR and parentheses";
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BARE_STOP = /[\s()[\],=!<>"']/u;

function invalid(message: string): RetrievalError {
  return new RetrievalError("invalid_request", message, "filter");
}

function describe(token: Token | undefined): string {
  if (token === undefined) return "the end of the filter";
  return `\`${token.text}\` at position ${token.at}`;
}

/**
 * Characters looked at and tokens inspected by lexing and parsing, in total: a count of the work
 * that proves it linear in the filter (filter.test.ts), where timing it would flake.
 */
let steps = 0;

/** The work counted so far (see `steps`). */
export function filterSteps(): number {
  return steps;
}

function lex(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    steps++;
    const c = source.charAt(i);
    if (/\s/u.test(c)) {
      i++;
    } else if (c === "(" || c === ")" || c === "[" || c === "]" || c === ",") {
      tokens.push({ type: "punct", text: c, at: i });
      i++;
    } else if (c === "=") {
      tokens.push({ type: "op", text: "=", at: i });
      i++;
    } else if (c === "!" || c === ">" || c === "<") {
      const two = source.slice(i, i + 2);
      if (two === "!=" || two === ">=" || two === "<=") {
        tokens.push({ type: "op", text: two, at: i });
        i += 2;
      } else if (c === "!") {
        throw invalid(`Invalid filter: unexpected \`!\` at position ${i}; only \`!=\` is supported.`);
      } else {
        tokens.push({ type: "op", text: c as ">" | "<", at: i });
        i++;
      }
    } else if (c === '"' || c === "'") {
      const at = i;
      let text = "";
      i++;
      for (;;) {
        if (i >= source.length)
          throw invalid(`Invalid filter: the quote opened at position ${at} is never closed.`);
        const d = source.charAt(i);
        steps++;
        if (d === c) break;
        if (d === "\\" && i + 1 < source.length) {
          text += source.charAt(i + 1);
          i += 2;
        } else {
          text += d;
          i++;
        }
      }
      i++;
      tokens.push({ type: "word", text, quoted: true, at });
    } else {
      const at = i;
      while (i < source.length && !BARE_STOP.test(source.charAt(i))) i++;
      steps += i - at;
      tokens.push({ type: "word", text: source.slice(at, i), quoted: false, at });
    }
  }
  return tokens;
}

function isKeyword(token: Token | undefined, keyword: string): boolean {
  return token?.type === "word" && !token.quoted && token.text.toUpperCase() === keyword;
}

function unsupportedKeyword(token: Token | undefined): string | null {
  if (token?.type !== "word" || token.quoted) return null;
  const upper = token.text.toUpperCase();
  return UNSUPPORTED.has(upper) || upper.startsWith("_GEO") ? upper : null;
}

/**
 * Recursive descent, one level of recursion per parenthesis. The depth is checked before each
 * descent, so a filter nested thousands deep is an invalid_request, never a stack overflow.
 */
class Parser {
  private readonly tokens: Token[];
  private readonly maxDepth: number;
  private pos = 0;
  private depth = 0;

  constructor(tokens: Token[], maxDepth: number) {
    this.tokens = tokens;
    this.maxDepth = maxDepth;
  }

  parse(): FilterExpression {
    const expression = this.or();
    const rest = this.tokens[this.pos];
    if (rest !== undefined) {
      throw invalid(`Invalid filter: expected AND, OR or the end of the filter, found ${describe(rest)}.`);
    }
    return expression;
  }

  private peek(): Token | undefined {
    steps++;
    return this.tokens[this.pos];
  }

  private or(): FilterExpression {
    const operands = [this.and()];
    while (isKeyword(this.peek(), "OR")) {
      this.pos++;
      operands.push(this.and());
    }
    return operands.length === 1 ? (operands[0] as FilterExpression) : { kind: "or", operands };
  }

  private and(): FilterExpression {
    const operands = [this.primary()];
    while (isKeyword(this.peek(), "AND")) {
      this.pos++;
      operands.push(this.primary());
    }
    return operands.length === 1 ? (operands[0] as FilterExpression) : { kind: "and", operands };
  }

  private primary(): FilterExpression {
    const token = this.peek();
    if (token?.type === "punct" && token.text === "(") {
      if (this.depth >= this.maxDepth) {
        throw invalid(
          `Invalid filter: the parentheses nest deeper than the limit of ${this.maxDepth} levels (at position ${token.at}).`,
        );
      }
      this.pos++;
      this.depth++;
      const inner = this.or();
      this.depth--;
      const close = this.peek();
      if (close?.type !== "punct" || close.text !== ")") {
        throw invalid(
          `Invalid filter: expected \`)\` to close \`(\` at position ${token.at}, found ${describe(close)}.`,
        );
      }
      this.pos++;
      return inner;
    }
    return this.condition();
  }

  private condition(): FilterExpression {
    const attribute = this.peek();
    const keyword = unsupportedKeyword(attribute);
    if (keyword !== null) {
      throw invalid(
        `Invalid filter: \`${keyword}\` is not supported by the embedded engine; supported: ${SUPPORTED}.`,
      );
    }
    if (attribute?.type !== "word" || (!attribute.quoted && /^(AND|OR|IN)$/i.test(attribute.text))) {
      throw invalid(`Invalid filter: expected an attribute name, found ${describe(attribute)}.`);
    }
    this.pos++;
    const operator = this.peek();
    if (operator?.type === "op") {
      this.pos++;
      const value = this.value();
      if (operator.text !== "=" && operator.text !== "!=" && !NUMBER.test(value.trim())) {
        throw invalid(
          `Invalid filter: \`${attribute.text} ${operator.text}\` needs a number, found \`${value}\`.`,
        );
      }
      return { kind: "compare", attribute: attribute.text, operator: operator.text, value };
    }
    if (isKeyword(operator, "IN")) {
      this.pos++;
      return { kind: "in", attribute: attribute.text, values: this.list() };
    }
    const unsupported =
      unsupportedKeyword(operator) ?? (isKeyword(this.tokens[this.pos + 1], "TO") ? "TO" : null);
    if (unsupported !== null) {
      throw invalid(
        `Invalid filter: \`${unsupported}\` is not supported by the embedded engine; supported: ${SUPPORTED}.`,
      );
    }
    throw invalid(
      `Invalid filter: expected an operator (=, !=, >, >=, <, <=, IN) after \`${attribute.text}\`, found ${describe(operator)}.`,
    );
  }

  private value(): string {
    const token = this.peek();
    if (token?.type !== "word" || (!token.quoted && /^(AND|OR)$/i.test(token.text))) {
      throw invalid(`Invalid filter: expected a value, found ${describe(token)}.`);
    }
    this.pos++;
    return token.text;
  }

  private list(): string[] {
    const open = this.peek();
    if (open?.type !== "punct" || open.text !== "[") {
      throw invalid(`Invalid filter: expected \`[\` after IN, found ${describe(open)}.`);
    }
    this.pos++;
    const values: string[] = [];
    for (;;) {
      const next = this.peek();
      if (next?.type === "punct" && next.text === "]") break;
      values.push(this.value());
      const sep = this.peek();
      if (sep?.type === "punct" && sep.text === ",") {
        this.pos++;
      } else if (sep?.type !== "punct" || sep.text !== "]") {
        throw invalid(
          `Invalid filter: expected \`,\` or \`]\` in the IN list opened at position ${open.at}, found ${describe(sep)}.`,
        );
      }
    }
    this.pos++;
    return values;
  }
}

/**
 * Parses a filter; a syntax error, or parentheses nested deeper than `maxDepth` (default 32), is a
 * RetrievalError("invalid_request", ..., "filter"). Lexing and parsing are linear in the filter.
 */
export function parseFilter(source: string, maxDepth = MAX_FILTER_DEPTH): FilterExpression {
  const tokens = lex(source);
  if (tokens.length === 0) throw invalid("Invalid filter: the filter is empty.");
  return new Parser(tokens, maxDepth).parse();
}

function attributesOf(expression: FilterExpression, into: Set<string>): Set<string> {
  if ("operands" in expression) {
    for (const operand of expression.operands) attributesOf(operand, into);
  } else {
    into.add(expression.attribute);
  }
  return into;
}

function isFilterable(attribute: string, filterable: readonly string[]): boolean {
  return filterable.some((f) => f === attribute || attribute.startsWith(`${f}.`));
}

/** Strings compare after NFKC and lower-casing, as Meilisearch compares facet strings case-insensitively. */
function normalize(text: string): string {
  // NFKC leaves ASCII as it is: most values skip it (a filter normalises every document's value).
  return ASCII.test(text) ? text.toLowerCase() : nfkc(text).toLowerCase();
}
const ASCII = /^[\x00-\x7f]*$/;

/** A document value as the filter sees it: arrays are their elements, anything else one element. */
/** Whether `test` holds for the value or, for an array, one of its elements (no array made for a scalar). */
function some(value: unknown, test: (element: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return test(value);
  for (const element of value) if (test(element)) return true;
  return false;
}

function equals(element: unknown, normalized: string, number: number | null): boolean {
  if (typeof element === "string") return normalize(element) === normalized;
  if (typeof element === "number") return number !== null && element === number;
  if (typeof element === "boolean") return String(element) === normalized;
  return false;
}

/**
 * How a compiled filter reads what it tests: a predicate over `T` (a document, a document number)
 * that holds when the attribute's value, or one of an array's elements, passes `test`.
 */
export type ValuesMatch<T> = (attribute: string, test: (element: unknown) => boolean) => (x: T) => boolean;

/** Reads documents: the attribute's value, or an array's elements. */
const documentValues: ValuesMatch<Record<string, unknown>> = (attribute, test) => {
  const read = fieldReader(attribute);
  return (doc) => some(read(doc), test);
};

function compile<T>(expression: FilterExpression, values: ValuesMatch<T>): (x: T) => boolean {
  switch (expression.kind) {
    case "and": {
      const parts = expression.operands.map((operand) => compile(operand, values));
      return (x) => parts.every((p) => p(x));
    }
    case "or": {
      const parts = expression.operands.map((operand) => compile(operand, values));
      return (x) => parts.some((p) => p(x));
    }
    case "in": {
      // The list normalised once into sets (made for the first value asked about, so compiling
      // stays parsing alone): each value is normalised once and looked up, so a list of hundreds
      // of values costs what one value does (`equals` for each would be values x documents
      // normalisations).
      const { attribute, values: listed } = expression;
      let strings = new Set<string>();
      let numbers = new Set<number>();
      let made = false;
      return values(attribute, (e: unknown): boolean => {
        if (!made) {
          strings = new Set(listed.map(normalize));
          numbers = new Set(listed.filter((v) => NUMBER.test(v.trim())).map(Number));
          made = true;
        }
        if (typeof e === "string") return strings.has(normalize(e));
        if (typeof e === "number") return numbers.has(e);
        if (typeof e === "boolean") return strings.has(String(e));
        return false;
      });
    }
    case "compare": {
      const { attribute, operator, value } = expression;
      const number = NUMBER.test(value.trim()) ? Number(value) : null;
      if (operator === "=" || operator === "!=") {
        const normalized = normalize(value);
        const eq = values(attribute, (e) => equals(e, normalized, number));
        // Like Meilisearch, `!=` also keeps documents that lack the attribute.
        return operator === "=" ? eq : (x) => !eq(x);
      }
      const n = number as number;
      const test =
        operator === ">"
          ? (x: number) => x > n
          : operator === ">="
            ? (x: number) => x >= n
            : operator === "<"
              ? (x: number) => x < n
              : (x: number) => x <= n;
      // Range operators look at numbers only (a numeric-looking string is a string, as in Meilisearch).
      return values(attribute, (e) => typeof e === "number" && test(e));
    }
  }
}

/**
 * Parses `source` and checks that it names only filterable attributes (an attribute is filterable
 * when it, or an object attribute it is nested in, is in `filterable`). Null for an absent or
 * blank filter. Errors are RetrievalError("invalid_request", ..., "filter").
 */
export function compileFilter(
  source: string | undefined,
  filterable: readonly string[],
): DocumentPredicate | null {
  return compileFilterWith(source, filterable, documentValues);
}

/** `compileFilter` reading values through `values` (attribute columns, say). */
export function compileFilterWith<T>(
  source: string | undefined,
  filterable: readonly string[],
  values: ValuesMatch<T>,
): ((x: T) => boolean) | null {
  const expression = checkedFilter(source, filterable);
  return expression === null ? null : compile(expression, values);
}

/** A filter (after `checkedFilter`) compiled to read values through `values`. */
export function compileExpression<T>(
  expression: FilterExpression,
  values: ValuesMatch<T>,
): (x: T) => boolean {
  return compile(expression, values);
}

/** The attributes a filter reads (after `checkedFilter`). */
export function filterAttributes(expression: FilterExpression): string[] {
  return [...attributesOf(expression, new Set())];
}

/** `source` parsed and checked against `filterable`, or null for an absent or blank filter. */
export function checkedFilter(
  source: string | undefined,
  filterable: readonly string[],
): FilterExpression | null {
  if (source === undefined || source.trim() === "") return null;
  const expression = parseFilter(source);
  for (const attribute of attributesOf(expression, new Set())) {
    if (!isFilterable(attribute, filterable)) {
      const available =
        filterable.length === 0
          ? "This index has no filterable attributes."
          : `Filterable attributes: ${filterable.map((f) => `\`${f}\``).join(", ")}.`;
      throw invalid(`Attribute \`${attribute}\` is not filterable. ${available}`);
    }
  }
  return expression;
}
