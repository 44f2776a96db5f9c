// `npm start` as a real process: the ingest consumer stores the collectors' events in
// svc.resource_events of the embedded chDB store in DATA_DIR, each event once.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClickHouseResourceEventSink } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { afterAll, describe, expect, it } from "vitest";
import { call, MONITOR_TOKEN, type RunningStack, spawnStack } from "./test-support.ts";

const running: RunningStack[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const s of running) await s.kill("SIGTERM");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("npm start: the ingest consumer", () => {
  it("stores every event the simulated collectors published in svc.resource_events, once", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stack-events-"));
    dirs.push(dataDir);
    const stack = await spawnStack({ DATA_DIR: dataDir, DEMO: "1" });
    running.push(stack);
    const monitor = { authorization: `Bearer ${MONITOR_TOKEN}` };
    // Until a round of the collectors has run and the consumer has emptied the queue.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const s = await call(stack.url, "GET", "/api/system/status", undefined, monitor);
      const q = s.body.queues?.[0];
      const ran = s.body.collectors?.some((c: { last_run: string | null }) => c.last_run !== null);
      if ((ran && q?.depth === 0 && q?.in_flight === 0) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const failures = await call(stack.url, "GET", "/api/system/collectors/failures", undefined, monitor);
    const ec2 = failures.body.collectors.find((c: { name: string }) => c.name === "config_ec2");
    expect(ec2.latest_run.events_produced).toBeGreaterThan(0);
    await stack.kill("SIGTERM");

    // chDB owns its folder: read it once the stack has stopped.
    const store = openChdbRunStore(join(dataDir, "chdb"));
    try {
      const events = await ClickHouseResourceEventSink.fromStore(store).list({ limit: 100_000 });
      const ec2Events = events.filter((e) => e.collector === "config_ec2");
      expect(ec2Events.length).toBeGreaterThanOrEqual(ec2.latest_run.events_produced);
      expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
      expect(events[0]).toMatchObject({ kind: "resource_observed", received_at: expect.any(Number) });
      const rs = await store.client.query({
        query: "SELECT count() AS n, uniqExact(event_id) AS ids FROM svc.resource_events",
        format: "JSONEachRow",
      });
      const [row] = await rs.json<{ n: unknown; ids: unknown }>();
      expect(Number(row?.n)).toBe(Number(row?.ids));
    } finally {
      await store.close();
    }
  }, 40_000);
});
