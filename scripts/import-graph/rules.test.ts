import { describe, expect, it } from "vitest";
import { type AllowEntry, describeViolation, type Edge, findViolations, judge } from "./rules.ts";

const edge = (from: string, specifier: string, to: string): Edge => ({ from, specifier, to, line: 1 });
const summary = (edges: Edge[]) => findViolations(edges).map((v) => `${v.rule} ${v.file} ${v.import}`);

describe("findViolations", () => {
  it("reports every import edge of a file-level cycle, with the cycle", () => {
    const edges = [
      edge("packages/a/src/x.ts", "./y.ts", "packages/a/src/y.ts"),
      edge("packages/a/src/y.ts", "./z.ts", "packages/a/src/z.ts"),
      edge("packages/a/src/z.ts", "./x.ts", "packages/a/src/x.ts"),
      edge("packages/a/src/index.ts", "./x.ts", "packages/a/src/x.ts"),
    ];
    const cycles = findViolations(edges);
    expect(cycles.map((v) => `${v.rule} ${v.file}`)).toEqual([
      "cycle packages/a/src/x.ts",
      "cycle packages/a/src/y.ts",
      "cycle packages/a/src/z.ts",
    ]);
    expect(cycles[0]?.detail).toBe(
      "packages/a/src/x.ts → packages/a/src/y.ts → packages/a/src/z.ts → packages/a/src/x.ts",
    );
  });

  it("reports a file importing itself as a cycle", () => {
    expect(summary([edge("packages/a/src/x.ts", "./x.ts", "packages/a/src/x.ts")])).toEqual([
      "cycle packages/a/src/x.ts ./x.ts",
    ]);
  });

  it("reports a relative import into another workspace, and accepts the same import by package name", () => {
    expect(
      summary([
        edge(
          "packages/relevance/admin/src/a.ts",
          "../../settings/src/sqlite/documents.ts",
          "packages/relevance/settings/src/sqlite/documents.ts",
        ),
        edge(
          "packages/relevance/admin/src/b.ts",
          "@relevance/settings/sqlite",
          "packages/relevance/settings/src/sqlite/index.ts",
        ),
        edge("infra/src/lambda/x.ts", "../../../apps/cli/src/main.ts", "apps/cli/src/main.ts"),
        edge("infra/src/lambda/y.ts", "@apps/cli", "apps/cli/src/main.ts"),
      ]),
    ).toEqual([
      "relative-across packages/relevance/admin/src/a.ts ../../settings/src/sqlite/documents.ts",
      "relative-across infra/src/lambda/x.ts ../../../apps/cli/src/main.ts",
    ]);
  });

  it("reports upward imports: package to app or infra, app to infra, app to another app", () => {
    expect(
      summary([
        edge("packages/core/src/a.ts", "@apps/cli", "apps/cli/src/main.ts"),
        edge("packages/core/src/b.ts", "infra", "infra/src/app.ts"),
        edge("apps/cli/src/c.ts", "infra", "infra/src/app.ts"),
        edge("apps/cli/src/d.ts", "@apps/local", "apps/local/src/main.ts"),
      ]),
    ).toEqual([
      "upward packages/core/src/a.ts @apps/cli",
      "upward packages/core/src/b.ts infra",
      "upward apps/cli/src/c.ts infra",
      "upward apps/cli/src/d.ts @apps/local",
    ]);
  });

  it("reports an upward relative import under both rules", () => {
    expect(summary([edge("apps/cli/src/x.ts", "../../../infra/src/y.ts", "infra/src/y.ts")])).toEqual([
      "relative-across apps/cli/src/x.ts ../../../infra/src/y.ts",
      "upward apps/cli/src/x.ts ../../../infra/src/y.ts",
    ]);
  });

  it("accepts downward imports, an app's test starting another app through its test-support, and root tooling", () => {
    expect(
      summary([
        edge("infra/src/lambda/x.ts", "@apps/admin-lambda", "apps/admin-lambda/src/handler.ts"),
        edge("apps/admin-lambda/src/handler.ts", "@relevance/admin", "packages/relevance/admin/src/index.ts"),
        edge(
          "packages/relevance/admin/src/app.ts",
          "@relevance/core",
          "packages/relevance/core/src/index.ts",
        ),
        edge("apps/cli/src/e2e.test.ts", "@apps/local/test-support", "apps/local/src/test-support.ts"),
        edge("scripts/bench/x.ts", "../../apps/local/src/stack.ts", "apps/local/src/stack.ts"),
      ]),
    ).toEqual([]);
  });

  it("keeps the two systems apart and the kernel below both", () => {
    expect(
      summary([
        edge("packages/monitor/core/src/a.ts", "@relevance/core", "packages/relevance/core/src/index.ts"),
        edge("packages/relevance/search/src/b.ts", "@monitor/core", "packages/monitor/core/src/index.ts"),
        edge("packages/shared/http/src/c.ts", "@relevance/core", "packages/relevance/core/src/index.ts"),
        edge("packages/shared/http/src/d.ts", "@shared/kernel", "packages/shared/kernel/src/index.ts"),
        edge("packages/monitor/api/src/e.ts", "@shared/http", "packages/shared/http/src/index.ts"),
        edge("packages/relevance/search/src/f.ts", "@shared/kernel", "packages/shared/kernel/src/index.ts"),
        edge("packages/testing/hostile/src/g.ts", "@monitor/core", "packages/monitor/core/src/index.ts"),
        edge(
          "packages/testing/hostile/src/h.ts",
          "@relevance/admin",
          "packages/relevance/admin/src/index.ts",
        ),
      ]),
    ).toEqual([
      "system packages/monitor/core/src/a.ts @relevance/core",
      "system packages/relevance/search/src/b.ts @monitor/core",
      "system packages/shared/http/src/c.ts @relevance/core",
    ]);
  });

  it("keeps each system's deployables to their own system; npm start composes both", () => {
    expect(
      summary([
        edge(
          "apps/monitor-lambda/src/a.ts",
          "@relevance/settings",
          "packages/relevance/settings/src/index.ts",
        ),
        edge("apps/edge-worker/src/b.ts", "@monitor/core", "packages/monitor/core/src/index.ts"),
        edge("apps/svcmon/src/c.ts", "@monitor/core", "packages/monitor/core/src/index.ts"),
        edge("apps/monitor-lambda/src/d.ts", "@shared/kernel", "packages/shared/kernel/src/index.ts"),
        edge("apps/local/src/e.ts", "@monitor/core", "packages/monitor/core/src/index.ts"),
        edge("apps/local/src/f.ts", "@relevance/core", "packages/relevance/core/src/index.ts"),
      ]),
    ).toEqual([
      "system apps/monitor-lambda/src/a.ts @relevance/settings",
      "system apps/edge-worker/src/b.ts @monitor/core",
    ]);
  });

  it("does not let an app's source (only its tests) start another app through test-support", () => {
    expect(
      summary([edge("apps/cli/src/x.ts", "@apps/local/test-support", "apps/local/src/test-support.ts")]),
    ).toEqual(["upward apps/cli/src/x.ts @apps/local/test-support"]);
  });
});

