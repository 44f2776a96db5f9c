// Which attributes a search may sort on: Meilisearch answers 422 to a sort on an attribute that
// `sortableAttributes` does not list. Shared by the search request's sort (the caller passes the
// parsed `sort` expressions) and any engine that sorts.

import type { SearchTarget } from "@relevance/search";
import { RetrievalError } from "@relevance/search";

/** The attribute of one sort expression (`price:asc`, `author.name:desc`), or null when malformed. */
export function sortAttribute(expression: string): string | null {
  const colon = expression.lastIndexOf(":");
  if (colon <= 0) return null;
  const direction = expression.slice(colon + 1);
  return direction === "asc" || direction === "desc" ? expression.slice(0, colon) : null;
}

/**
 * Throws RetrievalError("invalid_request", field "sort") when a sort expression is malformed or
 * names an attribute that the target's `sortableAttributes` does not list.
 */
export function assertSortable(
  target: Pick<SearchTarget, "sortableAttributes">,
  sort: readonly string[],
): void {
  const sortable = target.sortableAttributes ?? [];
  for (const expression of sort) {
    const attribute = sortAttribute(expression);
    if (attribute === null) {
      throw new RetrievalError(
        "invalid_request",
        `sort expression ${JSON.stringify(expression)} must be "attribute:asc" or "attribute:desc"`,
        "sort",
      );
    }
    if (!sortable.includes(attribute) && !sortable.includes("*")) {
      const listed = sortable.length === 0 ? "none" : sortable.map((a) => JSON.stringify(a)).join(", ");
      throw new RetrievalError(
        "invalid_request",
        `attribute ${JSON.stringify(attribute)} is not sortable; the sortable attributes are: ${listed}`,
        "sort",
      );
    }
  }
}
