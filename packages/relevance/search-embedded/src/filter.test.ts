import { growth } from "@relevance/core/test-support/growth";
import { RetrievalError } from "@relevance/search";
import { describe, expect, it } from "vitest";
import { compileFilter, filterSteps, parseFilter } from "./filter.ts";

const FILTERABLE = ["brand", "color", "price", "tags", "inStock", "author", "size"];

const DOCS: Record<string, unknown>[] = [
  { id: "1", brand: "Acme", color: "red", price: 10, tags: ["sale", "new"], inStock: true, size: "10" },
  { id: "2", brand: "Acme", color: "blue", price: 25.5, tags: ["new"], inStock: false },
  { id: "3", brand: "Globex", color: "Red", price: 40, tags: [], author: { name: "Ann Lee" } },
  { id: "4", brand: "Initech", price: [5, 50] },
  { id: "5", brand: "Globex Corp", color: "green", price: "15" },
];

function ids(filter: string): string[] {
  const predicate = compileFilter(filter, FILTERABLE);
  if (predicate === null) return DOCS.map((d) => String(d.id));
  return DOCS.filter((d) => predicate(d)).map((d) => String(d.id));
}

function failure(filter: string, filterable: readonly string[] = FILTERABLE): RetrievalError {
  try {
    compileFilter(filter, filterable);
  } catch (error) {
    expect(error).toBeInstanceOf(RetrievalError);
    const e = error as RetrievalError;
    expect(e.failure).toBe("invalid_request");
    expect(e.field).toBe("filter");
    return e;
  }
  throw new Error(`expected ${filter} to be rejected`);
}

describe("parseFilter", () => {
  it("binds AND tighter than OR and keeps parentheses", () => {
    expect(parseFilter("a = 1 OR b = 2 AND c = 3")).toEqual({
      kind: "or",
      operands: [
        { kind: "compare", attribute: "a", operator: "=", value: "1" },
        {
          kind: "and",
          operands: [
            { kind: "compare", attribute: "b", operator: "=", value: "2" },
            { kind: "compare", attribute: "c", operator: "=", value: "3" },
          ],
        },
      ],
    });
    expect(parseFilter("(a = 1 or b = 2) and c IN [x, 'y z']")).toEqual({
      kind: "and",
      operands: [
        {
          kind: "or",
          operands: [
            { kind: "compare", attribute: "a", operator: "=", value: "1" },
            { kind: "compare", attribute: "b", operator: "=", value: "2" },
          ],
        },
        { kind: "in", attribute: "c", values: ["x", "y z"] },
      ],
    });
  });

  it("reads quoted names and values with escapes, and operators without spaces", () => {
    expect(parseFilter(`"my attr"!="say \\"hi\\""`)).toEqual({
      kind: "compare",
      attribute: "my attr",
      operator: "!=",
      value: 'say "hi"',
    });
    expect(parseFilter("price>=-1.5")).toEqual({
      kind: "compare",
      attribute: "price",
      operator: ">=",
      value: "-1.5",
    });
    expect(parseFilter("color = 'AND'")).toEqual({
      kind: "compare",
      attribute: "color",
      operator: "=",
      value: "AND",
    });
  });
});

