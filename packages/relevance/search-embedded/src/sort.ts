// `sort` for the embedded engine: `attribute:asc` / `attribute:desc` criteria applied in order,
// numbers before strings, documents without a sortable value last whatever the direction (as
// Meilisearch sorts).

import { nfkc } from "@relevance/core";
import { RetrievalError } from "@relevance/search";
import { fieldValue } from "./fields.ts";

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

/** The key of a value: for an array, its smallest element ascending, its largest descending. */
function keyOf(value: unknown, descending: boolean): SortKey {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  let best: SortKey = null;
  for (const element of Array.isArray(value) ? value : [value]) {
    let key: SortKey = null;
    if (typeof element === "number" && Number.isFinite(element)) key = element;
    else if (typeof element === "string") key = nfkc(element).toLowerCase();
    else if (typeof element === "boolean") key = String(element);
    if (key === null) continue;
    if (best === null || (descending ? compareKeys(key, best) > 0 : compareKeys(key, best) < 0)) best = key;
  }
  return best;
}

/** A document's keys for the criteria, in order. */
export function sortKeys(doc: Record<string, unknown>, criteria: readonly SortCriterion[]): SortKey[] {
  return criteria.map((c) => keyOf(fieldValue(doc, c.attribute), c.descending));
}

/** Compares two documents' keys by the criteria: negative when `x` sorts first, 0 when equal. */
export function compareSortKeys(x: SortKey[], y: SortKey[], criteria: readonly SortCriterion[]): number {
  for (let i = 0; i < criteria.length; i++) {
    const a = x[i] as SortKey;
    const b = y[i] as SortKey;
    if (a === b) continue;
    if (a === null) return 1;
    if (b === null) return -1;
    const c = compareKeys(a, b);
    if (c !== 0) return (criteria[i] as SortCriterion).descending ? -c : c;
  }
  return 0;
}

/**
 * Sorts `ids` (already in ranking order) by the criteria; equal documents keep their ranking order.
 * Keys are computed once per document and criterion.
 */
export function sortIds(
  ids: readonly string[],
  criteria: readonly SortCriterion[],
  docOf: (id: string) => Record<string, unknown> | undefined,
): string[] {
  const rows = ids.map((id, rank) => ({ id, rank, keys: sortKeys(docOf(id) ?? {}, criteria) }));
  rows.sort((x, y) => compareSortKeys(x.keys, y.keys, criteria) || x.rank - y.rank);
  return rows.map((r) => r.id);
}
