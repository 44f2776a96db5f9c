// Facet search of the embedded engine (Meilisearch's `POST /indexes/{index}/facet-search`): the
// values of one facet held by the documents a query selects, those matching the facet query as a
// prefix (with typos, as the index's typo tolerance allows), alphabetically, at most 100. Every
// loop gives the event loop back between slices, so a facet of 100,000 distinct values (a SKU made
// filterable) over 100,000 documents holds it no longer than a search does.

import { nfkc } from "@relevance/core";
import type { FacetHit } from "@relevance/search";
import { MAX_EXPANDED_WORD_CHARS, MAX_VALUES_PER_FACET } from "@relevance/search";
import { type AttributeColumn, countValues, NUMBER } from "./columns.ts";
import { StringKeyMap } from "./slices.ts";

/** Documents or values handled between two looks at the slice clock. */
const CHUNK = 256;

/** A facet value's normalized form (as the filter compares strings) → how it is shown and counted. */
export type FacetValueCounts = Map<string, { shown: string; count: number }>;

/**
 * Counts, over `docs` (document numbers; null: every document), the documents holding each string
 * (or boolean) value of the attribute's column (columns.ts: an array counts each distinct element
 * once; strings told apart case-insensitively, NFKC and lower case, shown as first seen). Numbers
 * are not searchable facet values, as in Meilisearch.
 */
export async function countFacetValues(
  column: AttributeColumn,
  docs: Iterable<number> | null,
  pause: () => Promise<void>,
): Promise<FacetValueCounts> {
  const { dictionary } = column;
  const perValue = (await countValues([column], docs, pause))[0] as Uint32Array;
  // A Map that grows without a rehash of every entry holding the loop (slices.ts): a SKU made
  // filterable has a distinct value per document.
  const counts: FacetValueCounts = new StringKeyMap();
  for (let v = 0; v < perValue.length; v++) {
    if (v % CHUNK === CHUNK - 1) await pause();
    const c = perValue[v] as number;
    if (c === 0 || dictionary.kinds[v] === NUMBER) continue;
    const shown = String(dictionary.shown[v]);
    const key = dictionary.normalized[v] ?? shown;
    const entry = counts.get(key);
    if (entry === undefined) counts.set(key, { shown, count: c });
    else entry.count += c;
  }
  return counts;
}

/**
 * Whether `value` starts with `query` give or take `typos` edits (insertions, deletions,
 * substitutions): the least edit distance between `query` and any prefix of `value`. Rows are over
 * the query; a row whose every cell is beyond `typos` ends the look early, so a value that differs
 * from the start costs a few rows.
 */
export function prefixWithin(query: readonly string[], value: readonly string[], typos: number): boolean {
  const m = query.length;
  const n = Math.min(value.length, m + typos);
  let previous = Array.from({ length: n + 1 }, (_, j) => j);
  let current = new Array<number>(n + 1);
  for (let i = 1; i <= m; i++) {
    current[0] = i;
    let least = i;
    for (let j = 1; j <= n; j++) {
      const cost = query[i - 1] === value[j - 1] ? 0 : 1;
      const cell = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current[j] = cell;
      if (cell < least) least = cell;
    }
    if (least > typos) return false;
    [previous, current] = [current, previous];
  }
  let best = Number.POSITIVE_INFINITY;
  for (let j = 0; j <= n; j++) best = Math.min(best, previous[j] as number);
  return best <= typos;
}

/**
 * The facet hits of `counts` that match `facetQuery` (absent or blank: every value), in
 * alphabetical order of their normalized form (Meilisearch's default `sortFacetValuesBy`), at most
 * MAX_VALUES_PER_FACET. `typos` is the index's typo budget for a word; a query longer than
 * MAX_EXPANDED_WORD_CHARS is matched as an exact prefix.
 */
export async function matchFacetValues(
  counts: FacetValueCounts,
  facetQuery: string | undefined,
  typos: (word: string) => number,
  pause: () => Promise<void>,
): Promise<FacetHit[]> {
  const query = facetQuery === undefined ? "" : nfkc(facetQuery).toLowerCase().trim();
  const queryChars = [...query];
  const budget = queryChars.length > MAX_EXPANDED_WORD_CHARS ? 0 : typos(query);
  // The first MAX_VALUES_PER_FACET in order, kept sorted as they come: no sort of every value.
  const top: string[] = [];
  const full = () => top.length === MAX_VALUES_PER_FACET;
  let n = 0;
  for (const key of counts.keys()) {
    if (++n % CHUNK === 0) await pause();
    if (full() && key >= (top[top.length - 1] as string)) continue;
    const matches =
      query === "" ||
      key.startsWith(query) ||
      // A prefix of the value long enough for the query and its typos (code points, at most 2 units each).
      (budget > 0 && prefixWithin(queryChars, [...key.slice(0, 2 * (queryChars.length + budget))], budget));
    if (!matches) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((top[mid] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, key);
    if (top.length > MAX_VALUES_PER_FACET) top.pop();
  }
  return top.map((key) => {
    const { shown, count } = counts.get(key) as { shown: string; count: number };
    return { value: shown, count };
  });
}
