import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CountingSink,
  DEMO_ACCOUNTS,
  DEMO_REGIONS,
  SimulatedCloud,
  simulatedCollectors,
} from "@monitor/aws/simulation";
import {
  type CollectorContext,
  type EventQueue,
  type NewRunRecord,
  parseResourceEvent,
  type ResourceEvent,
  type RowSink,
  type RunStartRow,
} from "@monitor/core";
import { FakeClock } from "@monitor/core/fake-clock";
import { afterAll, describe, expect, it } from "vitest";
import { IngestConsumer } from "./ingest-consumer.ts";
import { queueStatus } from "./queue-health.ts";
import { SqliteQueue } from "./sqlite-queue.ts";

const ACCT = DEMO_ACCOUNTS[0]?.account_id as string;
const REGION = DEMO_REGIONS[0] as string;
const VT = 30_000;

/** An EC2 instance's resource event as a message body. */
const ec2Event = (id: string, observedAt = 1) =>
  JSON.stringify({
    kind: "resource_observed",
    collector: "config_ec2",
    account_id: ACCT,
    region: REGION,
    resource_type: "ec2_instance",
    resource_id: id,
    observed_at: observedAt,
  });

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function setup(opts: { maxReceives?: number; sink?: RowSink } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "svcmon-ingest-"));
  dirs.push(dir);
  const clock = new FakeClock(1_750_000_000_000);
  const queue = SqliteQueue.open(join(dir, "monitor-events.sqlite"), {
    name: "monitor-events",
    deadLetter: { name: "monitor-events-dlq", maxReceives: opts.maxReceives ?? 3 },
    now: () => clock.now(),
  });
  // Records the size of each batch the collectors send, then passes it to the real queue.
  const batches: number[] = [];
  const events: EventQueue = {
    send: (bodies, signal) => {
      batches.push(bodies.length);
      return queue.send(bodies, signal);
    },
  };
  const cloud = new SimulatedCloud({ clock, events, sink: opts.sink ?? new CountingSink() });
  const byName = Object.fromEntries(simulatedCollectors(cloud).map((c) => [c.name, c]));
  const ctx = (account = ACCT): CollectorContext => ({
    account: { account_id: account, account_name: "x" },
    region: REGION,
    signal: new AbortController().signal,
    now: () => clock.now(),
  });
  const logged: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const stored = new CountingSink();
  const handled: ResourceEvent[] = [];
  const consumer = new IngestConsumer({
    queue,
    handle: async (e) => {
      handled.push(e);
      await stored.write("resource_events", [e as unknown as Record<string, unknown>]);
    },
    visibilityTimeoutMs: VT,
    clock,
    log: (level, message, fields) => logged.push({ level, message, ...(fields ? { fields } : {}) }),
  });
  return { clock, queue, cloud, byName, ctx, batches, consumer, stored, handled, logged };
}

