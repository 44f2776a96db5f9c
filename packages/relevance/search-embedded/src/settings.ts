// The index settings as the embedded engine applies them (docs/search.md, "Compatibility: index
// settings"). Searchable attributes shape the index (a change rebuilds it: `indexFields` is part of
// the index's config); everything else applies per search, so a PATCH takes effect with the next
// search that reads the new settings copy.

import { tokenize } from "@relevance/core";
import type { SearchTarget, TypoTolerance } from "@relevance/search";
import type { Document } from "@relevance/settings";
import { DEFAULT_RANKING_RULES, rankingRulesSupported } from "@relevance/settings";
import { fieldValue } from "./fields.ts";

/** Meilisearch's default word sizes for one and two typos. */
export const DEFAULT_MIN_WORD_SIZE_FOR_TYPOS = { oneTypo: 5, twoTypos: 9 } as const;

/** The searchable attributes to index, in ranking order, or null for every string field (`[]` or `["*"]`). */
export function indexFields(target: Pick<SearchTarget, "searchableAttributes">): string[] | null {
  const list = target.searchableAttributes;
  return list.length === 0 || list.includes("*") ? null : list;
}

/**
 * MiniSearch field boosts for an explicit list of searchable attributes: the first attribute weighs
 * n times the last (n - position), so a match in an earlier attribute ranks higher, as Meilisearch's
 * `attribute` rule ranks it. No boost for every field (`["*"]`).
 */
export function attributeBoost(fields: string[] | null): Record<string, number> | undefined {
  if (fields === null || fields.length < 2) return undefined;
  const boost: Record<string, number> = Object.create(null);
  fields.forEach((field, i) => {
    boost[field] ??= fields.length - i;
  });
  return boost;
}

/**
 * The settings a search applies to its query, compiled once per distinct value (the settings copy
 * is parsed anew for every search, so its objects cannot be the cache key).
 */
export interface QuerySettings {
  /** Query words to leave out (tokens of the stop words). */
  stopWords: ReadonlySet<string>;
  /** Query word → the words a search for it also finds (tokens). */
  synonyms: ReadonlyMap<string, readonly string[]>;
  /** The typos allowed in a query word. */
  typos: (word: string) => number;
  /** Fields returned in hits; null for all of them. */
  displayed: readonly string[] | null;
}

/** A single token of `text`, or null when it has none or several. */
function singleToken(text: string): string | null {
  const tokens = tokenize(text);
  return tokens.length === 1 ? (tokens[0] as string) : null;
}

/**
 * Why the embedded engine cannot honour `target`'s settings, or null when it can. The customer API
 * refuses these at PATCH; a copy written another way (a direct table edit) is refused here rather
 * than searched without them.
 */
export function unsupportedSetting(target: SearchTarget): { field: string; message: string } | null {
  const rules = target.rankingRules;
  if (rules !== undefined && !rankingRulesSupported(rules)) {
    return {
      field: "rankingRules",
      message: `the embedded engine ranks only by the default ranking rules ${JSON.stringify(DEFAULT_RANKING_RULES)}, with "sort" at any position`,
    };
  }
  if ((target.typoTolerance?.disableOnAttributes.length ?? 0) > 0) {
    return {
      field: "typoTolerance.disableOnAttributes",
      message: "the embedded engine cannot disable typos on attributes",
    };
  }
  for (const [word, list] of Object.entries(target.synonyms ?? {})) {
    for (const text of [word, ...list]) {
      if (singleToken(text) === null) {
        return {
          field: `synonyms.${word}`,
          message: `"${text}" is not one word: multi-word synonyms are not supported`,
        };
      }
    }
  }
  return null;
}

/** The typos allowed in `word` under `typo` (Meilisearch's `minWordSizeForTypos`, `disableOnWords`). */
export function typoBudget(
  word: string,
  sizes: { oneTypo: number; twoTypos: number } = DEFAULT_MIN_WORD_SIZE_FOR_TYPOS,
): number {
  const n = [...word].length;
  return n >= sizes.twoTypos ? 2 : n >= sizes.oneTypo ? 1 : 0;
}

function typosOf(typo: TypoTolerance | undefined): (word: string) => number {
  if (typo === undefined) return (word) => typoBudget(word);
  if (!typo.enabled) return () => 0;
  const exact = new Set<string>();
  for (const word of typo.disableOnWords) for (const token of tokenize(word)) exact.add(token);
  const sizes = typo.minWordSizeForTypos;
  return (word) => (exact.has(word) ? 0 : typoBudget(word, sizes));
}

function compile(target: SearchTarget): QuerySettings {
  const stopWords = new Set<string>();
  for (const word of target.stopWords ?? []) for (const token of tokenize(word)) stopWords.add(token);
  const synonyms = new Map<string, string[]>();
  for (const [word, list] of Object.entries(target.synonyms ?? {})) {
    const key = singleToken(word);
    if (key === null) continue; // refused by unsupportedSetting before any search
    const words = synonyms.get(key) ?? [];
    for (const text of list) {
      const token = singleToken(text);
      if (token !== null && token !== key && !words.includes(token)) words.push(token);
    }
    synonyms.set(key, words);
  }
  const displayed = target.displayedAttributes;
  return {
    stopWords,
    synonyms,
    typos: typosOf(target.typoTolerance),
    displayed: displayed === undefined || displayed.includes("*") ? null : displayed,
  };
}

const compiled = new Map<string, QuerySettings>();
const MAX_COMPILED = 64;

/** The compiled query settings of `target` (cached by value, the most recent 64). */
export function querySettings(target: SearchTarget): QuerySettings {
  const key = JSON.stringify([
    target.stopWords,
    target.synonyms,
    target.typoTolerance,
    target.displayedAttributes,
  ]);
  const hit = compiled.get(key);
  if (hit !== undefined) {
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  const value = compile(target);
  compiled.set(key, value);
  for (const oldest of compiled.keys()) {
    if (compiled.size <= MAX_COMPILED) break;
    compiled.delete(oldest);
  }
  return value;
}

/** The query words to search: without stop words, unless the query has nothing else (Meilisearch). */
export function withoutStopWords(words: string[], stopWords: ReadonlySet<string>): string[] {
  if (stopWords.size === 0) return words;
  const kept = words.filter((word) => !stopWords.has(word));
  return kept.length > 0 ? kept : words;
}

/** `doc` with only the displayed attributes (top-level names or dot paths), or all of it for null. */
export function displayedFields(doc: Document, displayed: readonly string[] | null): Document {
  if (displayed === null) return { ...doc };
  const out: Document = {};
  for (const attribute of displayed) {
    if (Object.hasOwn(doc, attribute)) {
      out[attribute] = doc[attribute];
      continue;
    }
    const value = fieldValue(doc, attribute);
    if (value === undefined) continue;
    // A dot path: rebuild the nesting with only this leaf.
    const keys = attribute.split(".");
    let node: Record<string, unknown> = out;
    for (const key of keys.slice(0, -1)) {
      const next = node[key];
      if (next === null || typeof next !== "object" || Array.isArray(next)) {
        node[key] = {};
      }
      node = node[key] as Record<string, unknown>;
    }
    node[keys[keys.length - 1] as string] = value;
  }
  return out;
}
