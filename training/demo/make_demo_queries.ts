// The demo's judged queries: generated deterministically (fixed seed) from the demo catalog's
// vocabulary, each with the category the shopper means, then labelled by measurement:
//
//   label = 10 × (number of the top 10 hits whose category is the intended one) / 10
//
// where the hits come from the real search API of a running stack holding the demo catalog (a
// result with fewer than 10 hits counts the empty places as misses, so an empty result is 0).
//
// Standalone (against a running `npm start` with the demo catalog):
//   npx node training/demo/make_demo_queries.ts --url http://127.0.0.1:8787 --api-key K --out queries.jsonl
// `npm run demo:train` (train_demo.ts) runs it as one step of the whole pipeline.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { faker } from "@faker-js/faker/locale/en";
import { demoCatalog, demoCategories, NOUNS_BY_CATEGORY } from "../../apps/local/src/demo-catalog.ts";

export const QUERY_SEED = 7_2026;
export const QUERY_COUNT = 2000;
/** Every fifth query (positions 4, 9, 14, ...) is held out from training. */
export const HOLDOUT_EVERY = 5;
export const LABEL_DEPTH = 10;

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

/** Measures each query's label through the search API (top LABEL_DEPTH hits, plain search). */
export async function labelQueries(
  url: string,
  apiKey: string,
  index: string,
  queries: readonly DemoQuery[],
): Promise<DemoQuery[]> {
  const out: DemoQuery[] = [];
  for (const query of queries) {
    const res = await fetch(`${url}/api/v1/indexes/${index}/search`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ q: query.q, limit: LABEL_DEPTH }),
    });
    if (res.status !== 200) throw new Error(`search for ${JSON.stringify(query.q)} answered ${res.status}`);
    const body = (await res.json()) as { hits: { category?: unknown }[] };
    const relevant = body.hits.filter((h) => h.category === query.intendedCategory).length;
    out.push({ ...query, label: (10 * relevant) / LABEL_DEPTH });
  }
  return out;
}

export const toJsonLines = (rows: readonly object[]): string =>
  rows.map((r) => `${JSON.stringify(r)}\n`).join("");

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      "api-key": { type: "string" },
      index: { type: "string", default: "products" },
      out: { type: "string", default: "queries.jsonl" },
    },
  });
  if (values.url === undefined || values["api-key"] === undefined) {
    process.stderr.write("usage: make_demo_queries.ts --url URL --api-key K [--index products] [--out F]\n");
    process.exit(2);
  }
  const labelled = await labelQueries(values.url, values["api-key"], values.index, generateDemoQueries());
  writeFileSync(values.out, toJsonLines(labelled));
  process.stdout.write(`wrote ${values.out}: ${labelled.length} labelled queries\n`);
}
