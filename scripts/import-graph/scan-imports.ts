/**
 * The module specifiers a TypeScript file imports, read with TypeScript's own scanner (TypeScript 7
 * ships it as `typescript/unstable/ast/scanner`; its compiler API proper runs in a separate native
 * process, too heavy for a check that reads every file on each `npm test`). Tokens, not regular
 * expressions: an `import` inside a string, a comment, a template or a regular expression is not
 * an import. The scanner needs two hints a parser would give it, and gets them here: whether a `/`
 * starts a regular expression, and whether a `}` closes a template's `${…}`.
 */
import { SyntaxKind } from "typescript/unstable/ast";
import { createScanner } from "typescript/unstable/ast/scanner";

export interface ImportRef {
  /** As written: "./ports.ts", "@relevance/settings/sqlite", "node:fs". */
  specifier: string;
  /** `import type`, `export type`, every named binding marked `type`, or `typeof import("…")`. */
  typeOnly: boolean;
  /** 1-based line of the `import`/`export` keyword. */
  line: number;
}

interface Token {
  kind: SyntaxKind;
  value: string;
  start: number;
}

/** After these a `/` divides; anywhere else it starts a regular expression. */
const ENDS_EXPRESSION = new Set<SyntaxKind>([
  SyntaxKind.Identifier,
  SyntaxKind.PrivateIdentifier,
  SyntaxKind.NumericLiteral,
  SyntaxKind.BigIntLiteral,
  SyntaxKind.StringLiteral,
  SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateTail,
  SyntaxKind.RegularExpressionLiteral,
  SyntaxKind.CloseParenToken,
  SyntaxKind.CloseBracketToken,
  SyntaxKind.CloseBraceToken,
  SyntaxKind.PlusPlusToken,
  SyntaxKind.MinusMinusToken,
  SyntaxKind.ThisKeyword,
  SyntaxKind.SuperKeyword,
  SyntaxKind.TrueKeyword,
  SyntaxKind.FalseKeyword,
  SyntaxKind.NullKeyword,
]);

function endsExpression(kind: SyntaxKind | undefined): boolean {
  if (kind === undefined) return false;
  if (ENDS_EXPRESSION.has(kind)) return true;
  // Contextual keywords (type, from, as, of, …) are ordinary names where a `/` could follow.
  return kind > SyntaxKind.LastReservedWord && kind <= SyntaxKind.LastKeyword;
}

function tokenize(text: string): Token[] {
  const scanner = createScanner(true, undefined, text);
  const tokens: Token[] = [];
  // One entry per open `{` or `${`: true when it opened a template substitution.
  const braces: boolean[] = [];
  let previous: SyntaxKind | undefined;
  for (;;) {
    let kind = scanner.scan();
    if (kind === SyntaxKind.EndOfFile) break;
    if (
      (kind === SyntaxKind.SlashToken || kind === SyntaxKind.SlashEqualsToken) &&
      !endsExpression(previous)
    ) {
      kind = scanner.reScanSlashToken();
    } else if (kind === SyntaxKind.OpenBraceToken) {
      braces.push(false);
    } else if (kind === SyntaxKind.TemplateHead) {
      braces.push(true);
    } else if (kind === SyntaxKind.CloseBraceToken && braces.pop() === true) {
      kind = scanner.reScanTemplateToken(false);
      if (kind === SyntaxKind.TemplateMiddle) braces.push(true);
    }
    tokens.push({ kind, value: scanner.getTokenValue(), start: scanner.getTokenStart() });
    previous = kind;
  }
  return tokens;
}

