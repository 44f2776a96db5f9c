import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { ClickHouseCollectorRegistry } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { type CollectorRunRow, MAX_RUN_ERROR_CHARS, validateRunRecord } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main, parseArgs, Tail, UsageError } from "./svcmon.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const NODE = process.execPath;
const tmp = mkdtempSync(join(tmpdir(), "svcmon-cli-"));
const dataDir = join(tmp, "data");
const spool = join(tmp, "spool");

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function svcmon(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ["--disable-warning=ExperimentalWarning", MAIN, ...args], {
      env: { ...process.env, MONITOR_TOKEN: "", PORT: "", SVCMON_SPOOL_DIR: spool, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const subject = (collector: string) => [
  "run",
  "--collector",
  collector,
  "--account",
  "123456789012",
  "--region",
  "eu-west-1",
];
const direct = (collector: string) => [...subject(collector), "--data-dir", dataDir, "--"];

// The children own the chDB folder one after another; this process opens it only afterwards.
const results: Record<string, Ran> = {};

/** The run starts svcmon sends before the command, kept apart from the run records the doubles count. */
const starts: Record<string, unknown>[] = [];
/** What reached a monitor double, in order: `start <run_id>` here, `run <run_id>` where a test says. */
const arrivals: string[] = [];
let startAnswer = 202;
function isStart(req: IncomingMessage, body: string, res: ServerResponse): boolean {
  if (req.url !== "/api/system/runs/start") return false;
  const start = JSON.parse(body) as Record<string, unknown>;
  starts.push(start);
  arrivals.push(`start ${String(start.run_id)}`);
  if (startAnswer !== 202) {
    res.writeHead(startAnswer, { "content-type": "application/json" }).end('{"error":"down"}');
    return true;
  }
  res.writeHead(202, { "content-type": "application/json" }).end("{}");
  return true;
}
let store: ClickHouseRunStore;
let runs: CollectorRunRow[] = [];
const marker = join(tmp, "should-not-exist");

beforeAll(async () => {
  results.ok = await svcmon([...direct("job_ok"), NODE, "-e", "setTimeout(() => process.exit(0), 300)"]);
  results.failed = await svcmon([
    ...direct("job_failed"),
    NODE,
    "-e",
    "process.stderr.write('é'.repeat(3000) + '\\nfatal: disk full\\n'); process.exit(7)",
  ]);
  results.partial = await svcmon([
    ...direct("job_partial"),
    NODE,
    "-e",
    "process.stderr.write('2 of 9 pages failed\\n'); process.exit(3)",
  ]);
  results.missing = await svcmon([...direct("job_missing"), join(tmp, "no-such-command")]);
  results.usage = await svcmon([
    "run",
    "--collector",
    "job_usage",
    "--region",
    "r",
    "--data-dir",
    dataDir,
    "--",
    NODE,
    "-e",
    `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
  ]);
  store = openChdbRunStore(dataDir, { timeoutMs: 30_000 });
  runs = await store.latestRunPerCollector();
}, 120_000);

afterAll(async () => {
  await store?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const run = (collector: string) => runs.filter((r) => r.collector === collector);

describe("svcmon run --data-dir (real child commands, real chDB)", () => {
  it("exit 0: succeeded, measured duration, exits 0", () => {
    expect(results.ok?.code).toBe(0);
    const [r] = run("job_ok");
    expect(run("job_ok")).toHaveLength(1);
    expect(r).toMatchObject({
      status: "succeeded",
      error: "",
      cloud_account_id: "123456789012",
      cloud_region: "eu-west-1",
      events_produced: 0,
      rows_inserted: 0,
    });
    expect(r?.duration_ms).toBeGreaterThanOrEqual(300);
    expect(r?.duration_ms).toBe((r?.completed_at ?? 0) - (r?.started_at ?? 0));
    expect(Math.abs((r?.completed_at ?? 0) - Date.now())).toBeLessThan(120_000);
  });

  it("records the run's start before the command, paired with its final record (no open run left)", async () => {
    const [r] = run("job_ok");
    const rs = await store.client.query({
      query:
        "SELECT toString(run_id) AS id, toUnixTimestamp64Milli(started_at) AS at FROM svc.run_starts WHERE collector = 'job_ok'",
      format: "JSONEachRow",
    });
    const stored = await rs.json<{ id: string; at: number | string }>();
    expect(stored.map((x) => [x.id, Number(x.at)])).toEqual([[r?.run_id, r?.started_at]]);
    expect((await store.openStarts(0)).filter((x) => x.collector === "job_ok")).toEqual([]);
  });

  it("a collector the registry does not know is registered by this first run (first_run, 24 h / 48 h)", async () => {
    const registry = ClickHouseCollectorRegistry.fromStore(store);
    expect(await registry.get("job_ok")).toMatchObject({
      expected_interval_minutes: 1440,
      freshness_threshold_minutes: 2880,
      registered_by: "first_run",
    });
    // The refused invocation (usage error) ran nothing and registered nothing.
    expect(await registry.get("job_usage")).toBeNull();
  });

  it("non-zero exit: failed with the tail of stderr (≤ 2 KB, whole characters), exits with the command's code", () => {
    expect(results.failed?.code).toBe(7);
    expect(results.failed?.stderr).toContain("fatal: disk full"); // stderr still reaches the terminal
    const [r] = run("job_failed");
    expect(r?.status).toBe("failed");
    expect(r?.error.endsWith("fatal: disk full")).toBe(true);
    expect(Buffer.byteLength(r?.error ?? "")).toBeLessThanOrEqual(2048);
    expect(Buffer.byteLength(r?.error ?? "")).toBeGreaterThan(2000);
    expect(r?.error).not.toContain("\ufffd");
  });

  it("exit 3: partial with the stderr tail", () => {
    expect(results.partial?.code).toBe(3);
    expect(run("job_partial")[0]).toMatchObject({ status: "partial", error: "2 of 9 pages failed" });
  });

  it("a command that cannot start: failed, exit 127", () => {
    expect(results.missing?.code).toBe(127);
    expect(run("job_missing")[0]).toMatchObject({ status: "failed" });
    expect(run("job_missing")[0]?.error).toMatch(/^cannot run .*no-such-command: .*ENOENT/);
  });

  it("invalid flags: one clear line, exit 2, the command never runs, nothing recorded", () => {
    expect(results.usage?.code).toBe(2);
    expect(results.usage?.stderr.trim().split("\n")).toEqual(["svcmon: missing --account (svcmon --help)"]);
    expect(existsSync(marker)).toBe(false);
    expect(run("job_usage")).toEqual([]);
  });
});

describe("svcmon run through the monitor API", () => {
  it("POSTs one valid record with the bearer token; exits with the command's code", async () => {
    const got: { req: IncomingMessage; body: string }[] = [];
    let answer = 201;
    const srv = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        if (isStart(req, body, res)) return;
        got.push({ req, body });
        arrivals.push(`run ${String((JSON.parse(body) as { run_id?: unknown }).run_id)}`);
        res
          .writeHead(answer, { "content-type": "application/json" })
          .end(answer === 201 ? "{}" : '{"error":"unauthorized"}');
      });
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const port = (srv.address() as { port: number }).port;
    try {
      const r = await svcmon(
        [...subject("job_api"), "--", NODE, "-e", "console.error('warn: slow'); process.exit(3)"],
        {
          MONITOR_TOKEN: "s3cret",
          PORT: String(port),
        },
      );
      expect(r.code).toBe(3);
      expect(got).toHaveLength(1);
      expect(got[0]?.req.method).toBe("POST");
      expect(got[0]?.req.url).toBe("/api/system/runs");
      expect(got[0]?.req.headers.authorization).toBe("Bearer s3cret");
      const body = JSON.parse(got[0]?.body ?? "{}") as Record<string, unknown>;
      const v = validateRunRecord(body);
      expect(v.ok).toBe(true);
      expect(body).toMatchObject({ collector: "job_api", status: "partial", error: "warn: slow" });
      expect(body.run_id).toMatch(/^[0-9a-f-]{36}$/);
      // Its start went first, under the same run_id and start time: the monitor pairs the two.
      expect(arrivals).toEqual([`start ${body.run_id}`, `run ${body.run_id}`]);
      expect(starts.at(-1)).toEqual({
        run_id: body.run_id,
        collector: "job_api",
        cloud_account_id: "123456789012",
        cloud_region: "eu-west-1",
        started_at: body.started_at,
      });

      // A start the monitor does not take is one line on stderr; the command runs and its run is recorded.
      startAnswer = 503;
      const noStart = await svcmon([...subject("job_api"), "--", NODE, "-e", "process.exit(0)"], {
        MONITOR_TOKEN: "s3cret",
        PORT: String(port),
      });
      startAnswer = 202;
      expect(noStart.code).toBe(0);
      expect(noStart.stderr).toMatch(
        /the start of run [0-9a-f-]{36} was not recorded \(the run goes on\): POST .*\/api\/system\/runs\/start failed: HTTP 503/,
      );
      expect(got).toHaveLength(2);
      got.pop();

      answer = 401;
      const denied = await svcmon([
        ...subject("job_api"),
        "--url",
        `http://127.0.0.1:${port}/`,
        "--token",
        "wrong",
        "--",
        NODE,
        "-e",
        "",
      ]);
      // the command succeeded, but its run is lost: the scheduler must see it
      expect(denied.code).toBe(75);
      expect(denied.stderr).toMatch(/NOT recorded: POST .*\/api\/system\/runs failed: HTTP 401/);
      expect(got).toHaveLength(2); // 4xx is not retried
    } finally {
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});

describe("svcmon run: a record dated ahead of the clock is not sent", () => {
  /** main() in this process, its stderr lines captured; a monitor double counts what reaches it. */
  async function runWith(now: () => number, answer: { status: number; body: string }) {
    const bodies: string[] = [];
    const srv = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        if (isStart(req, body, res)) return;
        bodies.push(body);
        res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
      });
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const code = await main(
        [...subject("job_clock"), "--url", url, "--token", "t", "--", NODE, "-e", ""],
        { PATH: process.env.PATH },
        { now },
      );
      return { code, bodies, stderr: lines.join("") };
    } finally {
      spy.mockRestore();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  }

  it("this machine's clock went back an hour during the run: one line naming the field and the skew, exit 1, nothing sent", async () => {
    const T = Date.UTC(2025, 0, 31, 12);
    const times = [T, T + 2000]; // start, end; then the clock reads an hour earlier
    const r = await runWith(() => times.shift() ?? T - 3_600_000, { status: 201, body: "{}" });
    expect(r.code).toBe(1);
    expect(r.bodies).toEqual([]);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^svcmon: run [0-9a-f-]{36} \(succeeded\) NOT recorded: started_at is 1 h ahead of this machine's clock; at most 15 min \(MAX_CLOCK_SKEW_S=900\) is accepted: check the system clock\n$/,
    );
  });

  it("the monitor refuses it as ahead of its clock (422): one line naming the field, exit 1, not retried", async () => {
    const refusal = {
      error: {
        code: "validation_failed",
        message: "1 problem(s) in the run records; nothing was stored",
        details: [
          {
            path: "completed_at",
            message: "is 20 min ahead of the server clock; at most 15 min (900 s) ahead is accepted",
          },
        ],
      },
    };
    const r = await runWith(Date.now, { status: 422, body: JSON.stringify(refusal) });
    expect(r.code).toBe(1);
    expect(r.bodies).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^svcmon: run [0-9a-f-]{36} \(succeeded\) NOT recorded: the monitor refused it: completed_at is 20 min ahead of the server clock; at most 15 min \(900 s\) ahead is accepted \(check this machine's clock\)\n$/,
    );
  });
});

