import { describe, expect, it } from "vitest";
import { checkImports, report } from "./import-graph.ts";

describe("the repository's import graph", () => {
  it("has no import cycle, relative import across workspaces or upward import beyond the allowlist", () => {
    // The message lists each violation with its file, line and import (or each stale allowlist entry).
    expect(report(checkImports())).toBe("");
  });
});
