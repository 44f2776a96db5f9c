/**
 * One behaviour suite for every `RunStore` adapter: ClickHouse on the embedded chDB engine, ClickHouse
 * over HTTP, and in memory. Run by packages/monitor/clickhouse/src/run-store.contract.test.ts (the
 * ClickHouse adapters) and packages/monitor/core/src/run-store-memory.test.ts, one `describe` per
 * adapter, the same cases. What only ClickHouse has (the group commit's pipeline, the read cache's
 * write version, where its health figures come from) is tested beside that adapter.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CollectorRunInput, RunStartRow, RunStore } from "../ports.ts";
import { RunStoreValidationError } from "../run-store.ts";

export interface RunStoreAdapter {
  name: string;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** A migrated store holding no runs and no accounts. */
  open(): Promise<RunStore>;
}

const MIN = 60_000;
const DAY = 86_400_000;

function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

export function runStoreContract(adapter: RunStoreAdapter): void {
  describe(`RunStore contract: ${adapter.name}`, () => {
    // Recent times: an adapter may drop rows older than 90 days.
    const base = Math.floor((Date.now() - 6 * 60 * MIN) / 1000) * 1000 + 123;
    let seq = 0;
    const run = (p: Partial<CollectorRunInput> & { at: number }): CollectorRunInput => {
      const { at, ...rest } = p;
      seq += 1;
      return {
        run_id: uuid(seq),
        collector: "config_ec2",
        cloud_account_id: "111111111111",
        cloud_region: "us-east-1",
        started_at: at - 1500,
        completed_at: at,
        status: "succeeded",
        events_produced: 10,
        rows_inserted: 5,
        duration_ms: 1500,
        ...rest,
      };
    };
    let store: RunStore;

    beforeAll(async () => adapter.setup?.());
    afterAll(async () => adapter.teardown?.());

    describe("migrations and liveness", () => {
      beforeEach(async () => {
        store = await adapter.open();
      });

      it("migrate is idempotent: a migrated store applies nothing again", async () => {
        expect(await store.migrate()).toEqual([]);
      });

      it("answers ping", async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });
    });

    describe("insertRuns", () => {
      beforeEach(async () => {
        store = await adapter.open();
      });

      it("round-trips with millisecond precision and defaults", async () => {
        const r = run({ at: base + 987, error: "boom", status: "failed" });
        const { run_id: _omit, ...noId } = run({ at: base + 5 * MIN + 1, collector: "config_ebs" });
        expect(await store.insertRuns([r, noId])).toEqual({ inserted: 2, duplicates: [] });
        const latest = await store.latestRunPerCollector();
        expect(latest).toHaveLength(2);
        const ec2 = latest.find((x) => x.collector === "config_ec2");
        expect(ec2).toEqual({ ...r, error: "boom" });
        expect(ec2?.completed_at).toBe(base + 987);
        expect(ec2?.started_at).toBe(base + 987 - 1500);
        const ebs = latest.find((x) => x.collector === "config_ebs");
        expect(ebs?.run_id).toMatch(/^[0-9a-f-]{36}$/);
        expect(ebs?.error).toBe("");
        expect(ebs?.completed_at).toBe(base + 5 * MIN + 1);
      });

      it("ties on completed_at: later started_at, then the worse status, counts as latest", async () => {
        const ok = run({ at: base, run_id: uuid(0xfff) });
        const failed = run({ at: base, status: "failed", run_id: uuid(1) });
        await store.insertRuns([ok, failed]);
        expect((await store.latestRunPerCollector())[0]?.run_id).toBe(failed.run_id);
        const streakStatus = async () =>
          (await store.consecutiveFailuresPerCollectorAccountRegion(base - DAY))[0]?.last_status;
        expect(await streakStatus()).toBe("failed");
        const later = run({ at: base, started_at: base - 10, run_id: uuid(2) });
        await store.insertRuns([later]);
        expect((await store.latestRunPerCollector())[0]?.run_id).toBe(later.run_id);
        expect(await streakStatus()).toBe("succeeded");
        const partial = run({ at: base, started_at: base - 10, status: "partial", run_id: uuid(3) });
        await store.insertRuns([partial]);
        expect(await streakStatus()).toBe("partial");
      });

      it("stores a run_id once, within a batch and across batches", async () => {
        const a = run({ at: base });
        const b = run({ at: base + MIN });
        expect(await store.insertRuns([a, a, b])).toEqual({ inserted: 2, duplicates: [a.run_id] });
        const again = await store.insertRuns([{ ...a, status: "failed" }, run({ at: base + 2 * MIN })]);
        expect(again).toEqual({ inserted: 1, duplicates: [a.run_id] });
        expect(await store.insertRuns([b])).toEqual({ inserted: 0, duplicates: [b.run_id] });
        // upper-case spelling of a stored id is the same UUID
        expect((await store.insertRuns([{ ...b, run_id: b.run_id?.toUpperCase() }])).inserted).toBe(0);
        const streaks = await store.consecutiveFailuresPerCollectorAccountRegion(base - DAY);
        expect(streaks[0]?.consecutive_failures).toBe(0);
        const days = await store.failuresPerCollectorPerDay(7);
        expect(days.reduce((s, d) => s + d.failures, 0)).toBe(0);
      });

      it("answers calls made at once as if they had run one after the other", async () => {
        const a = run({ at: base });
        const b = run({ at: base + 1 });
        const c = run({ at: base + 2 });
        const answers = await Promise.all([
          store.insertRuns([a]),
          store.insertRuns([{ ...a, status: "failed" }, b]),
          store.insertRuns([b, c, c]),
        ]);
        expect(answers).toEqual([
          { inserted: 1, duplicates: [] },
          { inserted: 1, duplicates: [a.run_id] },
          { inserted: 1, duplicates: [c.run_id, b.run_id] },
        ]);
        const stored = await store.recentRuns("config_ec2", { limit: 10 });
        expect(stored.map((r) => [r.run_id, r.status])).toEqual([
          [c.run_id, "succeeded"],
          [b.run_id, "succeeded"],
          [a.run_id, "succeeded"],
        ]);
      });

      it("is all-or-nothing: one bad row and nothing is written", async () => {
        const good = run({ at: base });
        const bad: Array<[Partial<CollectorRunInput> | Record<string, unknown>, string]> = [
          [{ status: "done" }, "status"],
          [{ events_produced: -1 }, "events_produced"],
          [{ rows_inserted: 2 ** 32 }, "rows_inserted"],
          [{ duration_ms: 1.5 }, "duration_ms"],
          [{ completed_at: base - 10_000 }, "completed_at"],
          [{ started_at: Number.NaN }, "started_at"],
          [{ run_id: "not-a-uuid" }, "run_id"],
          [{ collector: "" }, "collector"],
          [{ error: 42 }, "error"],
        ];
        for (const [patch, field] of bad) {
          const row = { ...run({ at: base + MIN }), ...patch } as CollectorRunInput;
          const err = await store.insertRuns([good, row]).catch((e: unknown) => e);
          expect(err).toBeInstanceOf(RunStoreValidationError);
          expect((err as RunStoreValidationError).index).toBe(1);
          expect((err as RunStoreValidationError).field).toBe(field);
        }
        expect(await store.latestRunPerCollector()).toEqual([]);
        expect(await store.insertRuns([good])).toEqual({ inserted: 1, duplicates: [] });
      });
    });

    describe("recentRuns", () => {
      beforeEach(async () => {
        store = await adapter.open();
      });

      it("returns the newest runs however far back they lie", async () => {
        const now = Date.now();
        // Runs an hour, hours, days and weeks old, older first, plus a retried duplicate.
        const ages = [30 * MIN, 5 * 60 * MIN, 3 * DAY, 30 * DAY, 80 * DAY];
        const runs = ages.map((age) => run({ at: now - age }));
        await store.insertRuns(runs);
        await store.insertRuns([runs[0] as CollectorRunInput]);
        const newestFirst = runs.map((r) => r.run_id);
        for (let limit = 1; limit <= 6; limit++) {
          const got = await store.recentRuns("config_ec2", { limit });
          expect(got.map((r) => r.run_id)).toEqual(newestFirst.slice(0, limit));
        }
        // Per account and region too.
        await store.insertRuns([run({ at: now - 10 * MIN, cloud_region: "eu-west-1" })]);
        const series = await store.recentRuns("config_ec2", { limit: 3, cloud_region: "us-east-1" });
        expect(series.map((r) => r.run_id)).toEqual(newestFirst.slice(0, 3));
        const other = await store.recentRuns("config_ec2", { cloud_account_id: "999999999999" });
        expect(other).toEqual([]);
      });

      it("breaks ties of completed_at by run_id as text, newest first", async () => {
        const at = Date.now() - 20 * MIN;
        // The halves disagree: ClickHouse orders UUIDs by their second half first, text by the first.
        const ids = [
          ["0a", "5"],
          ["b1", "1"],
          ["2c", "4"],
          ["f0", "2"],
          ["9d", "3"],
        ].map(([hi, lo]) => `${hi}000000-0000-4000-8000-00000000000${lo}`);
        await store.insertRuns(ids.map((run_id) => ({ ...run({ at }), run_id })));
        const got = await store.recentRuns("config_ec2", { limit: 3 });
        expect(got.map((r) => r.run_id)).toEqual([...ids].sort().reverse().slice(0, 3));
      });

      it("returns 20 by default and at most 200", async () => {
        const now = Date.now();
        await store.insertRuns(Array.from({ length: 210 }, (_, i) => run({ at: now - (i + 1) * 1000 })));
        expect(await store.recentRuns("config_ec2")).toHaveLength(20);
        expect(await store.recentRuns("config_ec2", { limit: 1000 })).toHaveLength(200);
        expect(await store.recentRuns("config_ec2", { limit: 0 })).toHaveLength(1);
      });
    });

    describe("accounts", () => {
      beforeEach(async () => {
        store = await adapter.open();
      });

      it("latest updated_at wins, whatever the insert order", async () => {
        const up = (account_id: string, account_name: string, svc_status: string, updated_at: number) =>
          store.upsertAccount({ account_id, account_name, svc_status: svc_status as never, updated_at });
        await up("a1", "Prod", "active", base + 2000);
        await up("a1", "Prod (old)", "pending_setup", base + 1000);
        await up("a2", "Dev", "pending_setup", base);
        await up("a2", "Dev", "no_access", base + 1);
        // first_active_at: the first active version (the grace of a never-scanned account), null if never.
        expect(await store.accountsLatest()).toEqual([
          {
            account_id: "a1",
            account_name: "Prod",
            svc_status: "active",
            updated_at: base + 2000,
            first_active_at: base + 2000,
          },
          {
            account_id: "a2",
            account_name: "Dev",
            svc_status: "no_access",
            updated_at: base + 1,
            first_active_at: null,
          },
        ]);
        await up("a2", "Dev", "active", base + 5);
        await up("a2", "Dev", "no_access", base + 9);
        await up("a2", "Dev", "active", base + 20);
        expect((await store.accountsLatest())[1]).toMatchObject({
          svc_status: "active",
          updated_at: base + 20,
          first_active_at: base + 5,
        });
        await expect(up("a3", "X", "gone", base)).rejects.toBeInstanceOf(RunStoreValidationError);
      });
    });

    describe("status reads on a hand-built dataset", () => {
      const A = "111111111111";
      const B = "222222222222";
      const rows: CollectorRunInput[] = [];

      beforeAll(async () => {
        store = await adapter.open();
        rows.length = 0;
        rows.push(
          // config_ec2 / A / us-east-1: success then 3 failures
          run({ at: base, cloud_account_id: A }),
          run({ at: base + 1 * MIN, cloud_account_id: A, status: "failed", error: "e1" }),
          run({ at: base + 2 * MIN, cloud_account_id: A, status: "failed", error: "e2" }),
          run({ at: base + 3 * MIN, cloud_account_id: A, status: "failed", error: "e3" }),
          // config_ec2 / A / eu-west-1: partial breaks the streak, never succeeded
          run({ at: base + 1 * MIN, cloud_account_id: A, cloud_region: "eu-west-1", status: "failed" }),
          run({ at: base + 2 * MIN, cloud_account_id: A, cloud_region: "eu-west-1", status: "partial" }),
          run({ at: base + 3 * MIN, cloud_account_id: A, cloud_region: "eu-west-1", status: "failed" }),
          // config_ec2 / B / us-east-1: the collector's latest run
          run({ at: base + 4 * MIN, cloud_account_id: B, events_produced: 77, duration_ms: 4321 }),
          // config_ebs / A: success then partial
          run({ at: base + 10 * MIN, collector: "config_ebs", cloud_account_id: A }),
          run({
            at: base + 20 * MIN,
            collector: "config_ebs",
            cloud_account_id: A,
            status: "partial",
            error: "p",
          }),
          // hierarchy_builder: never succeeded
          run({
            at: base + 5 * MIN,
            collector: "hierarchy_builder",
            cloud_account_id: A,
            status: "failed",
            error: "dependency not met: no config_* success in 20 min",
          }),
          // an old failure, two days earlier (outside the streak window, inside the sparkline)
          run({ at: base - 2 * DAY, cloud_account_id: A, status: "failed" }),
        );
        // two batches, so an adapter that aggregates across writes is exercised
        await store.insertRuns(rows.slice(0, 6));
        await store.insertRuns(rows.slice(6));
      });

      it("latestRunPerCollector", async () => {
        const latest = await store.latestRunPerCollector();
        expect(latest.map((r) => [r.collector, r.completed_at, r.status, r.cloud_account_id])).toEqual([
          ["config_ebs", base + 20 * MIN, "partial", A],
          ["config_ec2", base + 4 * MIN, "succeeded", B],
          ["hierarchy_builder", base + 5 * MIN, "failed", A],
        ]);
        expect(latest[1]).toMatchObject({ events_produced: 77, duration_ms: 4321, error: "" });
        expect(latest[0]?.error).toBe("p");
        expect(latest[2]?.error).toMatch(/^dependency not met/);
      });

      it("lastSuccessPerCollector (never-succeeded collectors are absent)", async () => {
        const ls = await store.lastSuccessPerCollector();
        expect(ls.map((r) => [r.collector, r.last_success_at, r.cloud_account_id])).toEqual([
          ["config_ebs", base + 10 * MIN, A],
          ["config_ec2", base + 4 * MIN, B],
        ]);
        expect(ls[1]?.run_id).toBe(rows[7]?.run_id);
        expect(ls[1]?.cloud_region).toBe("us-east-1");
      });

      it("consecutiveFailuresPerCollectorAccountRegion", async () => {
        const s = await store.consecutiveFailuresPerCollectorAccountRegion(base - 60 * MIN);
        const key = (r: { collector: string; cloud_account_id: string; cloud_region: string }) =>
          `${r.collector}/${r.cloud_account_id}/${r.cloud_region}`;
        const byKey = Object.fromEntries(s.map((r) => [key(r), r]));
        expect(s.map(key)).toEqual([
          `config_ebs/${A}/us-east-1`,
          `config_ec2/${A}/eu-west-1`,
          `config_ec2/${A}/us-east-1`,
          `config_ec2/${B}/us-east-1`,
          `hierarchy_builder/${A}/us-east-1`,
        ]);
        expect(byKey[`config_ec2/${A}/us-east-1`]).toEqual({
          collector: "config_ec2",
          cloud_account_id: A,
          cloud_region: "us-east-1",
          last_run_at: base + 3 * MIN,
          last_status: "failed",
          last_success_at: base,
          consecutive_failures: 3,
          // the error of the latest failed run: the alert's last error
          last_error: "e3",
        });
        expect(byKey[`config_ec2/${A}/eu-west-1`]).toMatchObject({
          consecutive_failures: 1,
          last_success_at: null,
        });
        expect(byKey[`config_ebs/${A}/us-east-1`]).toMatchObject({
          consecutive_failures: 0,
          last_status: "partial",
          last_error: "",
        });
        expect(byKey[`hierarchy_builder/${A}/us-east-1`]).toMatchObject({ consecutive_failures: 1 });
        // a window starting after the success: the streak counts only what is inside it
        const late = await store.consecutiveFailuresPerCollectorAccountRegion(base + 2 * MIN);
        expect(late.find((r) => key(r) === `config_ec2/${A}/us-east-1`)).toMatchObject({
          consecutive_failures: 2,
          last_success_at: null,
        });
        // series whose last run is before the window are left out
        const latest = await store.consecutiveFailuresPerCollectorAccountRegion(base + 6 * MIN);
        expect(latest.map(key)).toEqual([`config_ebs/${A}/us-east-1`]);
      });

      it("failingOnly keeps the series whose latest run did not succeed", async () => {
        const failing = await store.consecutiveFailuresPerCollectorAccountRegion(base - 60 * MIN, {
          failingOnly: true,
        });
        expect(failing.map((r) => `${r.collector}/${r.cloud_account_id}/${r.cloud_region}`)).toEqual([
          `config_ebs/${A}/us-east-1`,
          `config_ec2/${A}/eu-west-1`,
          `config_ec2/${A}/us-east-1`,
          `hierarchy_builder/${A}/us-east-1`,
        ]);
      });

      it("lastSucceededRunPerAccount", async () => {
        expect(await store.lastSucceededRunPerAccount(base - DAY)).toEqual([
          { cloud_account_id: A, last_success_at: base + 10 * MIN },
          { cloud_account_id: B, last_success_at: base + 4 * MIN },
        ]);
        expect(await store.lastSucceededRunPerAccount(base + 5 * MIN)).toEqual([
          { cloud_account_id: A, last_success_at: base + 10 * MIN },
        ]);
      });

      it("failuresPerCollectorPerDay: dense, 7 UTC days, oldest first", async () => {
        const now = Date.now();
        const days = await store.failuresPerCollectorPerDay(7, now);
        expect(days).toHaveLength(3 * 7);
        const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
        const ec2 = days.filter((d) => d.collector === "config_ec2");
        expect(ec2.map((d) => d.day)).toEqual(
          Array.from({ length: 7 }, (_, i) => dayOf(now - (6 - i) * DAY)),
        );
        const expected = new Map<string, number>();
        for (const r of rows.filter((x) => x.collector === "config_ec2" && x.status === "failed")) {
          expected.set(dayOf(r.completed_at), (expected.get(dayOf(r.completed_at)) ?? 0) + 1);
        }
        expect(Object.fromEntries(ec2.filter((d) => d.failures > 0).map((d) => [d.day, d.failures]))).toEqual(
          Object.fromEntries(expected),
        );
        expect(days.filter((d) => d.collector === "config_ebs").every((d) => d.failures === 0)).toBe(true);
        expect(
          days.filter((d) => d.collector === "hierarchy_builder").reduce((s, d) => s + d.failures, 0),
        ).toBe(1);
        // one day: today's only
        expect((await store.failuresPerCollectorPerDay(1, now)).map((d) => d.day)).toEqual([
          dayOf(now),
          dayOf(now),
          dayOf(now),
        ]);
      });

      it("hands each caller its own rows", async () => {
        const a = await store.latestRunPerCollector();
        (a[0] as { status: string }).status = "changed";
        a.push(a[0] as (typeof a)[number]);
        const again = await store.latestRunPerCollector();
        expect(again).toHaveLength(3);
        expect(again[0]?.status).toBe("partial");
        const accounts = await store.lastSucceededRunPerAccount(0);
        accounts.pop();
        expect(await store.lastSucceededRunPerAccount(0)).toHaveLength(2);
      });

      it("dbHealth reports the store's size, its disk when known, and where each figure came from", async () => {
        const h = await store.dbHealth();
        expect(h.disk_used_bytes).toBeGreaterThan(0);
        expect(h.svc_disk_used_bytes).toBeGreaterThan(0);
        expect(h.disk_used_bytes).toBeGreaterThanOrEqual(h.svc_disk_used_bytes);
        for (const v of [h.disk_total_bytes, h.disk_free_bytes, h.active_queries])
          expect(v === null || (Number.isFinite(v) && v >= 0)).toBe(true);
        if (h.disk_total_bytes !== null && h.disk_free_bytes !== null)
          expect(h.disk_free_bytes).toBeLessThanOrEqual(h.disk_total_bytes);
        expect(h.query_samples).toBeGreaterThanOrEqual(0);
        if (h.query_p50_ms !== null) expect(h.query_p95_ms).toBeGreaterThanOrEqual(h.query_p50_ms);
        if (h.query_p95_ms !== null) expect(h.query_p99_ms).toBeGreaterThanOrEqual(h.query_p95_ms);
        expect(Object.keys(h.sources).sort()).toEqual(["active_queries", "disk", "query_latency"]);
        for (const v of Object.values(h.sources)) expect(v).toMatch(/\S/);
      });
    });

    describe("run starts", () => {
      beforeEach(async () => {
        store = await adapter.open();
      });
      const start = (n: number, at: number, collector = "config_ec2"): RunStartRow => ({
        run_id: uuid(1000 + n),
        collector,
        cloud_account_id: "111111111111",
        cloud_region: "us-east-1",
        started_at: at,
      });

      it("a start is open until a run record of the same run_id is stored", async () => {
        await store.recordStarts([start(1, base), start(2, base + MIN, "config_ebs")]);
        expect(await store.openStarts(base - DAY)).toEqual([
          start(2, base + MIN, "config_ebs"),
          start(1, base),
        ]);
        await store.insertRuns([run({ at: base + 2 * MIN, run_id: uuid(1001) })]);
        expect(await store.openStarts(base - DAY)).toEqual([start(2, base + MIN, "config_ebs")]);
      });

      it("a second start of the same run_id changes nothing, within a call and across calls", async () => {
        await store.recordStarts([start(1, base), start(1, base + 5 * MIN)]);
        await store.recordStarts([{ ...start(1, base + 9 * MIN), run_id: uuid(1001).toUpperCase() }]);
        expect(await store.openStarts(base - DAY)).toEqual([start(1, base)]);
      });

      it("leaves out starts before `since` and reads at most `limit`, newest first", async () => {
        await store.recordStarts([start(1, base - 2 * DAY), start(2, base), start(3, base + MIN)]);
        expect((await store.openStarts(base - DAY)).map((s) => s.run_id)).toEqual([uuid(1003), uuid(1002)]);
        expect((await store.openStarts(base - 3 * DAY, { limit: 1 })).map((s) => s.run_id)).toEqual([
          uuid(1003),
        ]);
      });

      it("is all-or-nothing: one bad start and nothing is written", async () => {
        await expect(
          store.recordStarts([start(1, base), { ...start(2, base), run_id: "not-a-uuid" }]),
        ).rejects.toBeInstanceOf(RunStoreValidationError);
        expect(await store.openStarts(base - DAY)).toEqual([]);
      });
    });
  });
}
