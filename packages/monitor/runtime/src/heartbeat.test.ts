/**
 * The outbound heartbeat against a local double of healthchecks.io's ping API (a real HTTP server):
 * the three pings land where healthchecks expects them, a failure's reason is the body, and nothing
 * is followed, waited on past the timeout, or thrown.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  HEARTBEAT_LOG_EVERY,
  heartbeatUrlFromEnv,
  heartbeatUrlProblem,
  httpHeartbeat,
  pingUrl,
  sendPing,
} from "./heartbeat.ts";
import { type HealthchecksDouble, startHealthchecksDouble } from "./test-support/healthchecks-double.ts";

let hc: HealthchecksDouble;
/** Answers every request with a redirect to the healthchecks double, or not at all (`/hang`). */
let odd: Server;
let oddOrigin: string;
const held: (() => void)[] = [];

beforeAll(async () => {
  hc = await startHealthchecksDouble();
  odd = createServer((req, res) => {
    if (req.url?.startsWith("/hang")) {
      held.push(() => res.end());
      return;
    }
    res.writeHead(307, { location: hc.checkUrl }).end();
  });
  await new Promise<void>((r) => odd.listen(0, "127.0.0.1", r));
  oddOrigin = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const release of held) release();
  odd.closeAllConnections();
  await new Promise((r) => odd.close(r));
  await hc.close();
});

const memoryLog = () => {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(fields === undefined ? {} : { fields }) });
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
};

describe("heartbeat pings (healthchecks-compatible)", () => {
  it("start, success and fail land on <url>/start, <url> and <url>/fail; the fail carries its reason", async () => {
    const before = hc.received.length;
    expect(await sendPing(hc.checkUrl, "start")).toEqual({ ok: true, status: 200, error: null });
    expect((await sendPing(hc.checkUrl, "success")).ok).toBe(true);
    expect((await sendPing(hc.checkUrl, "fail", { reason: "store unreachable: ECONNREFUSED" })).ok).toBe(
      true,
    );
    expect(hc.received.slice(before).map((p) => [p.kind, p.method, p.body])).toEqual([
      ["start", "POST", ""],
      ["success", "POST", ""],
      ["fail", "POST", "store unreachable: ECONNREFUSED"],
    ]);
  });

  it("a fail's reason is cut to 10,000 bytes on a character boundary", async () => {
    const before = hc.received.length;
    await sendPing(hc.checkUrl, "fail", { reason: "é".repeat(6000) });
    const body = hc.received[before]?.body ?? "";
    expect(Buffer.byteLength(body)).toBe(10_000);
    expect(body).toBe("é".repeat(5000));
  });

  it("keeps the query of a URL and adds /start, /fail to its path", () => {
    expect(pingUrl("https://hc.example/ping/abc/?create=1", "start")).toBe(
      "https://hc.example/ping/abc/start?create=1",
    );
    expect(pingUrl("https://hc.example/ping/abc", "fail")).toBe("https://hc.example/ping/abc/fail");
    expect(pingUrl("https://hc.example/ping/abc", "success")).toBe("https://hc.example/ping/abc");
  });

  it("a check the switch does not know (404) or a failing switch is not ok, and does not throw", async () => {
    expect(await sendPing(hc.unknownUrl, "success")).toEqual({
      ok: false,
      status: 404,
      error: "answered 404",
    });
    hc.failNext(1, 503);
    expect(await sendPing(hc.checkUrl, "success")).toMatchObject({ ok: false, status: 503 });
  });

  it("does not follow a redirect", async () => {
    const before = hc.received.length;
    const r = await sendPing(`${oddOrigin}/ping/x`, "success");
    expect(r).toEqual({ ok: false, status: 307, error: "answered 307 (a redirect, not followed)" });
    expect(hc.received.length).toBe(before);
  });

  it("gives up on a switch that does not answer within the timeout", async () => {
    const r = await sendPing(`${oddOrigin}/hang`, "start", { timeoutMs: 50 });
    expect(r).toEqual({ ok: false, status: null, error: "no answer within 50 ms" });
  });

  it("a refused connection is a result, not an exception", async () => {
    const r = await sendPing("http://127.0.0.1:1/ping/x", "success");
    expect(r.ok).toBe(false);
    expect(r.status).toBeNull();
    expect(r.error).toMatch(/fetch failed/);
  });

  it("logs a failing switch once, then once every 60 failed pings, and says when it is back", async () => {
    const log = memoryLog();
    const hb = httpHeartbeat({ url: hc.unknownUrl, log });
    for (let i = 0; i < HEARTBEAT_LOG_EVERY + 1; i++) await hb.ping("success");
    expect(log.lines.map((l) => [l.message, l.fields?.failedInARow])).toEqual([
      ["heartbeat: ping failed", 1],
      ["heartbeat: ping failed", 61],
    ]);
    const back = httpHeartbeat({ url: hc.checkUrl, log });
    hc.failNext(2);
    await back.ping("start");
    await back.ping("start");
    await back.ping("start");
    expect(log.lines.at(-1)).toEqual({
      level: "info",
      message: "heartbeat: delivered again",
      fields: { failedBefore: 2 },
    });
  });
});

describe("MONITOR_HEARTBEAT_URL", () => {
  it("unset or blank: no heartbeat", () => {
    expect(heartbeatUrlFromEnv({})).toEqual({ ok: true, value: null });
    expect(heartbeatUrlFromEnv({ MONITOR_HEARTBEAT_URL: "  " })).toEqual({ ok: true, value: null });
  });

  it("takes an http(s) URL of at most 2048 characters, and names the variable otherwise", () => {
    expect(heartbeatUrlFromEnv({ MONITOR_HEARTBEAT_URL: "https://hc-ping.com/5f0c" })).toEqual({
      ok: true,
      value: "https://hc-ping.com/5f0c",
    });
    for (const [url, message] of [
      ["ftp://hc.example/x", "must be an http or https URL"],
      ["not a url", "is not a URL"],
      [`https://hc.example/${"a".repeat(2048)}`, "must be at most 2048 characters"],
      ["https://user:pw@hc.example/x", "must not carry a user name or password"],
    ]) {
      expect(heartbeatUrlFromEnv({ MONITOR_HEARTBEAT_URL: url })).toEqual({
        ok: false,
        errors: [{ path: "MONITOR_HEARTBEAT_URL", message }],
      });
    }
    expect(heartbeatUrlProblem(`https://h.example/${"a".repeat(2000)}`)).toBeNull();
  });
});