describe("simulated collectors publish onto the event queue", () => {
  it("one message per observed resource, in batches of 10; events_produced = messages accepted", async () => {
    const t = setup();
    const inv = t.cloud.inventory(ACCT, REGION);
    const res = await t.byName.config_ebs?.run(t.ctx());
    expect(res).toEqual({
      status: "succeeded",
      events_produced: inv.volumes.length,
      rows_inserted: inv.volumes.length,
    });
    expect(t.batches.reduce((a, b) => a + b, 0)).toBe(inv.volumes.length);
    expect(t.batches.every((b) => b >= 1 && b <= 10)).toBe(true);
    expect(t.batches.slice(0, -1).every((b) => b === 10)).toBe(true);
    expect((await t.queue.read())[0]).toMatchObject({ depth: inv.volumes.length, dead_letter_depth: 0 });

    const msgs = await t.queue.receive({ max: 1000, visibilityTimeoutMs: VT });
    const events = msgs.map((m) => parseResourceEvent(m.body));
    expect(events.every((e) => e.ok)).toBe(true);
    const first = events[0]?.ok ? events[0].value : null;
    expect(first).toEqual({
      kind: "resource_observed",
      collector: "config_ebs",
      account_id: ACCT,
      region: REGION,
      resource_type: "ebs_volume",
      resource_id: inv.volumes[0]?.volume_id,
      observed_at: t.clock.now(),
      attributes: { size_gb: inv.volumes[0]?.size_gb, attached_to: inv.volumes[0]?.attached_to },
    });
    t.queue.close();
  });

  it("every collector publishes, with its own resource types", async () => {
    const t = setup();
    const inv = t.cloud.inventory(ACCT, REGION);
    const counts: Record<string, number> = {};
    for (const c of Object.values(t.byName)) counts[c.name] = (await c.run(t.ctx())).events_produced;
    const total = inv.instances.length + inv.volumes.length + inv.network.length;
    expect(counts).toEqual({
      config_ec2: inv.instances.length,
      config_ebs: inv.volumes.length,
      config_network: inv.network.length,
      hierarchy_builder: total,
    });
    const types = new Set(
      (await t.queue.receive({ max: 1000, visibilityTimeoutMs: VT })).map(
        (m) => (JSON.parse(m.body) as ResourceEvent).resource_type,
      ),
    );
    expect(types.has("ec2_instance") && types.has("ebs_volume") && types.has("hierarchy_node")).toBe(true);
    expect([...types].some((x) => ["vpc", "subnet", "security_group", "nat_gateway"].includes(x))).toBe(true);
    t.queue.close();
  });

  it("a queue that refuses the send fails the run (it is recorded as failed)", async () => {
    const t = setup();
    t.queue.close();
    await expect(t.byName.config_ec2?.run(t.ctx())).rejects.toThrow(/database is not open/);
  });
});

