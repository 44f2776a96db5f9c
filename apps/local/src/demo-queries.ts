// The demo's judged queries, before labelling: generated deterministically (fixed seed) from the demo
// catalog's vocabulary, each with the category the shopper means. Here, beside the catalog, so that
// demo.test.ts can prove the committed training data came from them; training/demo/make_demo_queries.ts
// labels them through a running stack.
import { faker } from "@faker-js/faker/locale/en";
import { demoCatalog, demoCategories, NOUNS_BY_CATEGORY } from "./demo-catalog.ts";

export const QUERY_SEED = 7_2026;
export const QUERY_COUNT = 2000;
/** Every fifth query (positions 4, 9, 14, ...) is held out from training. */
export const HOLDOUT_EVERY = 5;

export interface DemoQuery {
  q: string;
  /** The category the shopper means: what the label measures. */
  intendedCategory: string;
  /** The template that built it (for analysis only; not a feature). */
  kind: string;
  split: "train" | "holdout";
  label?: number;
}

const ADJECTIVES = (): string => faker.commerce.productAdjective().toLowerCase();
const MATERIAL = (): string => faker.commerce.productMaterial().toLowerCase();

/** One typo: two adjacent inner letters swapped (the engine's typo tolerance should still find it). */
function typo(word: string): string {
  if (word.length < 4) return word;
  const i = faker.number.int({ min: 1, max: word.length - 3 });
  return word.slice(0, i) + (word[i + 1] as string) + (word[i] as string) + word.slice(i + 2);
}

/**
 * The query templates: some name the category (usually good results), some one of its products
 * (whose name other categories use too), some only say a material or adjective (the category is
 * then up to chance), some mix in another category's product (conflicting words).
 */
function makeQuery(categories: readonly string[]): { q: string; intendedCategory: string; kind: string } {
  const category = faker.helpers.arrayElement(categories);
  const cat = category.toLowerCase();
  const nouns = (NOUNS_BY_CATEGORY[category] ?? []).map((n) => n.toLowerCase());
  const anyNoun = (): string => faker.commerce.product().toLowerCase();
  // A shopper names products of the category they mean; categories without product nouns in the
  // catalog (Books, Garden, ...) are asked for by name only.
  const own = (): string => faker.helpers.arrayElement(nouns);
  const byName: [string, () => string][] = [
    ["category", () => cat],
    ["material category", () => `${MATERIAL()} ${cat}`],
    ["adjective category", () => `${ADJECTIVES()} ${cat}`],
    ["typo category", () => typo(cat)],
    ["category other product", () => `${cat} ${anyNoun()}`],
    ["adjective material", () => `${ADJECTIVES()} ${MATERIAL()}`],
    ["material", () => MATERIAL()],
  ];
  const byProduct: [string, () => string][] = [
    ["product", () => own()],
    ["material product", () => `${MATERIAL()} ${own()}`],
    ["adjective product", () => `${ADJECTIVES()} ${own()}`],
    ["adjective material product", () => `${ADJECTIVES()} ${MATERIAL()} ${own()}`],
    ["category product", () => `${cat} ${own()}`],
    ["typo product", () => typo(own())],
  ];
  const templates = nouns.length > 0 ? [...byName, ...byProduct, ...byProduct] : byName;
  const [kind, make] = faker.helpers.arrayElement(templates);
  return { q: make(), intendedCategory: category, kind };
}

/** QUERY_COUNT distinct queries (a repeated text is drawn again), in a fixed order, with the split. */
export function generateDemoQueries(count = QUERY_COUNT, seed = QUERY_SEED): DemoQuery[] {
  const categories = demoCategories(demoCatalog());
  faker.seed(seed);
  const seen = new Set<string>();
  const out: DemoQuery[] = [];
  while (out.length < count) {
    const query = makeQuery(categories);
    if (seen.has(query.q)) continue;
    seen.add(query.q);
    out.push({ ...query, split: out.length % HOLDOUT_EVERY === HOLDOUT_EVERY - 1 ? "holdout" : "train" });
  }
  return out;
}
