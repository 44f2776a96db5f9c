import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_HIERARCHY_RULES } from "@monitor/core";
import { afterAll, describe, expect, it } from "vitest";
import { HierarchyRulesError, hierarchyRulesFromEnv, loadHierarchyRules } from "./hierarchy-rules-file.ts";

const dir = mkdtempSync(join(tmpdir(), "svcmon-rules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("hierarchy rules file (HIERARCHY_RULES)", () => {
  it("defaults without the variable", async () => {
    expect(await hierarchyRulesFromEnv({})).toEqual(DEFAULT_HIERARCHY_RULES);
    expect(await hierarchyRulesFromEnv({ HIERARCHY_RULES: "" })).toEqual(DEFAULT_HIERARCHY_RULES);
  });

  it("reads a valid file", async () => {
    const path = file("ok.json", JSON.stringify({ rules: [{ tag: "squad", node: "squads/{value}" }] }));
    const rules = await hierarchyRulesFromEnv({ HIERARCHY_RULES: path });
    expect(rules.rules).toEqual([{ tag: "squad", node: "squads/{value}" }]);
  });

  it("names the file and every field at fault", async () => {
    const path = file(
      "bad.json",
      JSON.stringify({
        rules: [
          { tag: "svc:purpose", node: "x" },
          { tag: "team", node: "unassigned/{value}" },
        ],
      }),
    );
    await expect(loadHierarchyRules(path)).rejects.toThrow(
      new HierarchyRulesError(
        `hierarchy rules ${path}: rules[0].tag: svc:purpose is reserved: the svc-infrastructure rule is built in and always first; rules[1].node: must not start with unassigned: that node is reserved (resources no rule places)`,
      ),
    );
  });

  it("a missing file or bad JSON is one clear line", async () => {
    await expect(loadHierarchyRules(join(dir, "nope.json"))).rejects.toThrow(
      /^hierarchy rules .*nope\.json: cannot read: ENOENT/,
    );
    await expect(loadHierarchyRules(file("syntax.json", "{"))).rejects.toThrow(
      /syntax\.json: \(root\): not valid JSON/,
    );
  });
});
