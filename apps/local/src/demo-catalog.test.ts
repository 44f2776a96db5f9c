import { describe, expect, it } from "vitest";
import { DEMO_CATALOG_SIZE, demoCatalog, demoCategories, NOUNS_BY_CATEGORY } from "./demo-catalog.ts";

describe("the demo catalog", () => {
  const catalog = demoCatalog();

  it("is 10,000 products, the same on every run (fixed faker seed)", () => {
    expect(catalog).toHaveLength(DEMO_CATALOG_SIZE);
    // Pinned: a faker upgrade that changes these changes the catalog, and the demo model must be
    // retrained with `npm run demo:train` (training/demo/README.md).
    expect(catalog[0]).toEqual({
      id: "p00001",
      title: "Licensed Marble Computer",
      category: "Computers",
      tags: ["computers", "marble", "licensed"],
      price: 399.85,
      description:
        "The Shanie Table is the latest in a series of major products from Mann, Bogisich and McCullough",
    });
    expect(catalog[DEMO_CATALOG_SIZE - 1]).toEqual({
      id: "p10000",
      title: "Incredible Aluminum Shoes",
      category: "Baby",
      tags: ["baby", "aluminum", "incredible"],
      price: 323.29,
      description: "The mint green Ball combines United Kingdom aesthetics with Barium-based durability",
    });
    expect(demoCatalog()).toEqual(catalog);
    expect(demoCatalog(3, 1)).not.toEqual(catalog.slice(0, 3));
  });

  it("has unique ids, faker's departments as categories, and tags with the category and material", () => {
    expect(new Set(catalog.map((p) => p.id)).size).toBe(DEMO_CATALOG_SIZE);
    const categories = demoCategories(catalog);
    expect(categories).toHaveLength(22);
    for (const c of Object.keys(NOUNS_BY_CATEGORY)) expect(categories).toContain(c);
    for (const p of catalog) {
      expect(p.tags[0]).toBe(p.category.toLowerCase());
      expect(p.title.toLowerCase()).toContain(p.tags[1] as string);
      expect(p.price).toBeGreaterThanOrEqual(1);
      expect(p.price).toBeLessThanOrEqual(500);
    }
  });
});
