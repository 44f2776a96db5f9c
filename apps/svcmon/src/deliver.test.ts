import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  chdbFolderFor,
  type DeliverDeps,
  deliver,
  findLiveStack,
  type RunRecordOut,
  spoolDir,
} from "./deliver.ts";

const tmp = mkdtempSync(join(tmpdir(), "svcmon-deliver-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
const record = (collector = "job"): RunRecordOut => ({
  run_id: `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
  collector,
  cloud_account_id: "123456789012",
  cloud_region: "eu-west-1",
  started_at: Date.UTC(2026, 0, 1),
  completed_at: Date.UTC(2026, 0, 1, 0, 1),
  status: "succeeded",
  events_produced: 0,
  rows_inserted: 0,
  error: "",
  duration_ms: 60_000,
});

/** A monitor double answering each POST with the next status of `answers` (the last one repeats); 0 = network error. */
function doubles(answers: number[], alivePids: number[] = []) {
  const posts: { url: string; auth: string; body: Record<string, unknown> }[] = [];
  const sleeps: number[] = [];
  const stored: { dir: string; record: RunRecordOut }[] = [];
  const lines: string[] = [];
  let i = 0;
  const deps: DeliverDeps = {
    fetch: (async (url: string, init: RequestInit) => {
      const status = answers[Math.min(i++, answers.length - 1)] as number;
      posts.push({
        url,
        auth: (init.headers as Record<string, string>).authorization ?? "",
        body: JSON.parse(init.body as string) as Record<string, unknown>,
      });
      if (status === 0) throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
      return new Response(status < 300 ? "{}" : '{"error":"x"}', { status });
    }) as typeof fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    alive: (pid) => alivePids.includes(pid),
    storeDirect: async (dir, r) => {
      stored.push({ dir, record: r });
    },
    say: (line) => lines.push(line),
  };
  return { deps, posts, sleeps, stored, lines };
}

describe("svcmon delivery through --url", () => {
  const url = "http://127.0.0.1:9";
  const target = { kind: "api" as const, url, token: "t0ken" };

  it("retries an unreachable monitor after 0.5, 1 and 2 s, then spools the record (0600) instead of losing it", async () => {
    const env = { SVCMON_SPOOL_DIR: join(tmp, "spool-a") };
    const d = doubles([0, 503, 0, 0]);
    const r = record();
    const got = await deliver(target, r, env, d.deps);
    expect(got.kind).toBe("spooled");
    expect(d.sleeps).toEqual([500, 1000, 2000]);
    expect(d.posts).toHaveLength(4);
    expect(new Set(d.posts.map((p) => p.body.run_id))).toEqual(new Set([r.run_id]));
    const files = readdirSync(env.SVCMON_SPOOL_DIR);
    expect(files).toEqual([`${r.run_id}.json`]);
  });

  it("the next call sends the spooled records first, then its own, and empties the spool", async () => {
    const env = { SVCMON_SPOOL_DIR: join(tmp, "spool-b") };
    const first = record("first");
    await deliver(target, first, env, doubles([0]).deps);
    const second = record("second");
    await deliver(target, second, env, doubles([0]).deps);
    expect(readdirSync(env.SVCMON_SPOOL_DIR)).toHaveLength(2);
    const d = doubles([201]);
    const third = record("third");
    expect(await deliver(target, third, env, d.deps)).toMatchObject({ kind: "recorded" });
    expect(d.posts.map((p) => p.body.collector).sort()).toEqual(["first", "second", "third"]);
    expect(d.posts[2]?.body.collector).toBe("third");
    expect(d.posts.every((p) => p.auth === "Bearer t0ken")).toBe(true);
    expect(readdirSync(env.SVCMON_SPOOL_DIR)).toEqual([]);
  });

  it("a spool for another monitor URL is left for that monitor", async () => {
    const env = { SVCMON_SPOOL_DIR: join(tmp, "spool-c") };
    await deliver({ ...target, url: "http://elsewhere:1" }, record("other"), env, doubles([0]).deps);
    const d = doubles([201]);
    await deliver(target, record("mine"), env, d.deps);
    expect(d.posts.map((p) => p.body.collector)).toEqual(["mine"]);
    expect(readdirSync(env.SVCMON_SPOOL_DIR)).toHaveLength(1);
  });

  it("a record the monitor refuses (4xx) is reported not recorded, not retried and not spooled", async () => {
    const env = { SVCMON_SPOOL_DIR: join(tmp, "spool-d") };
    const d = doubles([401]);
    const got = await deliver(target, record(), env, d.deps);
    expect(got).toMatchObject({ kind: "not-recorded" });
    expect((got as { reason: string }).reason).toMatch(/HTTP 401/);
    expect(d.posts).toHaveLength(1);
    expect(existsSync(env.SVCMON_SPOOL_DIR)).toBe(false);
  });

  it("the spool folder defaults under XDG_STATE_HOME, else ~/.local/state", () => {
    expect(spoolDir({ XDG_STATE_HOME: "/s" })).toBe("/s/svcmon/spool");
    expect(spoolDir({ HOME: "/h" })).toBe("/h/.local/state/svcmon/spool");
    expect(spoolDir({ SVCMON_SPOOL_DIR: "/x", HOME: "/h" })).toBe("/x");
  });
});

describe("svcmon delivery with --data-dir", () => {
  function stackDir(name: string, pid: number, mode = 0o600) {
    const dataDir = join(tmp, name);
    mkdirSync(join(dataDir, "chdb"), { recursive: true });
    const file = join(dataDir, "stack.json");
    writeFileSync(
      file,
      JSON.stringify({
        url: "http://127.0.0.1:8011",
        pid,
        data_dir: dataDir,
        chdb_dir: join(dataDir, "chdb"),
        token: "file-token-0123456789",
      }),
      { mode },
    );
    chmodSync(file, mode);
    return dataDir;
  }

  it("a live stack holding the folder gets the run through its API, with the token from its owner-only stack.json", async () => {
    const dataDir = stackDir("live", 4242);
    const d = doubles([201], [4242]);
    const got = await deliver({ kind: "data-dir", dir: join(dataDir, "chdb") }, record(), {}, d.deps);
    expect(got).toMatchObject({ kind: "recorded" });
    expect(d.posts[0]?.url).toBe("http://127.0.0.1:8011/api/system/runs");
    expect(d.posts[0]?.auth).toBe("Bearer file-token-0123456789");
    expect(d.stored).toEqual([]);
    // MONITOR_TOKEN wins over the file's token
    const e = doubles([201], [4242]);
    await deliver({ kind: "data-dir", dir: dataDir }, record(), { MONITOR_TOKEN: "env-token" }, e.deps);
    expect(e.posts[0]?.auth).toBe("Bearer env-token");
  });

  it("a stale stack.json (its pid is gone) is ignored: the run goes into the folder", async () => {
    const dataDir = stackDir("stale", 4243);
    const d = doubles([201], []);
    const got = await deliver({ kind: "data-dir", dir: join(dataDir, "chdb") }, record(), {}, d.deps);
    expect(got).toMatchObject({ kind: "recorded" });
    expect(d.posts).toEqual([]);
    expect(d.stored.map((s) => s.dir)).toEqual([join(dataDir, "chdb")]);
    expect(existsSync(join(dataDir, "chdb", "svcmon.lock"))).toBe(false);
  });

  it("refuses, saying what to do, when the live stack's file is readable by others and MONITOR_TOKEN is unset", async () => {
    const dataDir = stackDir("loose", 4244, 0o644);
    const d = doubles([201], [4244]);
    const got = await deliver({ kind: "data-dir", dir: join(dataDir, "chdb") }, record(), {}, d.deps);
    expect(got.kind).toBe("not-recorded");
    expect((got as { reason: string }).reason).toMatch(
      /held by the running stack \(pid 4244.*set MONITOR_TOKEN/,
    );
    expect(d.posts).toEqual([]);
    expect(d.stored).toEqual([]);
  });

  it("refuses, saying what to do, when the live stack's API does not take the run; never writes into its folder", async () => {
    const dataDir = stackDir("down", 4245);
    const d = doubles([0], [4245]);
    const got = await deliver({ kind: "data-dir", dir: dataDir }, record(), {}, d.deps);
    expect(got.kind).toBe("not-recorded");
    expect((got as { reason: string }).reason).toMatch(
      /did not take the run: .*ECONNREFUSED.*stop it and run again/,
    );
    expect(d.stored).toEqual([]);
  });

  it("a stopped stack's DATA_DIR (no stack.json) means its chdb folder, never a second database beside it", async () => {
    const dataDir = join(tmp, "stopped");
    mkdirSync(join(dataDir, "chdb"), { recursive: true });
    writeFileSync(join(dataDir, "settings.db"), "");
    const d = doubles([201], []);
    const got = await deliver({ kind: "data-dir", dir: dataDir }, record(), {}, d.deps);
    expect(got).toEqual({ kind: "recorded", via: join(dataDir, "chdb") });
    expect(d.stored.map((s) => s.dir)).toEqual([join(dataDir, "chdb")]);
    expect(d.lines).toEqual([
      `svcmon: ${dataDir} is a stack's data folder (npm start): recording into ${join(dataDir, "chdb")}`,
    ]);
    // Its stale stack.json (the stack was killed) names the chDB folder too.
    const killed = stackDir("killed", 4247);
    const e = doubles([201], []);
    await deliver({ kind: "data-dir", dir: killed }, record(), {}, e.deps);
    expect(e.stored.map((s) => s.dir)).toEqual([join(killed, "chdb")]);
  });

  it("a folder that is not a stack's DATA_DIR is a chDB folder of its own", () => {
    const plain = join(tmp, "plain-chdb");
    mkdirSync(join(plain, "metadata"), { recursive: true });
    expect(chdbFolderFor(plain)).toEqual({ dir: plain, stackDataDir: false });
    expect(chdbFolderFor(join(tmp, "not-yet-made"))).toEqual({
      dir: join(tmp, "not-yet-made"),
      stackDataDir: false,
    });
  });

  it("a stack.json for another folder does not count", () => {
    const dataDir = stackDir("other", 4246);
    expect(findLiveStack(join(dataDir, "chdb", "sub"), () => true)).toBeUndefined();
    expect(findLiveStack(join(dataDir, "chdb"), () => true)?.stack.pid).toBe(4246);
  });
});
