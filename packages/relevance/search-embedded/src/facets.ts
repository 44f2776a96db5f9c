// Facets of the embedded engine: value counts over every matching document (not only the page),
// and the min/max of numeric values, as Meilisearch answers `facetDistribution` and `facetStats`.

import type { FacetStats } from "@relevance/search";
import { MAX_VALUES_PER_FACET, RetrievalError } from "@relevance/search";
import { type AttributeColumn, BOOLEAN, ColumnBuilder, countValues, NUMBER } from "./columns.ts";

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

/** Documents counted between two chances to give the event loop back. */
const CHUNK = 256;

/**
 * Counts, per attribute, the documents among `docs` (document numbers; null: every document)
 * holding each value, from the attributes' columns (columns.ts: an array counts each distinct
 * element once; strings are told apart case-insensitively, NFKC and lower case, as the filter
 * compares them, and shown as first seen). At most MAX_VALUES_PER_FACET values are reported per
 * attribute (numbers first, ascending; then booleans; then strings alphabetically), with the min
 * and max of the numbers. `pause()` is awaited every CHUNK documents: a search with `limit: 0` and
 * facets over 100,000 documents (InstantSearch's refinementList) gives the event loop back.
 */
export async function columnFacets(
  columns: readonly AttributeColumn[],
  docs: Iterable<number> | null,
  pause: () => Promise<void> = async () => {},
): Promise<Facets> {
  const counts = await countValues(columns, docs, pause);
  const facetDistribution: Record<string, Record<string, number>> = {};
  const facetStats: Record<string, FacetStats> = {};
  columns.forEach((column, a) => {
    const reported = distribution(column, counts[a] as Uint32Array);
    facetDistribution[column.attribute] = reported.distribution;
    if (reported.stats !== undefined) facetStats[column.attribute] = reported.stats;
  });
  return { facetDistribution, facetStats };
}

/**
 * `columnFacets` over documents given as objects (each counted in the order given): the same
 * counting, through columns made of them.
 */
export async function computeFacets(
  docs: Iterable<Record<string, unknown>>,
  attributes: readonly string[],
  pause: () => Promise<void> = async () => {},
): Promise<Facets> {
  const builders = attributes.map((attribute) => new ColumnBuilder(attribute));
  let n = 0;
  for (const doc of docs) {
    for (const builder of builders) builder.add(doc);
    if (++n % CHUNK === 0) await pause();
  }
  return columnFacets(
    builders.map((builder) => builder.finish()),
    null,
    pause,
  );
}

/** One attribute's reported values (at most MAX_VALUES_PER_FACET) and the min/max of its numbers. */
function distribution(
  column: AttributeColumn,
  counts: Uint32Array,
): { distribution: Record<string, number>; stats?: FacetStats } {
  const { kinds, shown } = column.dictionary;
  const numbers: number[] = [];
  const booleans = [0, 0];
  const strings: number[] = [];
  for (let v = 0; v < kinds.length; v++) {
    if (counts[v] === 0) continue;
    if (kinds[v] === NUMBER) numbers.push(v);
    else if (kinds[v] === BOOLEAN) booleans[shown[v] === true ? 1 : 0] = counts[v] as number;
    else strings.push(v);
  }
  const out: Record<string, number> = {};
  let room = MAX_VALUES_PER_FACET;
  const add = (text: string, n: number) => {
    out[text] = (out[text] ?? 0) + n;
    room--;
  };
  let stats: FacetStats | undefined;
  if (numbers.length > 0) {
    numbers.sort((a, b) => (shown[a] as number) - (shown[b] as number));
    stats = {
      min: shown[numbers[0] as number] as number,
      max: shown[numbers[numbers.length - 1] as number] as number,
    };
    for (const v of numbers) {
      if (room <= 0) break;
      add(numberText(shown[v] as number), counts[v] as number);
    }
  }
  if (booleans[0] && room > 0) add("false", booleans[0]);
  if (booleans[1] && room > 0) add("true", booleans[1]);
  if (room > 0 && strings.length > 0) {
    // The first `room` in order, kept sorted as they come: no sort of every distinct value.
    const top: number[] = [];
    const text = (v: number) => shown[v] as string;
    for (const v of strings) {
      if (top.length === room && text(v) >= text(top[room - 1] as number)) continue;
      let lo = 0;
      let hi = top.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (text(top[mid] as number) < text(v)) lo = mid + 1;
        else hi = mid;
      }
      top.splice(lo, 0, v);
      if (top.length > room) top.pop();
    }
    for (const v of top) add(text(v), counts[v] as number);
  }
  return stats === undefined ? { distribution: out } : { distribution: out, stats };
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