describe("judge", () => {
  const edges = [
    edge("packages/a/src/x.ts", "./y.ts", "packages/a/src/y.ts"),
    edge("packages/a/src/y.ts", "./x.ts", "packages/a/src/x.ts"),
    edge("apps/cli/src/z.ts", "../../local/src/w.ts", "apps/local/src/w.ts"),
  ];
  const allowCycle: AllowEntry[] = [
    { rule: "cycle", file: "packages/a/src/x.ts", import: "./y.ts", reason: "test" },
    { rule: "cycle", file: "packages/a/src/y.ts", import: "./x.ts", reason: "test" },
  ];

  it("passes allowed violations and fails on the others", () => {
    const verdict = judge(findViolations(edges), allowCycle);
    expect(verdict.failures.map((v) => `${v.rule} ${v.file}`)).toEqual([
      "relative-across apps/cli/src/z.ts",
      "upward apps/cli/src/z.ts",
    ]);
    expect(verdict.stale).toEqual([]);
  });

  it("names the allowlist entries that no longer match a violation", () => {
    const verdict = judge(findViolations(edges.slice(1)), allowCycle);
    expect(verdict.stale.map((e) => e.file)).toEqual(["packages/a/src/x.ts", "packages/a/src/y.ts"]);
  });
});

describe("describeViolation", () => {
  it("names the rule, the file and line, the import as written and why", () => {
    const [violation] = findViolations([
      { from: "apps/cli/src/x.ts", specifier: "../../../infra/src/y.ts", to: "infra/src/y.ts", line: 7 },
    ]);
    expect(violation && describeViolation(violation)).toBe(
      'relative-across: apps/cli/src/x.ts:7 imports "../../../infra/src/y.ts" (apps/cli reaches into infra by path)',
    );
  });
});
