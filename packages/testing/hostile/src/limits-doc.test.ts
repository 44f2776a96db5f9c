import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ALL_LIMITS, withLimitsTable } from "./all-limits.ts";

const DOC = fileURLToPath(new URL("../../../../docs/limits.md", import.meta.url));

describe("docs/limits.md", () => {
  it("lists exactly the limits the code enforces (run `npm run docs:limits` after changing one)", () => {
    const text = readFileSync(DOC, "utf8");
    expect(text).toBe(withLimitsTable(text));
  });

  it("has a row for every area's request body", () => {
    const bodies = ALL_LIMITS.filter((r) => r.field === "body" && r.status === 413).map((r) => r.area);
    expect(bodies).toEqual(expect.arrayContaining(["search", "monitor"]));
  });
});