describe("svcmon run keeps to the monitor's bounds", () => {
  /** A monitor double that keeps every body it is sent and answers `status` (a redirect: `location`). */
  async function monitorDouble(status = 201, location = "") {
    const bodies: string[] = [];
    const srv = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        if (isStart(req, body, res)) return;
        bodies.push(body);
        res
          .writeHead(status, location === "" ? { "content-type": "application/json" } : { location })
          .end("{}");
      });
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    return {
      bodies,
      url: `http://127.0.0.1:${(srv.address() as { port: number }).port}`,
      close: () => new Promise<void>((r) => srv.close(() => r())),
    };
  }

  it("an error text longer than the limit is cut to its last 4096 characters, not refused", async () => {
    const monitor = await monitorDouble();
    try {
      const missing = `/nonexistent/${"x".repeat(5000)}`;
      const r = await svcmon([
        ...subject("job_long_error"),
        "--url",
        monitor.url,
        "--token",
        "t",
        "--",
        missing,
      ]);
      expect(r.stderr).not.toContain("NOT recorded");
      const body = JSON.parse(monitor.bodies[0] ?? "{}") as Record<string, unknown>;
      expect((body.error as string).length).toBe(MAX_RUN_ERROR_CHARS);
      expect(validateRunRecord(body).ok).toBe(true);
    } finally {
      await monitor.close();
    }
  });

  it("a monitor URL answering with a redirect is not followed; the run is reported NOT recorded", async () => {
    const elsewhere = await monitorDouble();
    const redirecting = await monitorDouble(307, `${elsewhere.url}/api/system/runs`);
    try {
      const r = await svcmon([
        ...subject("job_redirect"),
        "--url",
        redirecting.url,
        "--token",
        "t",
        "--",
        NODE,
        "-e",
        "",
      ]);
      expect(r.code).toBe(75);
      expect(r.stderr).toMatch(
        /NOT recorded: .*HTTP 307: the monitor answered with a redirect, which is not followed/,
      );
      expect(redirecting.bodies).toHaveLength(1);
      expect(elsewhere.bodies).toEqual([]);
    } finally {
      await redirecting.close();
      await elsewhere.close();
    }
  });
});

