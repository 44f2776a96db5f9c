import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openHttpRunStore } from "@monitor/clickhouse";
import type { InMemoryRunStore } from "@monitor/core";
import { type RunStore, RunStoreQueryError, RunStoreValidationError } from "@monitor/core";
import { queueHealthReader, SqliteQueue } from "@monitor/queues";
import { settlesAt, settlesBefore } from "@shared/test-support/deadline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, hangingStore, MIN, makeApp, memoryLog, openMemoryStore, runAt } from "./test-support.ts";

// Real chDB on a temp folder of this file; faults are injected by wrapping that real store.
let store: InMemoryRunStore;
let cleanup: () => Promise<void>;
const NOW = Math.floor(Date.now() / MIN) * MIN;

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-api-unavail-");
  store = t.store;
  cleanup = t.cleanup;
});

afterAll(async () => {
  await cleanup();
});

/** A local port nobody listens on: bind an ephemeral port, then release it. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const addr = srv.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

const UNAVAILABLE = { error: { code: "analytics_db_unavailable", message: expect.any(String) } };
/** The status routes' 503 also carries what does not live in the database (queues), DB marked. */
const STATUS_UNAVAILABLE = {
  ...UNAVAILABLE,
  analytics_db: { status: "unreachable", error: expect.any(String) },
  generated_at: expect.any(String),
  queues: [],
};
const unavailableBody = (path: string) => (path.endsWith("/status") ? STATUS_UNAVAILABLE : UNAVAILABLE);

describe("analytics database unreachable or slow", () => {
  it("a closed port: 503 analytics_db_unavailable within the bound; /healthz stays 200", async () => {
    const down = openHttpRunStore({ url: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 5000 });
    try {
      const app = makeApp({ store: down, now: () => NOW });
      for (const path of [
        "/api/system/status",
        "/api/v1/system/status",
        "/api/system/freshness",
        "/api/system/accounts",
      ]) {
        // Answered before the 2,000 ms bound (and the store's 5,000 ms timeout) could end the wait.
        const r = await settlesBefore(2000, () => call(app, "GET", path));
        expect(r).toEqual({ status: 503, body: unavailableBody(path) });
      }
      const post = await call(app, "POST", "/api/system/runs", { body: runAt(NOW) });
      expect(post).toEqual({ status: 503, body: UNAVAILABLE });
      expect((await app.request("/healthz")).status).toBe(200);
    } finally {
      await down.close();
    }
  });

  it("a store that never answers (fault-injecting wrapper of the real store): 503 within statusTimeoutMs", async () => {
    const slow = hangingStore(store);
    const app = makeApp({ store: slow, now: () => NOW, statusTimeoutMs: 300, writeTimeoutMs: 300 });
    for (const [method, path, body] of [
      ["GET", "/api/system/status", undefined],
      ["GET", "/api/v1/system/status", undefined],
      ["GET", "/api/system/freshness", undefined],
      ["GET", "/api/system/accounts", undefined],
      ["POST", "/api/system/runs", runAt(NOW)],
      ["PUT", "/api/system/accounts/a1", { account_name: "A", svc_status: "active" }],
    ] as const) {
      const r = await settlesAt(300, () => call(app, method, path, body === undefined ? {} : { body }));
      expect(r).toEqual({ status: 503, body: unavailableBody(path) });
    }
    slow.hang = false;
    expect((await call(app, "GET", "/api/system/status")).status).toBe(200);
  });

  it("status during an outage still reports the queues (a real embedded queue), the database marked unreachable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svcmon-unavail-queue-"));
    const q = SqliteQueue.open(join(dir, "events.sqlite"), {
      name: "events",
      deadLetter: { name: "events-dlq", maxReceives: 1 },
    });
    try {
      await q.send(["a", "b"]);
      const slow = hangingStore(store);
      const app = makeApp({
        store: slow,
        now: () => NOW,
        statusTimeoutMs: 300,
        queues: queueHealthReader(q),
      });
      const r = await call(app, "GET", "/api/system/status");
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({
        error: { code: "analytics_db_unavailable" },
        analytics_db: { status: "unreachable" },
        queues: [
          { name: "events", depth: 2, dead_letter_queue: "events-dlq", dead_letter_depth: 0, status: "ok" },
        ],
      });
      expect(r.body).not.toHaveProperty("collectors");
    } finally {
      q.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the default bound is 2000 ms", async () => {
    const app = makeApp({ store: hangingStore(store), now: () => NOW });
    const r = await settlesAt(2000, () => call(app, "GET", "/api/system/status"));
    expect(r.status).toBe(503);
  });
});

describe("store errors", () => {
  /** A fault-injecting wrapper of the real store: `insertRuns` throws `err`. */
  const throwing = (err: Error): RunStore =>
    new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === "insertRuns") return () => Promise.reject(err);
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });

  it("RunStoreValidationError → 422 with the row and field", async () => {
    const app = makeApp({
      store: throwing(new RunStoreValidationError(2, "started_at", "must be epoch ms")),
    });
    const r = await call(app, "POST", "/api/system/runs", { body: [runAt(NOW), runAt(NOW), runAt(NOW)] });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.details).toEqual([
      { path: "[2].started_at", message: "row 2: started_at: must be epoch ms" },
    ]);
  });

  it("other errors → generic 500, the cause logged and not shown", async () => {
    for (const err of [new RunStoreQueryError("SQL exploded: secret detail"), new Error("secret detail")]) {
      const log = memoryLog();
      const app = makeApp({ store: throwing(err), log });
      const r = await call(app, "POST", "/api/system/runs", { body: runAt(NOW) });
      expect(r).toEqual({ status: 500, body: { error: { code: "internal", message: "internal error" } } });
      expect(log.lines).toEqual([
        expect.objectContaining({
          level: "error",
          fields: expect.objectContaining({ error: err.message, path: "/api/system/runs" }),
        }),
      ]);
    }
  });
});
