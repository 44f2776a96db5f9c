import { describe, expect, it } from "vitest";
import { MAX_SOURCE_LINES, sourceLineCount, workspaceSizes } from "./package-size.ts";

describe("package size", () => {
  it("counts code lines, not blank lines or comments", () => {
    const text = ["/**", " * Why.", " */", "", "// note", "const a = 1; // trailing", "  return a;", ""].join(
      "\n",
    );
    expect(sourceLineCount(text)).toBe(2);
  });

  it(`no package, app or infra is over ${MAX_SOURCE_LINES} source lines`, () => {
    const sizes = workspaceSizes(process.cwd());
    expect(sizes.length).toBeGreaterThan(10);
    const over = sizes.filter((s) => s.lines > MAX_SOURCE_LINES).map((s) => `${s.dir}: ${s.lines}`);
    expect(over).toEqual([]);
  });
});
