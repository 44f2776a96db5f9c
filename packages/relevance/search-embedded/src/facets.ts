// Facets of the embedded engine: value counts over every matching document (not only the page),
// and the min/max of numeric values, as Meilisearch answers `facetDistribution` and `facetStats`.

import { nfkc } from "@relevance/core";
import type { FacetStats } from "@relevance/search";
import { MAX_VALUES_PER_FACET, RetrievalError } from "@relevance/search";
import { fieldReader } from "./fields.ts";
import { StringKeyMap } from "./slices.ts";

/**
 * The attributes `facets` names, `*` standing for every filterable attribute. An attribute that is
 * not filterable is an invalid_request (field `facets`), as in Meilisearch.
 */
export function facetAttributes(facets: readonly string[], filterable: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of facets) {
    const names = name === "*" ? filterable : [name];
    for (const attribute of names) {
      if (!filterable.some((f) => f === attribute || attribute.startsWith(`${f}.`))) {
        const available =
          filterable.length === 0
            ? "This index has no filterable attributes."
            : `Filterable attributes: ${filterable.map((f) => `\`${f}\``).join(", ")}.`;
        throw new RetrievalError(
          "invalid_request",
          `Attribute \`${attribute}\` is not filterable, so it cannot be a facet. ${available}`,
          "facets",
        );
      }
      if (!out.includes(attribute)) out.push(attribute);
    }
  }
  return out;
}

export interface Facets {
  facetDistribution: Record<string, Record<string, number>>;
  facetStats: Record<string, FacetStats>;
}

/**
 * Counts, per attribute, the documents holding each value (an array counts each distinct element
 * once). Strings are counted case-insensitively (NFKC, lower case, as the filter compares them) and
 * reported as first seen; numbers and booleans as written. At most MAX_VALUES_PER_FACET values are
 * reported per attribute (numbers first, ascending; then booleans; then strings alphabetically).
 * One pass over the documents, with `pause()` awaited every 256 of them: a search with `limit: 0`
 * and facets over 100,000 documents (InstantSearch's refinementList) gives the event loop back.
 */
export async function computeFacets(
  docs: Iterable<Record<string, unknown>>,
  attributes: readonly string[],
  pause: () => Promise<void> = async () => {},
): Promise<Facets> {
  const counters = attributes.map(() => new FacetCounter());
  const readers = attributes.map(fieldReader);
  const seen = new Set<unknown>();
  let n = 0;
  for (const doc of docs) {
    if (++n % 256 === 0) await pause();
    for (let a = 0; a < attributes.length; a++) {
      const value = (readers[a] as (doc: Record<string, unknown>) => unknown)(doc);
      const counter = counters[a] as FacetCounter;
      if (!Array.isArray(value)) {
        counter.add(value);
        continue;
      }
      // An array counts each distinct element once.
      seen.clear();
      for (const element of value) {
        const key = typeof element === "string" ? counter.normalized(element) : element;
        if (seen.has(key)) continue;
        seen.add(key);
        counter.add(element);
      }
    }
  }
  const facetDistribution: Record<string, Record<string, number>> = {};
  const facetStats: Record<string, FacetStats> = {};
  attributes.forEach((attribute, a) => {
    const counter = counters[a] as FacetCounter;
    facetDistribution[attribute] = counter.distribution();
    if (counter.min <= counter.max) facetStats[attribute] = { min: counter.min, max: counter.max };
  });
  return { facetDistribution, facetStats };
}

/** Counts of one facet's values: strings by normalized form (shown as first seen), numbers, booleans. */
class FacetCounter {
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  // Maps that grow without a rehash of every entry holding the loop (slices.ts).
  private readonly strings = new StringKeyMap<{ shown: string; count: number }>();
  /** Every number counted (with repeats), sorted and grouped only when reported. */
  private numbers = new Float64Array(64);
  private numberCount = 0;
  private readonly booleans = [0, 0];
  /** Raw string → normalized, so each distinct string is normalized once (bounded). */
  private readonly cache = new StringKeyMap<string>();

  normalized(text: string): string {
    let n = this.cache.get(text);
    if (n === undefined) {
      n = nfkc(text).toLowerCase();
      if (this.cache.size < 100_000) this.cache.set(text, n);
    }
    return n;
  }

  add(value: unknown): void {
    if (typeof value === "string") {
      const key = this.normalized(value);
      const entry = this.strings.get(key);
      if (entry === undefined) this.strings.set(key, { shown: value, count: 1 });
      else entry.count++;
    } else if (typeof value === "number" && Number.isFinite(value)) {
      if (this.numberCount === this.numbers.length) {
        const grown = new Float64Array(this.numbers.length * 2);
        grown.set(this.numbers);
        this.numbers = grown;
      }
      this.numbers[this.numberCount++] = value;
      if (value < this.min) this.min = value;
      if (value > this.max) this.max = value;
    } else if (typeof value === "boolean") {
      this.booleans[value ? 1 : 0] = (this.booleans[value ? 1 : 0] as number) + 1;
    }
  }

  /**
   * At most MAX_VALUES_PER_FACET values: numbers first, ascending, then booleans, then strings in
   * alphabetical order. Only the numbers reported are turned into text.
   */
  distribution(): Record<string, number> {
    const out: Record<string, number> = {};
    let room = MAX_VALUES_PER_FACET;
    const add = (shown: string, count: number) => {
      out[shown] = (out[shown] ?? 0) + count;
      room--;
    };
    if (this.numberCount > 0) {
      // Sorted ascending, equal values side by side: each run is one value and its count. -0 and
      // 0 are one value (as a Map key would make them), shown as "0".
      const values = this.numbers.subarray(0, this.numberCount).sort();
      for (let i = 0; i < values.length && room > 0; ) {
        const value = values[i] as number;
        let j = i + 1;
        while (j < values.length && values[j] === value) j++;
        add(numberText(value), j - i);
        i = j;
      }
    }
    if (this.booleans[0] && room > 0) add("false", this.booleans[0]);
    if (this.booleans[1] && room > 0) add("true", this.booleans[1]);
    if (room > 0 && this.strings.size > 0) {
      // The first `room` in order, kept sorted as they come: no sort of every distinct value.
      const top: { shown: string; count: number }[] = [];
      for (const entry of this.strings.values()) {
        if (top.length === room && entry.shown >= (top[room - 1] as { shown: string }).shown) continue;
        let lo = 0;
        let hi = top.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if ((top[mid] as { shown: string }).shown < entry.shown) lo = mid + 1;
          else hi = mid;
        }
        top.splice(lo, 0, entry);
        if (top.length > room) top.pop();
      }
      for (const { shown, count } of top) add(shown, count);
    }
    return out;
  }
}

/** Numbers as facet values are shown (`String`), remembered: the same prices come back query after query. */
const numberTexts = new Map<number, string>();

function numberText(value: number): string {
  let text = numberTexts.get(value);
  if (text === undefined) {
    text = String(value);
    if (numberTexts.size >= 100_000) numberTexts.clear();
    numberTexts.set(value, text);
  }
  return text;
}