function lineOf(lineStarts: number[], pos: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((lineStarts[mid] ?? 0) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * Whether every binding between the braces at `open` (index of `{`) is marked `type`, and the index
 * of the matching `}`. An empty list counts as not type-only: `import {} from "x"` still runs x.
 */
function namedBindings(tokens: Token[], open: number): { allType: boolean; close: number } {
  let allType = true;
  let count = 0;
  let atElementStart = true;
  let i = open + 1;
  for (; i < tokens.length && tokens[i]?.kind !== SyntaxKind.CloseBraceToken; i++) {
    const kind = tokens[i]?.kind;
    if (kind === SyntaxKind.CommaToken) {
      atElementStart = true;
      continue;
    }
    if (atElementStart) {
      count++;
      const next = tokens[i + 1]?.kind;
      // `type X` marks a binding; `type` alone (or `type as y`) names a binding called "type".
      const marked =
        kind === SyntaxKind.TypeKeyword &&
        next !== SyntaxKind.CommaToken &&
        next !== SyntaxKind.CloseBraceToken &&
        !(next === SyntaxKind.AsKeyword && tokens[i + 2]?.kind !== SyntaxKind.AsKeyword);
      if (!marked) allType = false;
      atElementStart = false;
    }
  }
  return { allType: allType && count > 0, close: i };
}

function isMemberName(tokens: Token[], i: number): boolean {
  const before = tokens[i - 1]?.kind;
  return before === SyntaxKind.DotToken || before === SyntaxKind.QuestionDotToken;
}

/** `import … from "x"`, `import "x"`, `import x = require("x")`, starting at the `import` keyword. */
function importDeclaration(
  tokens: Token[],
  at: number,
): { specifier: string; typeOnly: boolean } | undefined {
  let i = at + 1;
  if (tokens[i]?.kind === SyntaxKind.StringLiteral)
    return { specifier: tokens[i]?.value ?? "", typeOnly: false };
  let typeOnly = false;
  const afterType = tokens[i + 1]?.kind;
  if (
    tokens[i]?.kind === SyntaxKind.TypeKeyword &&
    afterType !== SyntaxKind.FromKeyword &&
    afterType !== SyntaxKind.CommaToken &&
    afterType !== SyntaxKind.EqualsToken
  ) {
    typeOnly = true;
    i++;
  }
  let valueBinding = false;
  let namedAllType = false;
  for (; i < tokens.length; i++) {
    const kind = tokens[i]?.kind;
    if (kind === SyntaxKind.OpenBraceToken) {
      const named = namedBindings(tokens, i);
      namedAllType = named.allType;
      if (!named.allType) valueBinding = true;
      i = named.close;
    } else if (kind === SyntaxKind.FromKeyword && tokens[i + 1]?.kind === SyntaxKind.StringLiteral) {
      return {
        specifier: tokens[i + 1]?.value ?? "",
        typeOnly: typeOnly || (namedAllType && !valueBinding),
      };
    } else if (kind === SyntaxKind.EqualsToken) {
      const isRequire =
        tokens[i + 1]?.kind === SyntaxKind.RequireKeyword &&
        tokens[i + 2]?.kind === SyntaxKind.OpenParenToken &&
        tokens[i + 3]?.kind === SyntaxKind.StringLiteral;
      return isRequire ? { specifier: tokens[i + 3]?.value ?? "", typeOnly } : undefined;
    } else if (kind === SyntaxKind.Identifier || kind === SyntaxKind.AsteriskToken) {
      valueBinding = true;
    } else if (kind === SyntaxKind.SemicolonToken) {
      return undefined;
    }
  }
  return undefined;
}

/** `export * from "x"`, `export * as n from "x"`, `export { a } from "x"` (and their `type` forms). */
function reExport(tokens: Token[], at: number): { specifier: string; typeOnly: boolean } | undefined {
  let i = at + 1;
  let typeOnly = false;
  if (tokens[i]?.kind === SyntaxKind.TypeKeyword) {
    typeOnly = true;
    i++;
  }
  if (tokens[i]?.kind === SyntaxKind.AsteriskToken) {
    i++;
    if (tokens[i]?.kind === SyntaxKind.AsKeyword) i += 2;
  } else if (tokens[i]?.kind === SyntaxKind.OpenBraceToken) {
    const named = namedBindings(tokens, i);
    typeOnly ||= named.allType;
    i = named.close + 1;
  } else {
    return undefined;
  }
  if (tokens[i]?.kind !== SyntaxKind.FromKeyword || tokens[i + 1]?.kind !== SyntaxKind.StringLiteral) {
    return undefined;
  }
  return { specifier: tokens[i + 1]?.value ?? "", typeOnly };
}

export function scanImports(text: string): ImportRef[] {
  const tokens = tokenize(text);
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const found: ImportRef[] = [];
  tokens.forEach((token, i) => {
    if (isMemberName(tokens, i)) return;
    let ref: { specifier: string; typeOnly: boolean } | undefined;
    if (token.kind === SyntaxKind.ImportKeyword) {
      const next = tokens[i + 1]?.kind;
      if (next === SyntaxKind.OpenParenToken) {
        // import("x"): a dynamic import, or a type when written `typeof import("x")`. (A type written
        // `import("x").T` counts as a value import: telling it from `import("x").then` needs a parser.)
        if (tokens[i + 2]?.kind !== SyntaxKind.StringLiteral) return;
        const typeOnly = tokens[i - 1]?.kind === SyntaxKind.TypeOfKeyword;
        ref = { specifier: tokens[i + 2]?.value ?? "", typeOnly };
      } else if (next !== SyntaxKind.DotToken) {
        ref = importDeclaration(tokens, i);
      }
    } else if (token.kind === SyntaxKind.ExportKeyword) {
      ref = reExport(tokens, i);
    }
    if (ref) found.push({ ...ref, line: lineOf(lineStarts, token.start) });
  });
  return found;
}
