// What the bench-only engines (fts5.ts, orama.ts) share: the factory shape every engine of the
// catalogue series has (`(documents, dir) => Retrieval`, a new instance over the same `dir` being a
// restart), the query words as Meilisearch reads them (stop words left out, synonyms, a typo budget
// of 1 from 5 letters and 2 from 9, the last word also a prefix), a bounded Levenshtein, and facet
// search over value counts. Bench-only: nothing in packages/ imports this.
import { nfkc, tokenize } from "../../../packages/relevance/core/src/index.ts";
import {
  MAX_VALUES_PER_FACET,
  type Retrieval,
  RetrievalError,
  type SearchTarget,
} from "../../../packages/relevance/search/src/index.ts";
import { typoBudget } from "../../../packages/relevance/search-embedded/src/settings.ts";
import type { SqliteDocumentStore } from "../../../packages/relevance/settings/src/sqlite/index.ts";

/** A Retrieval of the series: `flush` writes what a restart reads, `close` lets go of files. */
export interface BenchRetrieval extends Retrieval {
  flush?(): Promise<void>;
  close?(): void;
}

/** An engine of the series: a new instance over the same `dir` is a restart. */
export type EngineFactory = (documents: SqliteDocumentStore, dir: string) => BenchRetrieval;

export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Levenshtein distance of a and b, or budget + 1 once it is beyond `budget`. */
export function within(a: string, b: string, budget: number): number {
  if (Math.abs(a.length - b.length) > budget) return budget + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cell = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      current.push(cell);
      least = Math.min(least, cell);
    }
    if (least > budget) return budget + 1;
    previous = current;
  }
  return previous[b.length] as number;
}

/** One query word: itself and its synonyms, the typos each may have, whether it is the last (a prefix). */
export interface QueryWord {
  word: string;
  alternatives: string[];
  typos: number;
  prefix: boolean;
}

/** The words of `q` as the engines match them, under `target`'s stop words, synonyms and typo tolerance. */
export function queryWords(target: SearchTarget, q: string): QueryWord[] {
  const stop = new Set((target.stopWords ?? []).flatMap((w) => tokenize(w)));
  const synonyms = new Map<string, string[]>();
  for (const [word, list] of Object.entries(target.synonyms ?? {})) {
    const [key] = tokenize(word);
    if (key !== undefined)
      synonyms.set(
        key,
        list.flatMap((w) => tokenize(w)),
      );
  }
  const typo = target.typoTolerance;
  const words = tokenize(q).filter((w) => !stop.has(w));
  return words.map((word, i) => ({
    word,
    alternatives: [word, ...(synonyms.get(word) ?? []).filter((s) => s !== word)],
    typos:
      typo === undefined
        ? typoBudget(word)
        : !typo.enabled || typo.disableOnWords.includes(word)
          ? 0
          : typoBudget(word, typo.minWordSizeForTypos),
    prefix: i === words.length - 1,
  }));
}

/** The terms of `vocabulary` a query word stands for: its alternatives, their typos, the last word's prefixes. */
export function expand(word: QueryWord, vocabulary: Iterable<string>): Set<string> {
  const out = new Set(word.alternatives);
  for (const term of vocabulary) {
    if (word.prefix && term.startsWith(word.word)) out.add(term);
    else if (word.typos > 0 && within(word.word, term, word.typos) <= word.typos) out.add(term);
  }
  return out;
}

/** The attributes a facet list names (`*`: every filterable one); a non-filterable one is the client's error. */
export function facetNames(
  facets: readonly string[],
  filterable: readonly string[],
  field = "facets",
): string[] {
  const out: string[] = [];
  for (const name of facets) {
    for (const attribute of name === "*" ? filterable : [name]) {
      if (!filterable.includes(attribute))
        throw new RetrievalError("invalid_request", `Attribute \`${attribute}\` is not filterable.`, field);
      if (!out.includes(attribute)) out.push(attribute);
    }
  }
  return out;
}

/**
 * Meilisearch's facet search over value counts: the values whose start matches `facetQuery` (with
 * the typos its length allows), alphabetically, at most 100.
 */
export function facetHits(
  counts: ReadonlyMap<string, number>,
  facetQuery: string | undefined,
): { value: string; count: number }[] {
  const query = nfkc(facetQuery ?? "").toLowerCase();
  const budget = typoBudget(query);
  const hits: { value: string; count: number }[] = [];
  for (const [value, count] of counts) {
    const text = nfkc(value).toLowerCase();
    let match = text.startsWith(query);
    for (let k = query.length - budget; !match && budget > 0 && k <= query.length + budget; k++) {
      match = k > 0 && within(query, text.slice(0, k), budget) <= budget;
    }
    if (match && count > 0) hits.push({ value, count });
  }
  hits.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return hits.slice(0, MAX_VALUES_PER_FACET);
}

/** The facet distribution of counts: the first 100 values alphabetically, as Meilisearch's maxValuesPerFacet. */
export function distribution(counts: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...counts]
      .filter(([, n]) => n > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, MAX_VALUES_PER_FACET),
  );
}

/** A (possibly nested) field of a document. */
export function fieldOf(doc: Record<string, unknown>, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The searchable fields: the target's list, or every string (or string array) field of the documents for `*`. */
export function searchableFields(target: SearchTarget, docs: Iterable<Record<string, unknown>>): string[] {
  const list = target.searchableAttributes;
  if (list.length > 0 && !list.includes("*")) return [...list];
  const fields: string[] = [];
  for (const doc of docs) {
    for (const [name, value] of Object.entries(doc)) {
      const text =
        typeof value === "string" || (Array.isArray(value) && value.every((v) => typeof v === "string"));
      if (text && !fields.includes(name)) fields.push(name);
    }
  }
  return fields;
}

/** The text of a field for a full-text column: strings as they are, arrays' elements joined. */
export function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value))
    return value.filter((v) => typeof v === "string" || typeof v === "number").join(" ");
  if (typeof value === "number") return String(value);
  return "";
}
