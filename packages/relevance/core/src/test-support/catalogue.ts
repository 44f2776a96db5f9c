// A generated shop catalogue (issue 29: the embedded engine at a real catalogue's size), seeded, for
// the tests that load one through the customer API and the catalogue-size benchmarks: the same
// products and words in both.
import { mulberry32 } from "./prng.ts";

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
export function* catalogue(
  count: number,
  batch = 1000,
  /** Each title's fourth word a code no other product has (`q` + its number in base 36 + `z`). */
  uniqueTitles = false,
): Generator<Product[]> {
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
        title: `${pick(ADJECTIVES)} ${pick(ADJECTIVES)} ${noun} ${uniqueTitles ? `q${i.toString(36)}z` : pick(EXTRAS)}`,
        category: noun,
        price: Math.round(rand() * 20_000) / 100,
        tags: [noun, pick(ADJECTIVES), pick(EXTRAS)],
        description: Array.from({ length: 20 }, () => pick(vocabulary)).join(" "),
      });
    }
    yield products;
  }
}
