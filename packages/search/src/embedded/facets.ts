// Facets of the embedded engine: value counts over every matching document (not only the page),
// and the min/max of numeric values, as Meilisearch answers `facetDistribution` and `facetStats`.

import { nfkc } from "@relevance/core";
import { MAX_VALUES_PER_FACET } from "../limits.ts";
import type { FacetStats } from "../ports.ts";
import { RetrievalError } from "../ports.ts";
import { fieldValue } from "./fields.ts";

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
 * reported per attribute, the first in alphabetical order. One pass over the documents per attribute.
 */
export function computeFacets(
  docs: Iterable<Record<string, unknown>>,
  attributes: readonly string[],
): Facets {
  const counts = attributes.map(() => new Map<string, { shown: string; count: number }>());
  const stats = attributes.map(() => ({ min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY }));
  const normalized = new Map<string, string>();
  const seen = new Set<string>();
  for (const doc of docs) {
    attributes.forEach((attribute, a) => {
      const value = fieldValue(doc, attribute);
      const elements = Array.isArray(value) ? value : [value];
      const count = counts[a] as Map<string, { shown: string; count: number }>;
      const stat = stats[a] as { min: number; max: number };
      seen.clear();
      for (const element of elements) {
        let key: string;
        let shown: string;
        if (typeof element === "string") {
          let n = normalized.get(element);
          if (n === undefined) {
            n = nfkc(element).toLowerCase();
            if (normalized.size < 100_000) normalized.set(element, n);
          }
          key = `s${n}`;
          shown = element;
        } else if (typeof element === "number" && Number.isFinite(element)) {
          key = `n${element}`;
          shown = String(element);
          if (element < stat.min) stat.min = element;
          if (element > stat.max) stat.max = element;
        } else if (typeof element === "boolean") {
          key = `b${element}`;
          shown = String(element);
        } else {
          continue;
        }
        if (seen.has(key)) continue;
        seen.add(key);
        const entry = count.get(key);
        if (entry === undefined) count.set(key, { shown, count: 1 });
        else entry.count++;
      }
    });
  }
  const facetDistribution: Record<string, Record<string, number>> = {};
  const facetStats: Record<string, FacetStats> = {};
  attributes.forEach((attribute, a) => {
    const entries = [...(counts[a] as Map<string, { shown: string; count: number }>).values()];
    entries.sort((x, y) => (x.shown < y.shown ? -1 : x.shown > y.shown ? 1 : 0));
    const distribution: Record<string, number> = {};
    for (const { shown, count } of entries.slice(0, MAX_VALUES_PER_FACET)) distribution[shown] = count;
    facetDistribution[attribute] = distribution;
    const stat = stats[a] as { min: number; max: number };
    if (stat.min <= stat.max) facetStats[attribute] = { min: stat.min, max: stat.max };
  });
  return { facetDistribution, facetStats };
}
