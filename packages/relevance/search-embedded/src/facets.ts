// Facets of the embedded engine: value counts over every matching document (not only the page),
// and the min/max of numeric values, as Meilisearch answers `facetDistribution` and `facetStats`.

import type { FacetStats } from "@relevance/search";
import { MAX_VALUES_PER_FACET, RetrievalError } from "@relevance/search";
import {
  type AttributeColumn,
  BOOLEAN,
  ColumnBuilder,
  countValues,
  NUMBER,
  type ValueDictionary,
} from "./columns.ts";
import { sortSliced } from "./sort.ts";

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
  for (let a = 0; a < columns.length; a++) {
    const column = columns[a] as AttributeColumn;
    const order = await valueOrder(column.dictionary, pause);
    const reported = distribution(column, counts[a] as Uint32Array, order);
    facetDistribution[column.attribute] = reported.distribution;
    if (reported.stats !== undefined) facetStats[column.attribute] = reported.stats;
  }
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

/**
 * A dictionary's number values by value and string values by text, and its two booleans: made once
 * per dictionary (a column does not change once built), in slices, so that each distribution walks
 * them instead of sorting the values it counted, query after query (a price column's thousands of
 * distinct numbers were sorted on every faceted search).
 */
interface ValueOrder {
  numbers: Uint32Array;
  strings: Uint32Array;
  /** The value numbers of false and true; -1 when the column has none. */
  booleans: [number, number];
}

const valueOrders = new WeakMap<ValueDictionary, Promise<ValueOrder>>();

function valueOrder(dictionary: ValueDictionary, pause: () => Promise<void>): Promise<ValueOrder> {
  let order = valueOrders.get(dictionary);
  if (order === undefined) {
    order = makeValueOrder(dictionary, pause);
    valueOrders.set(dictionary, order);
    // A search stopped while it was made: the next one makes it again.
    order.catch(() => valueOrders.delete(dictionary));
  }
  return order;
}

async function makeValueOrder(
  { kinds, shown }: ValueDictionary,
  pause: () => Promise<void>,
): Promise<ValueOrder> {
  let numberCount = 0;
  let stringCount = 0;
  const booleans: [number, number] = [-1, -1];
  for (let v = 0; v < kinds.length; v++) {
    if (kinds[v] === NUMBER) numberCount++;
    else if (kinds[v] === BOOLEAN) booleans[shown[v] === true ? 1 : 0] = v;
    else stringCount++;
  }
  const numbers = new Uint32Array(numberCount);
  const strings = new Uint32Array(stringCount);
  numberCount = 0;
  stringCount = 0;
  for (let v = 0; v < kinds.length; v++) {
    if (kinds[v] === NUMBER) numbers[numberCount++] = v;
    else if (kinds[v] !== BOOLEAN) strings[stringCount++] = v;
  }
  await pause();
  const byText = (a: number, b: number) => {
    const x = shown[a] as string;
    const y = shown[b] as string;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return {
    numbers: await sortSliced(numbers, (a, b) => (shown[a] as number) - (shown[b] as number), pause),
    strings: await sortSliced(strings, byText, pause),
    booleans,
  };
}

/** One attribute's reported values (at most MAX_VALUES_PER_FACET) and the min/max of its numbers. */
function distribution(
  column: AttributeColumn,
  counts: Uint32Array,
  order: ValueOrder,
): { distribution: Record<string, number>; stats?: FacetStats } {
  const { shown } = column.dictionary;
  const out: Record<string, number> = {};
  let room = MAX_VALUES_PER_FACET;
  const add = (text: string, n: number) => {
    out[text] = (out[text] ?? 0) + n;
    room--;
  };
  let stats: FacetStats | undefined;
  const { numbers, strings, booleans } = order;
  let first = 0;
  while (first < numbers.length && counts[numbers[first] as number] === 0) first++;
  if (first < numbers.length) {
    let last = numbers.length - 1;
    while (counts[numbers[last] as number] === 0) last--;
    stats = {
      min: shown[numbers[first] as number] as number,
      max: shown[numbers[last] as number] as number,
    };
    for (let i = first; i <= last && room > 0; i++) {
      const v = numbers[i] as number;
      if (counts[v] !== 0) add(numberText(shown[v] as number), counts[v] as number);
    }
  }
  for (const [v, text] of [
    [booleans[0], "false"],
    [booleans[1], "true"],
  ] as const) {
    if (v >= 0 && counts[v] !== 0 && room > 0) add(text, counts[v] as number);
  }
  for (let i = 0; i < strings.length && room > 0; i++) {
    const v = strings[i] as number;
    if (counts[v] !== 0) add(shown[v] as string, counts[v] as number);
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
