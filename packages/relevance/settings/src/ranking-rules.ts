/**
 * Meilisearch's default ranking rules, and which orders of them the search service honours. One
 * definition for the admin API's settings validation (`@relevance/admin`), the settings copied to
 * Meilisearch (`@relevance/search`) and the embedded engine (`@relevance/search-embedded`).
 */
export const DEFAULT_RANKING_RULES = ["words", "typo", "proximity", "attribute", "sort", "exactness"];

/**
 * Whether the embedded engine can honour `rules`: the default rules with `sort` at any position
 * (where it sits decides which relevance tiers a sort breaks ties of), the others in their default
 * order.
 */
export function rankingRulesSupported(rules: readonly string[]): boolean {
  const others = DEFAULT_RANKING_RULES.filter((rule) => rule !== "sort");
  return (
    rules.length === DEFAULT_RANKING_RULES.length &&
    rules.filter((rule) => rule === "sort").length === 1 &&
    JSON.stringify(rules.filter((rule) => rule !== "sort")) === JSON.stringify(others)
  );
}