describe("compileFilter", () => {
  it("treats an absent or blank filter as none", () => {
    expect(compileFilter(undefined, [])).toBeNull();
    expect(compileFilter("   ", [])).toBeNull();
  });

  it("= matches strings case-insensitively, numbers numerically, booleans by name and any array element", () => {
    expect(ids("color = red")).toEqual(["1", "3"]);
    expect(ids('color = "RED"')).toEqual(["1", "3"]);
    expect(ids("brand = 'Globex Corp'")).toEqual(["5"]);
    expect(ids("price = 10")).toEqual(["1"]);
    expect(ids("price = 10.0")).toEqual(["1"]);
    expect(ids("price = 15")).toEqual(["5"]); // the string "15" equals the value 15 as text
    expect(ids("price = 50")).toEqual(["4"]);
    expect(ids("tags = sale")).toEqual(["1"]);
    expect(ids("inStock = true")).toEqual(["1"]);
    expect(ids("inStock = FALSE")).toEqual(["2"]);
    expect(ids("size = 10")).toEqual(["1"]);
  });

  it("!= is the negation of =, keeping documents without the attribute", () => {
    expect(ids("color != red")).toEqual(["2", "4", "5"]);
    expect(ids("tags != new")).toEqual(["3", "4", "5"]);
  });

  it("range operators compare numbers (and any array element), never strings", () => {
    expect(ids("price > 10")).toEqual(["2", "3", "4"]);
    expect(ids("price >= 10")).toEqual(["1", "2", "3", "4"]);
    expect(ids("price < 10")).toEqual(["4"]);
    expect(ids("price <= 10")).toEqual(["1", "4"]);
    expect(ids("price > 14")).not.toContain("5");
  });

  it("IN matches any listed value", () => {
    expect(ids("color IN [blue, green]")).toEqual(["2", "5"]);
    expect(ids("color in ['RED', \"Blue\",]")).toEqual(["1", "2", "3"]);
    expect(ids("price IN [10, 40]")).toEqual(["1", "3"]);
    expect(ids("color IN []")).toEqual([]);
  });

  it("IN costs each document one lookup, whatever the list's length (values x documents was the cost)", () => {
    const docs = Array.from({ length: 5000 }, (_, i) => ({ id: String(i), brand: `b${i % 997}`, price: i }));
    const list = (n: number) => Array.from({ length: n }, (_, i) => `B${i * 3}`).join(", ");
    const filterAll = (n: number) => {
      const predicate = compileFilter(`brand IN [${list(n)}] OR price IN [${list(n)}]`, FILTERABLE);
      return docs.filter((d) => predicate?.(d)).length;
    };
    const listed = (d: { brand: string }) => Number(d.brand.slice(1)) % 3 === 0;
    expect(filterAll(800)).toBe(docs.filter(listed).length);
    // Ten times the values, the same documents: about the same work (the documents dominate).
    expect(growth(filterAll, 80, 800, 3)).toBeLessThan(4);
  });

  it("combines with AND, OR and parentheses", () => {
    expect(ids("brand = acme AND color = red")).toEqual(["1"]);
    expect(ids("brand = acme OR color = green")).toEqual(["1", "2", "5"]);
    expect(ids("brand = globex AND (color = red OR price < 20)")).toEqual(["3"]);
    expect(ids("(brand = globex AND color = red) OR price < 20")).toEqual(["1", "3", "4"]);
    expect(ids("brand = acme AND color = red OR brand = initech")).toEqual(["1", "4"]);
    expect(ids("((price > 1)) and ((inStock = true))")).toEqual(["1"]);
  });

  it("reads nested attributes under a filterable object attribute", () => {
    expect(ids("author.name = 'ann lee'")).toEqual(["3"]);
  });

  it("rejects an attribute that is not filterable, naming it and the filterable ones", () => {
    const e = failure("brand = acme AND weight > 3");
    expect(e.message).toContain("`weight` is not filterable");
    expect(e.message).toContain("`brand`");
    expect(failure("brand = acme", []).message).toMatch(
      /`brand` is not filterable.*no filterable attributes/,
    );
    expect(failure("author = x", ["author.name"]).message).toContain("`author` is not filterable");
  });

  it("rejects syntax errors with the position and what was expected", () => {
    expect(failure("brand =").message).toMatch(/expected a value, found the end/);
    expect(failure("brand acme").message).toMatch(/expected an operator .* after `brand`, found `acme`/);
    expect(failure("(brand = a").message).toMatch(/expected `\)` to close `\(` at position 0/);
    expect(failure("brand = a)").message).toMatch(/found `\)` at position 9/);
    expect(failure("brand = a AND").message).toMatch(/expected an attribute name, found the end/);
    expect(failure("brand = a b = c").message).toMatch(/expected AND, OR or the end/);
    expect(failure("brand IN a, b").message).toMatch(/expected `\[` after IN/);
    expect(failure("brand IN [a b]").message).toMatch(/expected `,` or `\]`/);
    expect(failure("brand = 'acme").message).toMatch(/quote opened at position 8 is never closed/);
    expect(failure("brand ! acme").message).toMatch(/unexpected `!`/);
    expect(failure("price > cheap").message).toMatch(/`price >` needs a number, found `cheap`/);
  });

  it("names Meilisearch operators it does not support", () => {
    expect(failure("NOT brand = acme").message).toMatch(/`NOT` is not supported/);
    expect(failure("price 1 TO 10").message).toMatch(/`TO` is not supported/);
    expect(failure("brand EXISTS").message).toMatch(/`EXISTS` is not supported/);
    expect(failure("brand IS NULL").message).toMatch(/`IS` is not supported/);
    expect(failure("brand CONTAINS ac").message).toMatch(/`CONTAINS` is not supported/);
    expect(failure("_geoRadius(1, 2, 3)").message).toMatch(/`_GEORADIUS` is not supported/);
  });
});

describe("filter bounds", () => {
  it("refuses parentheses nested 5,000 and 100,000 deep as an invalid filter, not a stack overflow", () => {
    for (const depth of [5000, 100_000]) {
      const e = failure(`${"(".repeat(depth)}brand = Acme${")".repeat(depth)}`);
      expect(e.message).toMatch(/deeper than the limit of 32 levels/);
    }
  });

  it("accepts parentheses exactly 32 deep and refuses 33", () => {
    const nested = (d: number) => `${"(".repeat(d)}brand = Acme${")".repeat(d)}`;
    expect(ids(nested(32))).toEqual(["1", "2"]);
    expect(failure(nested(33)).message).toMatch(/limit of 32 levels/);
  });

  it("refuses a 100,000-long NOT chain as unsupported, without recursion", () => {
    expect(failure(`${"NOT ".repeat(100_000)}brand = Acme`).message).toMatch(/NOT/);
  });

  it.each([
    [
      "conditions joined by AND and OR in turn",
      (n: number) =>
        Array.from({ length: n }, (_, i) => `${i === 0 ? "" : i % 2 ? " AND " : " OR "}brand = b${i}`).join(
          "",
        ),
    ],
    ["a long IN list", (n: number) => `tags IN [${Array.from({ length: n }, (_, i) => `t${i}`).join(", ")}]`],
    ["a long quoted value with escapes", (n: number) => `brand = "${'a\\"'.repeat(n)}"`],
    ["a long bare value", (n: number) => `brand = ${"x".repeat(10 * n)}`],
    [
      "shallow groups side by side",
      (n: number) => Array.from({ length: n }, () => "((brand = a))").join(" OR "),
    ],
  ])("parses and compiles %s with work linear in its length", (_name, make) => {
    // Counted work (characters looked at, tokens inspected), not time: ten times the filter, about
    // ten times the work; quadratic parsing would be a hundred.
    const work = (source: string) => {
      const before = filterSteps();
      compileFilter(source, FILTERABLE);
      return filterSteps() - before;
    };
    const small = work(make(2000));
    expect(small).toBeGreaterThan(2000);
    expect(work(make(20_000)) / small).toBeLessThan(11);
  });
});
