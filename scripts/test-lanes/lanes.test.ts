import { describe, expect, it } from "vitest";
import { laneOf, relativeImports } from "./lanes.ts";

describe("laneOf", () => {
  it("puts a test that spawns a process or drives a browser in e2e", () => {
    expect(laneOf("a.test.ts", 'import { spawn } from "node:child_process";', [])).toBe("e2e");
    expect(laneOf("a.test.ts", 'import { chromium } from "playwright-core";', [])).toBe("e2e");
    expect(laneOf("page.browser.test.ts", "", [])).toBe("e2e");
  });

  it("puts a test that opens a real engine in its process in integration", () => {
    expect(laneOf("a.test.ts", 'import { DatabaseSync } from "node:sqlite";', [])).toBe("integration");
    expect(laneOf("a.test.ts", "const t = await openTempStore();", [])).toBe("integration");
    expect(laneOf("a.test.ts", 'import { Miniflare } from "miniflare";', [])).toBe("integration");
    expect(laneOf("a.test.ts", 'import { sqsDouble } from "./test-support/sqs-http-double.ts";', [])).toBe(
      "integration",
    );
  });

  it("judges a test by the files it imports by relative path too", () => {
    expect(
      laneOf("a.test.ts", 'import { harness } from "./harness.ts";', ["const db = startDynalite();"]),
    ).toBe("integration");
  });

  it("leaves pure and in-memory tests in unit, whatever their comments name", () => {
    expect(
      laneOf("a.test.ts", "// unlike the chDB store, this one is in memory\nexpect(1).toBe(1);", []),
    ).toBe("unit");
    expect(laneOf("a.test.ts", "/* spawnStack is elsewhere */ const x = new InMemoryRunStore();", [])).toBe(
      "unit",
    );
  });
});

describe("relativeImports", () => {
  it("lists the relative specifiers only", () => {
    expect(
      relativeImports('import { a } from "./a.ts";\nimport { b } from "@x/b";\nimport "../c.ts";'),
    ).toEqual(["./a.ts", "../c.ts"]);
  });
});
