// The generated catalogue of the catalogue-size benchmarks (issue 29) and the queries asked of it,
// by kind. Seeded, so every engine and every run sees the same products and the same queries.
import { mulberry32 } from "../../packages/relevance/core/src/test-support/prng.ts";

const ADJECTIVES =
  "red blue black white green grey light heavy waterproof wireless compact classic premium organic leather wool cotton steel bamboo".split(
    " ",
  );
const NOUNS =
  "shoes boots jacket socks shirt trousers backpack bottle headphones speaker charger cable lamp chair table mug kettle blender towel pillow".split(
    " ",
  );
const EXTRAS = "for men for women for kids 2-pack xl set travel edition pro mini max".split(" ");
const SYLLABLES = "ka ri to me su na lo pe vi da ne ro mi sa tu ko ba li".split(" ");

export interface Product {
  id: string;
  title: string;
  category: string;
  price: number;
  tags: string[];
  description: string;
}

/**
 * `count` products, `batch` at a time: titles of four words, a category, a price, three tags and a
 * 20-word description drawn from a vocabulary of 5,000 made-up words.
 */
export function* catalogue(count: number, batch = 1000): Generator<Product[]> {
  const rand = mulberry32(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const vocabulary = Array.from({ length: 5000 }, () =>
    Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(SYLLABLES)).join(""),
  );
  for (let start = 0; start < count; start += batch) {
    const products: Product[] = [];
    for (let i = start; i < Math.min(count, start + batch); i++) {
      const noun = pick(NOUNS);
      products.push({
        id: `p${String(i).padStart(7, "0")}`,
        title: `${pick(ADJECTIVES)} ${pick(ADJECTIVES)} ${noun} ${pick(EXTRAS)}`,
        category: noun,
        price: Math.round(rand() * 20_000) / 100,
        tags: [noun, pick(ADJECTIVES), pick(EXTRAS)],
        description: Array.from({ length: 20 }, () => pick(vocabulary)).join(" "),
      });
    }
    yield products;
  }
}

/** The index settings every engine is given. */
export const SETTINGS = {
  searchableAttributes: ["title", "category", "tags", "description"],
  filterableAttributes: ["category", "price", "tags"],
  sortableAttributes: ["price"],
};

/** One search as the benchmark asks it (a subset of Meilisearch's search parameters). */
export interface CatalogueQuery {
  q: string;
  filter?: string;
  sort?: string[];
  facets?: string[];
  limit: number;
}

/** The queries of each kind, cycled through. */
export const QUERY_KINDS: Record<string, CatalogueQuery[]> = {
  "multi-word": ["red leather boots", "wireless headphones", "wool socks for kids", "blue cotton shirt"].map(
    (q) => ({ q, limit: 20 }),
  ),
  "one word": ["jacket", "lamp", "bottle", "premium"].map((q) => ({ q, limit: 20 })),
  prefix: ["st", "wi", "he", "ch"].map((q) => ({ q, limit: 20 })),
  typo: ["hedphones", "wirless", "blendr", "backpak"].map((q) => ({ q, limit: 20 })),
  "facets + sort + filter": ["wireless", "leather", "cotton", "steel"].map((q) => ({
    q,
    filter: "price < 100",
    sort: ["price:asc"],
    facets: ["category", "price"],
    limit: 20,
  })),
  "empty query": [{ q: "", limit: 20 }],
};
