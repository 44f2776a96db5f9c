import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openHttpRunStore, QUERY_LOG_WINDOW_MINUTES } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import {
  type ClickHouseHttpDouble,
  startClickHouseHttpDouble,
} from "@monitor/clickhouse/test-support/clickhouse-http-double";
import { InMemoryCollectorRegistry } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, makeApp } from "./test-support.ts";

const QUERY_LOG = /FROM system\.query_log/;

/** A double answering the other dbHealth queries like a small server would. */
async function serverDouble(): Promise<ClickHouseHttpDouble> {
  const d = await startClickHouseHttpDouble();
  d.answer(/FROM system\.parts/, { rows: [{ used: "2000000000", svc_used: "1500000000" }] });
  d.answer(/FROM system\.disks/, { rows: [{ total: "100000000000", free: "60000000000" }] });
  d.answer(/FROM system\.processes/, { rows: [{ n: "3" }] });
  return d;
}

describe("dbHealth query latency, against a local double of a ClickHouse server", () => {
  let server: ClickHouseHttpDouble;
  afterAll(async () => {
    await server?.close();
  });

  it("reads p50/p95/p99 and the count of the last 15 minutes' finished queries from system.query_log", async () => {
    server = await serverDouble();
    // UInt64 comes quoted over HTTP, quantilesTiming as an array of numbers.
    server.answer(QUERY_LOG, { rows: [{ n: "1234", q: [2.5, 41, 180.25] }] });
    const store = openHttpRunStore({ url: server.url, timeoutMs: 3000 });
    try {
      const h = await store.dbHealth();
      expect(h).toMatchObject({
        query_p50_ms: 2.5,
        query_p95_ms: 41,
        query_p99_ms: 180.25,
        query_samples: 1234,
        active_queries: 3,
        sources: { query_latency: "system.query_log", active_queries: "system.processes" },
      });
      const sql = server.queries.find((q) => QUERY_LOG.test(q)) ?? "";
      expect(QUERY_LOG_WINDOW_MINUTES).toBe(15);
      for (const part of [
        "quantilesTiming(0.5, 0.95, 0.99)(query_duration_ms)",
        "count()",
        "type = 'QueryFinish'",
        "event_time >= now() - INTERVAL 15 MINUTE",
        "is_initial_query",
      ]) {
        expect(sql).toContain(part);
      }

      // The status body and its page read the same numbers and name the source.
      const app = makeApp({ store, registry: new InMemoryCollectorRegistry([]) });
      const r = await call(app, "GET", "/api/system/status");
      expect(r.status).toBe(200);
      expect(r.body.analytics_db).toMatchObject({
        query_p95_ms: 41,
        query_p50_ms: 2.5,
        query_p99_ms: 180.25,
        query_samples: 1234,
        source: { disk: "system.parts+system.disks", query_latency: "system.query_log" },
        disk_used_gb: 2,
      });
    } finally {
      await store.close();
      await server.close();
    }
  });

  // Samples: the earlier read and its write-version read (the store's read cache), dbHealth's
  // system.parts/disks/processes reads, and the query_log read itself when it was answered.
  it.each<[string, Parameters<ClickHouseHttpDouble["answer"]>[1], number]>([
    ["holds no finished query in the window (query logging off)", { rows: [{ n: "0", q: [0, 0, 0] }] }, 6],
    [
      "cannot be read (no grant)",
      {
        error: {
          code: 497,
          name: "ACCESS_DENIED",
          message:
            "svcmon: Not enough privileges. To execute this query, it's necessary to have the grant SELECT ON system.query_log",
        },
      },
      5,
    ],
    [
      "does not exist",
      {
        error: {
          code: 60,
          name: "UNKNOWN_TABLE",
          status: 404,
          message: "Unknown table expression identifier 'system.query_log'",
        },
      },
      5,
    ],
  ])(
    "falls back to the store's own client timings when system.query_log %s",
    async (_why, reply, samples) => {
      server = await serverDouble();
      server.answer(QUERY_LOG, reply);
      const store = openHttpRunStore({ url: server.url, timeoutMs: 3000 });
      try {
        await store.ping(); // not timed
        await store.latestRunPerCollector(); // timed: two client-side samples (version, read)
        const h = await store.dbHealth();
        expect(h.sources.query_latency).toBe("client-timings");
        expect(h.query_samples).toBe(samples);
        expect(h.query_p50_ms).toBeGreaterThanOrEqual(0);
        expect(h.query_p99_ms as number).toBeGreaterThanOrEqual(h.query_p50_ms as number);
        expect(server.queries.some((q) => QUERY_LOG.test(q))).toBe(true);
      } finally {
        await store.close();
        await server.close();
      }
    },
  );
});

describe("dbHealth query latency on real chDB (no system.query_log)", () => {
  const dir = mkdtempSync(join(tmpdir(), "svcmon-db-health-"));
  const store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  beforeAll(async () => {
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("uses the store's own client-side timings and says so", async () => {
    const before = (await store.dbHealth()).query_samples;
    for (let i = 0; i < 5; i++) await store.latestRunPerCollector();
    const h = await store.dbHealth();
    expect(h.sources.query_latency).toBe("client-timings");
    // 5 reads (the read cache: the first queries, the other four are answered from memory, as
    // nothing was written; the embedded store counts its writes, no query), then dbHealth's own
    // two: system.parts and system.processes (the embedded store reads its disk from the data
    // folder, not system.disks, and does not ask for system.query_log, which chDB does not have).
    expect(h.query_samples).toBe(before + 1 + 2);
    const [p50, p95, p99] = [h.query_p50_ms, h.query_p95_ms, h.query_p99_ms] as number[];
    expect(p50).toBeGreaterThan(0);
    expect(p95).toBeGreaterThanOrEqual(p50 as number);
    expect(p99).toBeGreaterThanOrEqual(p95 as number);
  });
});