describe("IngestConsumer", () => {
  it("hands every valid event to the handler and acknowledges it: the queue ends empty", async () => {
    const t = setup();
    const produced = (await t.byName.config_network?.run(t.ctx()))?.events_produced ?? 0;
    const totals = await t.consumer.drain();
    expect(totals).toEqual({ received: produced, acked: produced, rejected: 0 });
    expect(t.stored.counts.get("resource_events")).toBe(produced);
    expect(t.handled.every((e) => e.collector === "config_network" && e.account_id === ACCT)).toBe(true);
    expect((await t.queue.read())[0]).toMatchObject({ depth: 0, in_flight: 0, dead_letter_depth: 0 });
    // Nothing comes back after the visibility timeout: acknowledged means deleted.
    await t.clock.advance(VT);
    expect(await t.consumer.drain()).toEqual({ received: 0, acked: 0, rejected: 0 });
    t.queue.close();
  });

  it("poison events are refused on every receive and end in the dead-letter queue after maxReceives", async () => {
    const t = setup({ maxReceives: 3 });
    t.cloud.setFault(ACCT, "*", { kind: "poison", count: 2 });
    const inv = t.cloud.inventory(ACCT, REGION);
    const res = await t.byName.config_ec2?.run(t.ctx());
    // The run succeeds: the collector cannot tell; the queue accepted the 2 bad messages too.
    expect(res).toMatchObject({ status: "succeeded", events_produced: inv.instances.length + 2 });

    expect(await t.consumer.drain()).toEqual({
      received: inv.instances.length + 2,
      acked: inv.instances.length,
      rejected: 2,
    });
    expect((await t.queue.read())[0]).toMatchObject({ depth: 0, in_flight: 2, dead_letter_depth: 0 });
    for (const receive of [2, 3]) {
      await t.clock.advance(VT);
      expect(await t.consumer.drain()).toEqual({ received: 2, acked: 0, rejected: 2 });
      expect(t.logged.filter((l) => l.fields?.receive_count === receive)).toHaveLength(2);
    }
    await t.clock.advance(VT);
    expect(await t.consumer.drain()).toEqual({ received: 0, acked: 0, rejected: 0 });
    const [health] = await t.queue.read();
    expect(health).toMatchObject({
      depth: 0,
      in_flight: 0,
      dead_letter_queue: "monitor-events-dlq",
      dead_letter_depth: 2,
    });
    expect(queueStatus(health as NonNullable<typeof health>)).toBe("dead_letters");
    expect((await t.queue.deadLetters()).map((d) => d.body)).toEqual([
      '{"kind":"poison"}',
      "not json: config_ec2 poison 1",
    ]);
    expect(t.stored.counts.get("resource_events")).toBe(inv.instances.length);
    expect(t.logged[0]).toMatchObject({
      level: "warn",
      fields: { receive_count: 1, errors: expect.arrayContaining(['kind: must be "resource_observed"']) },
    });
    t.queue.close();
  });

  it("an event the handler refuses is retried after the visibility timeout and acknowledged once it is taken", async () => {
    let down = true;
    const t = setup();
    const flaky = new IngestConsumer({
      queue: t.queue,
      handle: async () => {
        if (down) throw new Error("sink unavailable");
      },
      visibilityTimeoutMs: VT,
      clock: t.clock,
    });
    await t.queue.send([ec2Event("i-1")]);
    expect(await flaky.drain()).toEqual({ received: 1, acked: 0, rejected: 1 });
    down = false;
    expect(await flaky.drain()).toEqual({ received: 0, acked: 0, rejected: 0 });
    await t.clock.advance(VT);
    expect(await flaky.drain()).toEqual({ received: 1, acked: 1, rejected: 0 });
    expect(flaky.totals).toEqual({ received: 2, acked: 1, rejected: 1 });
    expect((await t.queue.read())[0]).toMatchObject({ depth: 0, in_flight: 0, dead_letter_depth: 0 });
    t.queue.close();
  });

  it("stores a receive's events with one call; when that call fails, each alone, so only the one refused is left for retry", async () => {
    const t = setup();
    const calls: string[][] = [];
    const single: string[] = [];
    const batched = new IngestConsumer({
      queue: t.queue,
      handle: async (e) => {
        if (e.resource_id === "i-bad") throw new Error("refused");
        single.push(e.resource_id);
      },
      handleEvents: async (events) => {
        calls.push(events.map((e) => e.resource_id));
        if (events.some((e) => e.resource_id === "i-bad")) throw new Error("one refused");
      },
      visibilityTimeoutMs: VT,
      clock: t.clock,
    });
    await t.queue.send([ec2Event("i-1"), ec2Event("i-2"), "not json", ec2Event("i-3")]);
    expect(await batched.drainOnce()).toEqual({ received: 4, acked: 3, rejected: 1 });
    expect(calls).toEqual([["i-1", "i-2", "i-3"]]);
    expect(single).toEqual([]);
    await t.queue.send([ec2Event("i-4"), ec2Event("i-bad"), ec2Event("i-5")]);
    expect(await batched.drainOnce()).toEqual({ received: 3, acked: 2, rejected: 1 });
    expect(calls.at(-1)).toEqual(["i-4", "i-bad", "i-5"]);
    expect(single).toEqual(["i-4", "i-5"]);
    t.queue.close();
  });

  it("a record dated ahead of the consumer's clock is refused naming the field and the skew, and ends in the dead-letter queue", async () => {
    const t = setup({ maxReceives: 2 });
    const runs: NewRunRecord[] = [];
    const logged: { message: string; fields?: Record<string, unknown> }[] = [];
    const consumer = new IngestConsumer({
      queue: t.queue,
      handle: async (e) => {
        t.handled.push(e);
      },
      handleRun: async (r) => {
        runs.push(r);
      },
      visibilityTimeoutMs: VT,
      clock: t.clock,
      log: (_level, message, fields) => logged.push({ message, ...(fields ? { fields } : {}) }),
    });
    const now = t.clock.now();
    const far = Date.UTC(2225, 0, 1);
    const event = (observed_at: number) => ec2Event(`i-${observed_at}`, observed_at);
    const run = (completed_at: number) =>
      JSON.stringify({
        kind: "collector_run",
        collector: "nightly_backup",
        cloud_account_id: ACCT,
        cloud_region: REGION,
        started_at: now - 1000,
        completed_at,
        status: "succeeded",
        events_produced: 0,
        rows_inserted: 0,
      });
    await t.queue.send([event(far), run(now + 20 * 60_000), event(now), run(now)]);
    expect(await consumer.drain()).toEqual({ received: 4, acked: 2, rejected: 2 });
    // The two on time are handled: the event, and the run record by handleRun.
    expect(t.handled.map((e) => e.observed_at)).toEqual([now]);
    expect(runs.map((r) => [r.collector, r.completed_at])).toEqual([["nightly_backup", now]]);
    // The reason is logged with the message, naming the field and the skew.
    expect(logged.map((l) => l.fields?.errors)).toEqual([
      [
        expect.stringMatching(
          /^observed_at: is \d+ d ahead of the server clock; at most 15 min \(900 s\) ahead is accepted$/,
        ),
      ],
      ["completed_at: is 20 min ahead of the server clock; at most 15 min (900 s) ahead is accepted"],
    ]);
    await t.clock.advance(VT);
    expect(await consumer.drain()).toEqual({ received: 2, acked: 0, rejected: 2 });
    await t.clock.advance(VT);
    expect(await consumer.drain()).toEqual({ received: 0, acked: 0, rejected: 0 });
    expect((await t.queue.deadLetters()).map((d) => d.body)).toEqual([event(far), run(now + 20 * 60_000)]);
    t.queue.close();
  });

  it("hands a collector_run_start message to handleRunStart, started_at defaulting to the consumer's clock", async () => {
    const t = setup({ maxReceives: 1 });
    const starts: RunStartRow[] = [];
    const consumer = new IngestConsumer({
      queue: t.queue,
      handle: async () => {},
      handleRun: async () => {},
      handleRunStart: async (s) => {
        starts.push(s);
      },
      visibilityTimeoutMs: VT,
      clock: t.clock,
    });
    const id = "00000000-0000-4000-8000-0000000a2899";
    await t.queue.send([
      JSON.stringify({
        kind: "collector_run_start",
        run_id: id,
        collector: "nightly_backup",
        cloud_account_id: ACCT,
        cloud_region: REGION,
      }),
    ]);
    expect(await consumer.drain()).toEqual({ received: 1, acked: 1, rejected: 0 });
    expect(starts).toEqual([
      {
        run_id: id,
        collector: "nightly_backup",
        cloud_account_id: ACCT,
        cloud_region: REGION,
        started_at: t.clock.now(),
      },
    ]);
    t.queue.close();
  });

  it("without handleRun a collector_run message is refused as before (not a resource event)", async () => {
    const t = setup({ maxReceives: 1 });
    await t.queue.send([JSON.stringify({ kind: "collector_run", collector: "x" })]);
    expect(await t.consumer.drain()).toEqual({ received: 1, acked: 0, rejected: 1 });
    expect(t.logged[0]?.fields?.errors).toContain('kind: must be "resource_observed"');
    t.queue.close();
  });

  it("start() polls on its clock until stop()", async () => {
    const t = setup();
    t.consumer.start();
    await t.clock.waitForTimers(1);
    await t.queue.send([
      JSON.stringify({
        kind: "resource_observed",
        collector: "c",
        account_id: "a",
        region: "r",
        resource_type: "t",
        resource_id: "id",
        observed_at: 0,
      }),
    ]);
    await t.clock.advance(0);
    await t.clock.waitForTimers(1);
    expect(t.handled.map((e) => e.resource_id)).toEqual(["id"]);
    await t.consumer.stop();
    expect(t.clock.pending).toBe(0);
    t.queue.close();
  });
});
