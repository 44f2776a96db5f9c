import { describe, expect, it } from "vitest";
import { doubleFilter, doubleSort } from "./double-filter.ts";

const docs = [
  { id: 1, category: "Home", price: 30, tags: ["wood", "oak"] },
  { id: 2, category: "Garden", price: 10, tags: ["steel"] },
  { id: 3, category: "Home", price: 20, tags: ["steel"] },
];
const ids = (filter: unknown) => {
  const f = doubleFilter(filter, ["category", "price", "tags"]);
  if (!f.ok) throw new Error(f.message);
  return docs.filter(f.test).map((d) => d.id);
};

describe("the Meilisearch double's filters", () => {
  it("reads InstantSearch's arrays: OR inside an inner array, AND between items", () => {
    expect(ids([['category="Home"']])).toEqual([1, 3]);
    expect(ids([['"category"="Home"']])).toEqual([1, 3]);
    expect(ids([['category="Home"', 'category="Garden"'], ['tags="steel"']])).toEqual([2, 3]);
    expect(ids("category = Home AND price >= 25")).toEqual([1]);
    expect(ids("tags != steel")).toEqual([1]);
    expect(ids(undefined)).toEqual([1, 2, 3]);
  });

  it("refuses what it does not evaluate, and attributes that are not filterable", () => {
    expect(doubleFilter("price 10 TO 20", ["price"]).ok).toBe(false);
    expect(doubleFilter("(category = Home)", ["category"]).ok).toBe(false);
    const notFilterable = doubleFilter("color = red", ["category"]);
    expect(notFilterable.ok ? "" : notFilterable.message).toContain("`color` is not filterable");
  });

  it("sorts by sortable attributes, numbers as numbers", () => {
    const copy = [...docs];
    expect(doubleSort(copy, ["price:asc"], ["price"])).toBeNull();
    expect(copy.map((d) => d.id)).toEqual([2, 3, 1]);
    expect(doubleSort(copy, ["category:asc", "price:desc"], ["price", "category"])).toBeNull();
    expect(copy.map((d) => d.id)).toEqual([2, 1, 3]);
    expect(doubleSort(copy, ["title:asc"], ["price"])).toContain("not sortable");
  });
});
