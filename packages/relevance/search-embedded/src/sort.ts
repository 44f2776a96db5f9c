// `sort` for the embedded engine: `attribute:asc` / `attribute:desc` criteria applied in order,
// numbers before strings, documents without a sortable value last whatever the direction (as
// Meilisearch sorts).

import { RetrievalError } from "@relevance/search";
import { type AttributeColumn, BOOLEAN, NUMBER } from "./columns.ts";

export interface SortCriterion {
  attribute: string;
  descending: boolean;
}

/** Parses the criteria (already shaped `name:asc|desc` by the request) and checks `sortable` when given. */
export function sortCriteria(
  sort: readonly string[],
  sortable: readonly string[] | undefined,
): SortCriterion[] {
  return sort.map((text) => {
    const colon = text.lastIndexOf(":");
    const attribute = text.slice(0, colon);
    const direction = text.slice(colon + 1);
    if (colon < 1 || (direction !== "asc" && direction !== "desc")) {
      throw new RetrievalError(
        "invalid_request",
        `Invalid sort \`${text}\`: use \`attribute:asc\` or \`attribute:desc\`.`,
        "sort",
      );
    }
    if (sortable !== undefined && !sortable.some((s) => s === attribute || attribute.startsWith(`${s}.`))) {
      const available =
        sortable.length === 0
          ? "This index has no sortable attributes."
          : `Sortable attributes: ${sortable.map((s) => `\`${s}\``).join(", ")}.`;
      throw new RetrievalError(
        "invalid_request",
        `Attribute \`${attribute}\` is not sortable. ${available}`,
        "sort",
      );
    }
    return { attribute, descending: direction === "desc" };
  });
}

/** A sort key: a number, a normalized string, or null (no sortable value). */
export type SortKey = number | string | null;

/** -1, 0 or 1; numbers before strings. */
function compareKeys(a: number | string, b: number | string): number {
  if (typeof a === "number") return typeof b === "number" ? a - b : -1;
  if (typeof b === "number") return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The key of every document for one criterion, by document number, from the attribute's column
 * (columns.ts): a key per distinct value, then per document the smallest of its values' keys
 * ascending, the largest descending (strings by their NFKC lower-case form, booleans as `true`/`false`, numbers before strings; a document without a value has no key). `pause` between documents.
 */
export async function sortColumn(
  column: AttributeColumn,
  descending: boolean,
  pause: () => Promise<void>,
): Promise<SortKey[]> {
  const { kinds, shown, normalized } = column.dictionary;
  const keys: (number | string)[] = kinds.map((kind, v) =>
    kind === NUMBER ? (shown[v] as number) : kind === BOOLEAN ? String(shown[v]) : (normalized[v] as string),
  );
  const { offsets, values } = column;
  const documents = offsets.length - 1;
  const out: SortKey[] = new Array(documents);
  for (let d = 0; d < documents; d++) {
    let best: number | string | null = null;
    for (let i = offsets[d] as number; i < (offsets[d + 1] as number); i++) {
      const key = keys[values[i] as number] as number | string;
      if (best === null || (descending ? compareKeys(key, best) > 0 : compareKeys(key, best) < 0)) best = key;
    }
    out[d] = best;
    if (d % 1024 === 1023) await pause();
  }
  return out;
}

/** `compareSortKeys` of documents `a` and `b` by their keys in `columns` (one per criterion). */
export function compareColumns(
  columns: readonly SortKey[][],
  a: number,
  b: number,
  criteria: readonly SortCriterion[],
): number {
  for (let i = 0; i < criteria.length; i++) {
    const column = columns[i] as SortKey[];
    const x = column[a] as SortKey;
    const y = column[b] as SortKey;
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    const c = compareKeys(x, y);
    if (c !== 0) return (criteria[i] as SortCriterion).descending ? -c : c;
  }
  return 0;
}

/** Elements sorted in one piece before the pieces are merged (a few milliseconds each). */
const SORT_RUN = 2048;

/**
 * Sorts `items` by `compare` (stable), giving the event loop back between pieces of work: runs of
 * SORT_RUN sorted by the engine's sort, then merged pairwise, `pause` awaited every SORT_RUN
 * elements merged. Sorting 100,000 matches in one piece held the loop some 60 ms.
 */
export async function sortSliced(
  items: Uint32Array,
  compare: (a: number, b: number) => number,
  pause: () => Promise<void>,
): Promise<Uint32Array> {
  const n = items.length;
  let from = Uint32Array.from(items);
  for (let start = 0; start < n; start += SORT_RUN) {
    const run = Array.from(from.subarray(start, Math.min(n, start + SORT_RUN)));
    run.sort(compare);
    from.set(run, start);
    await pause();
  }
  let to = new Uint32Array(n);
  for (let width = SORT_RUN; width < n; width *= 2) {
    let done = 0;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        // `<= 0` takes the left run's element on ties: the merge is stable.
        if (compare(from[i] as number, from[j] as number) <= 0) to[k++] = from[i++] as number;
        else to[k++] = from[j++] as number;
        if (++done % SORT_RUN === 0) await pause();
      }
      while (i < mid) to[k++] = from[i++] as number;
      while (j < hi) to[k++] = from[j++] as number;
    }
    [from, to] = [to, from];
  }
  return from;
}
