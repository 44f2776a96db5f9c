// The demo catalog of `npm start` and of the demo model's training data (training/demo/): 10,000
// products generated with @faker-js/faker's commerce module from a fixed seed, so every machine
// builds the same catalog. The generated values depend on the faker version pinned in
// package-lock.json; demo-catalog.test.ts pins the first and last products, so an upgrade that
// changes them fails that test, and the demo model must then be retrained (`npm run demo:train`).
import { faker } from "@faker-js/faker/locale/en";

export const DEMO_SEED = 20_260_501;
export const DEMO_CATALOG_SIZE = 10_000;

export interface DemoProduct {
  id: string;
  title: string;
  category: string;
  tags: string[];
  price: number;
  description: string;
}

/**
 * Faker's product nouns by the department (faker.commerce.department) they belong to. A product
 * whose department has nouns is usually named after one of them; departments without nouns (Books,
 * Garden, ...) get any noun. So a query's words tell its category sometimes, not always: the demo
 * labels are then spread out, and worth predicting.
 */
export const NOUNS_BY_CATEGORY: Readonly<Record<string, readonly string[]>> = {
  Grocery: ["Cheese", "Bacon", "Tuna", "Fish", "Salad", "Pizza", "Chips", "Chicken", "Sausages"],
  Computers: ["Computer", "Mouse", "Keyboard"],
  Clothing: ["Pants", "Shirt", "Hat", "Gloves"],
  Shoes: ["Shoes"],
  Sports: ["Bike", "Ball"],
  Automotive: ["Car"],
  Home: ["Towels", "Table", "Chair"],
  Beauty: ["Soap"],
};

/** How often a product of a department with nouns is named after one of them. */
const OWN_NOUN_SHARE = 0.7;

/** The 10,000 demo products, in order (ids p00001 to p10000). Same seed, same products. */
export function demoCatalog(count = DEMO_CATALOG_SIZE, seed = DEMO_SEED): DemoProduct[] {
  faker.seed(seed);
  const products: DemoProduct[] = [];
  for (let i = 1; i <= count; i++) {
    const category = faker.commerce.department();
    const own = NOUNS_BY_CATEGORY[category];
    const noun =
      own !== undefined && faker.number.float() < OWN_NOUN_SHARE
        ? faker.helpers.arrayElement(own)
        : faker.commerce.product();
    const adjective = faker.commerce.productAdjective();
    const material = faker.commerce.productMaterial();
    products.push({
      id: `p${String(i).padStart(5, "0")}`,
      title: `${adjective} ${material} ${noun}`,
      category,
      tags: [category.toLowerCase(), material.toLowerCase(), adjective.toLowerCase()],
      price: Number(faker.commerce.price({ min: 1, max: 500 })),
      description: faker.commerce.productDescription(),
    });
  }
  return products;
}

/** Every department faker's commerce module knows (the demo categories). */
export function demoCategories(products: readonly DemoProduct[]): string[] {
  return [...new Set(products.map((p) => p.category))].sort();
}