describe("svcmon run never loses a run (real processes)", () => {
  /** A monitor double on `port` (0: any) keeping the bodies it is sent. */
  async function listen(port = 0) {
    const bodies: Record<string, unknown>[] = [];
    const srv = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        if (isStart(req, body, res)) return;
        bodies.push(JSON.parse(body) as Record<string, unknown>);
        res.writeHead(201, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => srv.listen(port, "127.0.0.1", r));
    return {
      bodies,
      port: (srv.address() as { port: number }).port,
      close: () => new Promise<void>((r) => srv.close(() => r())),
    };
  }

  it("a monitor that stays down: the run is spooled, and the next svcmon call sends it first", async () => {
    const ownSpool = join(tmp, "spool-e2e");
    // a port that was free a moment ago: nothing listens there now
    const probe = await listen();
    const port = probe.port;
    await probe.close();
    const url = `http://127.0.0.1:${port}`;
    const down = await svcmon(
      [...subject("job_spooled"), "--url", url, "--token", "t", "--", NODE, "-e", ""],
      { SVCMON_SPOOL_DIR: ownSpool },
    );
    expect(down.code).toBe(0);
    expect(down.stderr).toMatch(
      /run [0-9a-f-]{36} \(succeeded\) spooled to .*spool-e2e.*the next svcmon call/,
    );
    const spooled = readdirSync(ownSpool);
    expect(spooled).toHaveLength(1);
    expect(statSync(join(ownSpool, spooled[0] as string)).mode & 0o777).toBe(0o600);

    const monitor = await listen(port);
    try {
      const up = await svcmon([...subject("job_next"), "--url", url, "--token", "t", "--", NODE, "-e", ""], {
        SVCMON_SPOOL_DIR: ownSpool,
      });
      expect(up.code).toBe(0);
      expect(monitor.bodies.map((b) => b.collector)).toEqual(["job_spooled", "job_next"]);
      expect(validateRunRecord(monitor.bodies[0]).ok).toBe(true);
      expect(readdirSync(ownSpool)).toEqual([]);
    } finally {
      await monitor.close();
    }
  }, 60_000);

  /** svcmon wrapping `script` (sh -c), sent `signal` once the script has written "started" on stderr. */
  async function interrupt(collector: string, script: string, signal: NodeJS.Signals, url: string) {
    const child = spawn(
      NODE,
      [
        "--disable-warning=ExperimentalWarning",
        MAIN,
        ...subject(collector),
        "--url",
        url,
        "--token",
        "t",
        "--",
        "sh",
        "-c",
        script,
      ],
      { env: { ...process.env, SVCMON_SPOOL_DIR: spool }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    const started = new Promise<void>((resolve) => {
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
        if (stderr.includes("started")) resolve();
      });
    });
    const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await started;
    child.kill(signal);
    return closed;
  }

  it("a command that traps SIGINT and exits 0 is still recorded failed, with the signal; svcmon exits 130", async () => {
    const monitor = await listen();
    try {
      const code = await interrupt(
        "job_trapped",
        "trap 'exit 0' INT; echo started >&2; while :; do sleep 0.1; done",
        "SIGINT",
        `http://127.0.0.1:${monitor.port}`,
      );
      expect(code).toBe(130);
      expect(monitor.bodies[0]).toMatchObject({ collector: "job_trapped", status: "failed" });
      expect(monitor.bodies[0]?.error).toMatch(
        /interrupted: svcmon received SIGINT and forwarded it to the command, which exited with code 0$/,
      );
    } finally {
      await monitor.close();
    }
  }, 60_000);

  it("SIGTERM to svcmon reaches the wrapped sleep; svcmon waits for it and records the run failed with the signal", async () => {
    const monitor = await listen();
    try {
      const child = spawn(
        NODE,
        [
          "--disable-warning=ExperimentalWarning",
          MAIN,
          ...subject("job_interrupted"),
          "--url",
          `http://127.0.0.1:${monitor.port}`,
          "--token",
          "t",
          "--",
          "sh",
          "-c",
          "echo started >&2; exec sleep 60",
        ],
        { env: { ...process.env, SVCMON_SPOOL_DIR: spool }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      const started = new Promise<void>((resolve) => {
        child.stderr.on("data", (c: Buffer) => {
          stderr += c.toString();
          if (stderr.includes("started")) resolve();
        });
      });
      const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      await started;
      child.kill("SIGTERM");
      const code = await closed;
      expect(code).toBe(143); // the sleep died of the forwarded SIGTERM: 128 + 15
      expect(monitor.bodies).toHaveLength(1);
      const body = monitor.bodies[0] as Record<string, unknown>;
      expect(body).toMatchObject({ collector: "job_interrupted", status: "failed" });
      expect(body.error).toMatch(
        /started\ninterrupted: svcmon received SIGTERM and forwarded it to the command, which was killed by SIGTERM$/,
      );
      expect(validateRunRecord(body).ok).toBe(true);
    } finally {
      await monitor.close();
    }
  }, 60_000);
});

describe("parseArgs", () => {
  const env = { MONITOR_TOKEN: "t" };
  const bad = (argv: string[], msg: RegExp, e: Record<string, string> = env) => {
    expect(() => parseArgs(argv, e)).toThrow(UsageError);
    expect(() => parseArgs(argv, e)).toThrow(msg);
  };
  it("accepts both flag spellings and defaults the URL from PORT", () => {
    const a = parseArgs(
      ["run", "--collector=c", "--account", "1", "--region=r", "--", "ls", "-l", "--", "x"],
      {
        ...env,
        PORT: "9999",
      },
    );
    expect(a).toEqual({
      collector: "c",
      account: "1",
      region: "r",
      command: "ls",
      args: ["-l", "--", "x"],
      target: { kind: "api", url: "http://127.0.0.1:9999", token: "t" },
    });
    expect(
      parseArgs(["run", "--collector", "c", "--account", "1", "--region", "r", "--", "ls"], env).target,
    ).toEqual({
      kind: "api",
      url: "http://127.0.0.1:8787",
      token: "t",
    });
  });
  it("rejects what it cannot use", () => {
    const base = ["run", "--collector", "c", "--account", "1", "--region", "r"];
    bad([], /missing subcommand/);
    bad(["start"], /unknown subcommand/);
    bad([...base], /missing command/);
    bad([...base, "--"], /missing command/);
    bad([...base, "ls"], /put the command after `--`/);
    bad([...base, "--verbose", "--", "ls"], /unknown option --verbose/);
    bad(["run", "--collector", "--", "ls"], /--collector needs a value/);
    bad([...base, "--collector", "d", "--", "ls"], /given twice/);
    bad(["run", "--collector", " ", "--account", "1", "--region", "r", "--", "ls"], /must not be empty/);
    bad([...base, "--", "ls"], /missing token/, {});
    bad([...base, "--url", "ftp://x", "--", "ls"], /http or https/);
    bad([...base, "--url", "nope", "--", "ls"], /not a URL/);
    bad([...base, "--data-dir", "/d", "--token", "t", "--", "ls"], /do not combine/);
  });
  it("names short options, option groups and a lone dash as they were written", () => {
    const base = ["run", "--collector", "c", "--account", "1", "--region", "r"];
    bad([...base, "-v", "--", "ls"], /^unknown option -v$/);
    bad([...base, "-abc", "--", "ls"], /^unknown option -abc$/);
    bad([...base, "-", "--", "ls"], /^unknown option -$/);
    bad([...base, "--verbose=1", "--", "ls"], /^unknown option --verbose$/);
    bad(
      ["run", "--collector=", "--account", "1", "--region", "r", "--", "ls"],
      /^--collector must not be empty$/,
    );
    bad(["run", "--collector"], /^--collector needs a value$/);
    expect(parseArgs([...base, "--url=http://h:1/", "--", "ls"], env).target).toEqual({
      kind: "api",
      url: "http://h:1",
      token: "t",
    });
  });
  it("refuses a collector, account or region the monitor would refuse, naming the flag and the limit", () => {
    const run = (collector: string, account: string, region: string) => [
      "run",
      "--collector",
      collector,
      "--account",
      account,
      "--region",
      region,
      "--",
      "ls",
    ];
    bad(run("c".repeat(65), "1", "r"), /^--collector must be at most 64 characters$/);
    bad(run("config ec2", "1", "r"), /^--collector must be letters, digits/);
    bad(run("c", "1".repeat(129), "r"), /^--account must be at most 128 characters$/);
    bad(run("c", "1", "eu west"), /^--region must be letters, digits/);
    expect(parseArgs(run("c".repeat(64), "1".repeat(128), "r".repeat(64)), env).collector).toHaveLength(64);
  });
  it("Tail keeps the last bytes and drops a character cut in half", () => {
    const t = new Tail(5);
    t.push(Buffer.from("abcdé")); // 6 bytes
    expect(t.text()).toBe("bcdé");
    t.push(Buffer.from("é"));
    expect(t.text()).toBe("déé");
    const cut = new Tail(3);
    cut.push(Buffer.from("aéé")); // last 3 bytes start inside the first é
    expect(cut.text()).toBe("é");
  });
});
