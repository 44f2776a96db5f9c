// `svcmon run --data-dir` pointed at the folder of a running stack (real processes, real chDB): the
// run goes through the stack's API, found from $DATA_DIR/stack.json, or svcmon refuses saying what
// to do; it never writes into the folder the stack holds. Pointed at the DATA_DIR of a stopped
// stack, the run goes into that stack's chdb folder (where the stack reads it), owner-only.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { afterAll, describe, expect, it } from "vitest";
import { secureDataDir } from "./data-dir.ts";
import { type RunningStack, spawnStack } from "./test-support.ts";

// The svcmon CLI is run as a program (its entry file), not imported.
const SVCMON = fileURLToPath(new URL("../../svcmon/src/main.ts", import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "svcmon-stack-"));
const dataDir = join(tmp, "data");
let stack: RunningStack | undefined;

afterAll(async () => {
  if (stack?.child.exitCode === null) await stack.kill("SIGTERM");
  rmSync(tmp, { recursive: true, force: true });
});

function svcmon(collector: string, env: Record<string, string> = {}, dir = join(dataDir, "chdb")) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--disable-warning=ExperimentalWarning",
        SVCMON,
        "run",
        "--collector",
        collector,
        "--account",
        "123456789012",
        "--region",
        "eu-west-1",
        "--data-dir",
        dir,
        "--",
        process.execPath,
        "-e",
        "",
      ],
      {
        env: { ...process.env, MONITOR_TOKEN: "", SVCMON_SPOOL_DIR: join(tmp, "spool"), ...env },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("svcmon run --data-dir against the running stack's DATA_DIR", () => {
  it("records the run through the stack's API, refuses with what to do when it cannot, and the stack removes stack.json at a clean stop", async () => {
    stack = await spawnStack({ DATA_DIR: dataDir, EXPORTER: "0" });
    const file = join(dataDir, "stack.json");
    const content = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(content).toMatchObject({ pid: stack.child.pid, chdb_dir: join(dataDir, "chdb"), url: stack.url });

    const recorded = await svcmon("job_via_stack");
    expect(recorded.stderr).toBe("");
    expect(recorded.code).toBe(0);

    // a stack.json others can read: its token is not trusted, and without MONITOR_TOKEN svcmon refuses
    chmodSync(file, 0o644);
    const refused = await svcmon("job_refused");
    chmodSync(file, 0o600);
    expect(refused.code).toBe(75);
    expect(refused.stderr).toMatch(
      /NOT recorded: .*chdb is held by the running stack \(pid \d+, http:.*set MONITOR_TOKEN to the stack's monitor token/,
    );

    await stack.kill("SIGTERM");
    expect(existsSync(file)).toBe(false);

    // The stack stopped: --data-dir $DATA_DIR (not its chdb folder) records into the stack's chDB.
    const stopped = await svcmon("job_stack_stopped", {}, dataDir);
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toContain(`recording into ${join(dataDir, "chdb")}`);
    // No second database in the root of DATA_DIR ...
    expect(
      readdirSync(dataDir).filter((f) => ["metadata", "store", "data", "svcmon.lock"].includes(f)),
    ).toEqual([]);
    // ... and nothing looser than owner-only, so the next npm start has nothing to tighten or warn about.
    expect(secureDataDir(dataDir)).toEqual({ count: 0, examples: [] });

    const store = openChdbRunStore(join(dataDir, "chdb"), { timeoutMs: 30_000 });
    try {
      const runs = await store.latestRunPerCollector();
      expect(runs.filter((r) => r.collector === "job_via_stack")).toHaveLength(1);
      expect(runs.filter((r) => r.collector === "job_refused")).toEqual([]);
      expect(runs.filter((r) => r.collector === "job_stack_stopped")).toHaveLength(1);
    } finally {
      await store.close();
    }
  }, 120_000);
});
