// `npm start` as a real process: the simulated collectors publish onto the embedded event queue in
// DATA_DIR, the ingest consumer drains it, and the monitor reports the queue in /api/system/status.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteQueue } from "@monitor/queues";
import { afterAll, describe, expect, it } from "vitest";
import { call, MONITOR_TOKEN, type RunningStack, spawnStack } from "./test-support.ts";

const running: RunningStack[] = [];
afterAll(async () => {
  for (const s of running) await s.kill("SIGTERM");
});

async function eventually<T>(
  read: () => Promise<T>,
  accept: (v: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface QueueJson {
  name: string;
  depth: number | null;
  in_flight: number | null;
  dead_letter_queue: string | null;
  dead_letter_depth: number | null;
  status: string;
  source: string;
}

describe("npm start: the collectors' event queue", () => {
  it("collectors publish events, the consumer drains them, and the status reports the queue and its dead-letter queue", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stack-queue-"));
    const stack = await spawnStack({ DATA_DIR: dataDir, DEMO: "1" });
    running.push(stack);
    const monitor = { authorization: `Bearer ${MONITOR_TOKEN}` };
    const status = () => call(stack.url, "GET", "/api/system/status", undefined, monitor);

    // After the first round of the simulated collectors, and once the consumer has caught up.
    const r = await eventually(
      status,
      (s) =>
        s.status === 200 &&
        s.body.collectors.some((c: { last_run: string | null }) => c.last_run !== null) &&
        s.body.queues?.[0]?.depth === 0 &&
        s.body.queues?.[0]?.in_flight === 0,
      20_000,
    );
    expect(r.status).toBe(200);
    expect(r.body.queues).toEqual([
      expect.objectContaining({
        name: "monitor-events",
        depth: 0,
        in_flight: 0,
        dead_letter_queue: "monitor-events-dlq",
        dead_letter_depth: 0,
        status: "ok",
        source: "embedded-sqlite",
      } satisfies Partial<QueueJson>),
    ]);
    expect(existsSync(join(dataDir, "monitor-events.sqlite"))).toBe(true);

    // events_produced of a collector run = the messages its run put on the queue.
    const failures = await call(stack.url, "GET", "/api/system/collectors/failures", undefined, monitor);
    const ec2 = failures.body.collectors.find((c: { name: string }) => c.name === "config_ec2");
    expect(ec2.latest_run.events_produced).toBeGreaterThan(0);

    await stack.kill("SIGTERM");
    // Stopped cleanly: the file holds no message and no dead letter; it opens again.
    const q = SqliteQueue.open(join(dataDir, "monitor-events.sqlite"), { name: "monitor-events" });
    const [after] = await q.read();
    expect(after).toMatchObject({ depth: 0, in_flight: 0, dead_letter_depth: 0, error: null });
    q.close();
  }, 40_000);
});
