/**
 * `svcmon ping` against a local double of healthchecks.io's ping API (a real HTTP server): one ping
 * per call, where healthchecks expects it; exit 0 on 2xx, 1 otherwise, 2 on invalid arguments.
 */
import {
  type HealthchecksDouble,
  startHealthchecksDouble,
} from "@monitor/runtime/test-support/healthchecks-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PING_USAGE, parsePingArgs, pingMain } from "./ping.ts";
import { main, USAGE } from "./svcmon.ts";

let hc: HealthchecksDouble;
beforeAll(async () => {
  hc = await startHealthchecksDouble();
});
afterAll(async () => hc.close());

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { fetch: globalThis.fetch, out: (t: string) => out.push(t), err: (t: string) => err.push(t) },
  };
}

describe("svcmon ping", () => {
  it("sends success by default, /start with --start, /fail with the reason as its body; exit 0", async () => {
    const before = hc.received.length;
    const t = io();
    expect(await pingMain(["--url", hc.checkUrl], {}, t.io)).toBe(0);
    expect(await pingMain(["--start"], { MONITOR_HEARTBEAT_URL: hc.checkUrl }, t.io)).toBe(0);
    expect(
      await pingMain(["--fail", "backup: disk full"], { MONITOR_HEARTBEAT_URL: hc.checkUrl }, t.io),
    ).toBe(0);
    expect(hc.received.slice(before).map((p) => [p.kind, p.body])).toEqual([
      ["success", ""],
      ["start", ""],
      ["fail", "backup: disk full"],
    ]);
    expect(t.err).toEqual([]);
  });

  it("--url wins over MONITOR_HEARTBEAT_URL", () => {
    expect(
      parsePingArgs(["--url", "https://a.example/p"], { MONITOR_HEARTBEAT_URL: "https://b.example/p" }),
    ).toEqual({
      url: "https://a.example/p",
      kind: "success",
      reason: null,
    });
  });

  it("exits 1, saying why, when the switch does not answer 2xx", async () => {
    const t = io();
    expect(await pingMain(["--url", hc.unknownUrl], {}, t.io)).toBe(1);
    expect(t.err).toEqual(["svcmon ping: success not delivered: answered 404\n"]);
    hc.failNext(1, 500);
    expect(await pingMain(["--url", hc.checkUrl, "--start"], {}, t.io)).toBe(1);
    expect(await pingMain(["--url", "http://127.0.0.1:1/ping/x"], {}, t.io)).toBe(1);
  });

  it("exits 2 on invalid arguments, naming the problem", async () => {
    for (const [argv, env, message] of [
      [[], {}, "no URL: --url URL or env MONITOR_HEARTBEAT_URL"],
      [["--url", "ftp://x.example/p"], {}, "--url must be an http or https URL"],
      [[], { MONITOR_HEARTBEAT_URL: "nope" }, "MONITOR_HEARTBEAT_URL is not a URL"],
      [["--url", `https://x.example/${"a".repeat(2048)}`], {}, "--url must be at most 2048 characters"],
      [["--url", "https://x.example/p", "--start", "--fail", "x"], {}, "--start and --fail are exclusive"],
    ] as const) {
      const t = io();
      expect(await pingMain(argv, env, t.io)).toBe(2);
      expect(t.err).toEqual([`svcmon ping: ${message} (svcmon ping --help)\n`]);
    }
  });

  it("--help prints its usage; svcmon's usage lists the command", async () => {
    const t = io();
    expect(await pingMain(["--help"], {}, t.io)).toBe(0);
    expect(t.out.join("")).toBe(`${PING_USAGE}\n`);
    expect(PING_USAGE).toContain("Exits 0 when the switch answers 2xx, 1 otherwise");
    expect(USAGE).toContain("svcmon ping [--url URL] [--start | --fail REASON]");
  });

  it("svcmon ping through the command's entry point", async () => {
    const before = hc.received.length;
    expect(await main(["ping", "--url", hc.checkUrl, "--start"], {})).toBe(0);
    expect(hc.received.slice(before).map((p) => p.kind)).toEqual(["start"]);
  });
});
