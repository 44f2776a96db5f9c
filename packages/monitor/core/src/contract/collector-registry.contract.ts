/**
 * One behaviour suite for every `CollectorRegistry` adapter: ClickHouse (chDB) and in memory. Run by
 * packages/monitor/clickhouse/src/collector-registry.contract.test.ts over the list of adapters, one
 * `describe` per adapter, the same cases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CollectorRegistry } from "../ports.ts";
import { type CollectorSpec, DEFAULT_COLLECTORS } from "../records.ts";

export interface CollectorRegistryAdapter {
  name: string;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** A registry with nothing stored, configured with `defaults`, registering at `now()`. */
  open(defaults: readonly CollectorSpec[], now: () => number): Promise<CollectorRegistry>;
}

/** The entries without their registration (the intervals only). */
const intervals = (specs: readonly CollectorSpec[]) =>
  specs.map(({ name, expected_interval_minutes, freshness_threshold_minutes }) => ({
    name,
    expected_interval_minutes,
    freshness_threshold_minutes,
  }));

export function collectorRegistryContract(adapter: CollectorRegistryAdapter): void {
  describe(`CollectorRegistry contract: ${adapter.name}`, () => {
    let clock = Date.UTC(2025, 5, 1, 12, 0, 0);
    const open = () => adapter.open(DEFAULT_COLLECTORS, () => clock);
    beforeAll(async () => adapter.setup?.());
    afterAll(async () => adapter.teardown?.());

    it("lists the configured collectors when nothing was put; an unknown name is null", async () => {
      const r = await open();
      expect(intervals(await r.list())).toEqual(DEFAULT_COLLECTORS);
      expect(intervals([(await r.get("hierarchy_builder")) as CollectorSpec])).toEqual([
        { name: "hierarchy_builder", expected_interval_minutes: 30, freshness_threshold_minutes: 60 },
      ]);
      expect(await r.get("nope")).toBeNull();
    });

    it("put replaces a collector's intervals in place (the last put wins) and appends a new collector", async () => {
      const r = await open();
      await r.put({ name: "config_ebs", expected_interval_minutes: 5, freshness_threshold_minutes: 20 });
      await r.put({ name: "config_ebs", expected_interval_minutes: 7, freshness_threshold_minutes: 21 });
      await r.put({ name: "billing_cur", expected_interval_minutes: 60, freshness_threshold_minutes: 180 });
      const list = intervals(await r.list());
      expect(list.map((s) => s.name)).toEqual([
        "config_ec2",
        "config_ebs",
        "config_network",
        "hierarchy_builder",
        "billing_cur",
      ]);
      expect(list[1]).toEqual({
        name: "config_ebs",
        expected_interval_minutes: 7,
        freshness_threshold_minutes: 21,
      });
      expect(list[0]).toEqual(DEFAULT_COLLECTORS[0]);
      expect(await r.get("billing_cur")).toEqual({
        name: "billing_cur",
        expected_interval_minutes: 60,
        freshness_threshold_minutes: 180,
        registered_at: clock,
        registered_by: "api",
      });
    });

    it("keeps a cron collector's schedule, time zone and grace, and a later interval put replaces them", async () => {
      const r = await open();
      const nightly: CollectorSpec = {
        name: "nightly_backup",
        expected_interval_minutes: null,
        freshness_threshold_minutes: 60,
        schedule: "0 2 * * 1-5",
        timezone: "Europe/Berlin",
        grace_minutes: 45,
      };
      await r.put(nightly);
      expect(await r.get("nightly_backup")).toEqual({
        ...nightly,
        registered_at: clock,
        registered_by: "api",
      });
      expect((await r.list()).find((s) => s.name === "nightly_backup")).toMatchObject(nightly);
      await r.put({
        name: "nightly_backup",
        expected_interval_minutes: 1440,
        freshness_threshold_minutes: 60,
      });
      const back = (await r.get("nightly_backup")) as CollectorSpec;
      expect(back.expected_interval_minutes).toBe(1440);
      expect(back.schedule ?? null).toBeNull();
    });

    it("registers the configured collectors when first listed, at the registry's clock, once", async () => {
      const r = await open();
      const t0 = clock;
      const registrations = async () =>
        Object.fromEntries(
          (await r.list()).map((s) => [s.name, [s.registered_at, s.registered_by]] as const),
        );
      expect(await registrations()).toEqual({
        config_ec2: [t0, "config"],
        config_ebs: [t0, "config"],
        config_network: [t0, "config"],
        hierarchy_builder: [t0, "config"],
      });
      clock += 3_600_000;
      expect((await registrations()).config_ec2).toEqual([t0, "config"]);
    });

    it("a second put changes the intervals and keeps the first registration", async () => {
      const r = await open();
      const t0 = clock;
      await r.put({ name: "billing_cur", expected_interval_minutes: 60, freshness_threshold_minutes: 180 });
      clock += 600_000;
      await r.put({ name: "billing_cur", expected_interval_minutes: 30, freshness_threshold_minutes: 90 });
      expect(await r.get("billing_cur")).toEqual({
        name: "billing_cur",
        expected_interval_minutes: 30,
        freshness_threshold_minutes: 90,
        registered_at: t0,
        registered_by: "api",
      });
    });

    it("registerIfAbsent adds an unknown collector marked first_run, once; a later put keeps that registration", async () => {
      const r = await open();
      const t0 = clock;
      const spec = {
        name: "nightly_backup",
        expected_interval_minutes: 1440,
        freshness_threshold_minutes: 2880,
      };
      expect(await r.registerIfAbsent(spec, "first_run")).toBe(true);
      clock += 60_000;
      expect(await r.registerIfAbsent({ ...spec, expected_interval_minutes: 5 }, "first_run")).toBe(false);
      expect(await r.registerIfAbsent({ ...spec, name: "config_ec2" }, "first_run")).toBe(false);
      expect(await r.get("nightly_backup")).toEqual({
        ...spec,
        registered_at: t0,
        registered_by: "first_run",
      });
      expect((await r.list()).map((s) => [s.name, s.registered_by])).toContainEqual([
        "nightly_backup",
        "first_run",
      ]);
      expect(intervals([(await r.get("config_ec2")) as CollectorSpec])).toEqual([DEFAULT_COLLECTORS[0]]);
      await r.put({ ...spec, expected_interval_minutes: 60, freshness_threshold_minutes: 120 });
      expect(await r.get("nightly_backup")).toMatchObject({
        expected_interval_minutes: 60,
        registered_at: t0,
        registered_by: "first_run",
      });
    });

    it("delete removes a collector and its registration; a configured one stays; an unknown one is not_found", async () => {
      const r = await open();
      const spec = {
        name: "nightly_backup",
        expected_interval_minutes: 1440,
        freshness_threshold_minutes: 2880,
      };
      await r.registerIfAbsent(spec, "first_run");
      expect(await r.delete("nightly_backup")).toBe("deleted");
      expect(await r.get("nightly_backup")).toBeNull();
      expect((await r.list()).map((s) => s.name)).not.toContain("nightly_backup");
      expect(await r.delete("nightly_backup")).toBe("not_found");
      expect(await r.delete("config_ec2")).toBe("configured");
      expect(await r.get("config_ec2")).not.toBeNull();
      // Its next first run registers it again, from that time.
      clock += 3_600_000;
      expect(await r.registerIfAbsent(spec, "first_run")).toBe(true);
      expect(await r.get("nightly_backup")).toMatchObject({
        registered_at: clock,
        registered_by: "first_run",
      });
    });

    it("keeps a collector's max_duration_minutes; a put without it clears it", async () => {
      const r = await open();
      const spec = { name: "backup", expected_interval_minutes: 1440, freshness_threshold_minutes: 2880 };
      await r.put({ ...spec, max_duration_minutes: 90 });
      expect(await r.get("backup")).toMatchObject({ max_duration_minutes: 90 });
      expect((await r.list()).find((s) => s.name === "backup")).toMatchObject({ max_duration_minutes: 90 });
      clock += 1;
      await r.put(spec);
      expect((await r.get("backup"))?.max_duration_minutes ?? null).toBeNull();
    });
  });
}
