import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CollectorSpec, DEFAULT_COLLECTORS, RunStoreValidationError } from "@monitor/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openChdbRunStore } from "./chdb.ts";
import { msToCh } from "./clickhouse-call.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import { ClickHouseCollectorRegistry } from "./registry-clickhouse.ts";

// One chDB data folder per test file (one engine per folder per process).
const dir = mkdtempSync(join(tmpdir(), "svcmon-registry-"));
let store: ClickHouseRunStore;
let clock = Date.UTC(2025, 5, 1, 12, 0, 0);

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await store.client.command({ query: "TRUNCATE TABLE svc.collectors" });
  await store.client.command({ query: "TRUNCATE TABLE svc.collector_registrations" });
});

/** The registry's entries without their registration (the intervals only). */
const intervals = (specs: readonly CollectorSpec[]) =>
  specs.map(({ name, expected_interval_minutes, freshness_threshold_minutes }) => ({
    name,
    expected_interval_minutes,
    freshness_threshold_minutes,
  }));

function registry(defaults = DEFAULT_COLLECTORS): ClickHouseCollectorRegistry {
  return ClickHouseCollectorRegistry.fromStore(store, { defaults, now: () => clock });
}

describe("ClickHouseCollectorRegistry", () => {
  it("lists the configured defaults when nothing is stored", async () => {
    const r = registry();
    expect(intervals(await r.list())).toEqual(DEFAULT_COLLECTORS);
    expect(await r.get("hierarchy_builder")).toEqual({
      name: "hierarchy_builder",
      expected_interval_minutes: 30,
      freshness_threshold_minutes: 60,
      registered_at: clock,
      registered_by: "config",
    });
    expect(await r.get("nope")).toBeNull();
  });

  it("persists: a new instance (a restart) sees the overrides; the clock orders versions", async () => {
    clock += 60_000;
    await registry().put({
      name: "config_ec2",
      expected_interval_minutes: 10,
      freshness_threshold_minutes: 30,
    });
    clock -= 30_000; // a later write from an instance whose clock is behind loses
    await registry().put({
      name: "config_ec2",
      expected_interval_minutes: 99,
      freshness_threshold_minutes: 99,
    });
    clock += 30_000;
    expect(intervals([(await registry().get("config_ec2")) as CollectorSpec])).toEqual([
      {
        name: "config_ec2",
        expected_interval_minutes: 10,
        freshness_threshold_minutes: 30,
      },
    ]);
    // another configuration: stored overrides still apply to it
    const other = registry([
      { name: "config_ec2", expected_interval_minutes: 1, freshness_threshold_minutes: 2 },
    ]);
    expect(intervals(await other.list())).toEqual([
      { name: "config_ec2", expected_interval_minutes: 10, freshness_threshold_minutes: 30 },
    ]);
  });

  it("rejects invalid specs and writes nothing", async () => {
    const r = registry();
    const err = await r
      .put({ name: "config_ec2", expected_interval_minutes: 0, freshness_threshold_minutes: 60 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunStoreValidationError);
    expect((err as RunStoreValidationError).field).toBe("expected_interval_minutes");
    await expect(
      r.put({ name: "", expected_interval_minutes: 5, freshness_threshold_minutes: 60 }),
    ).rejects.toBeInstanceOf(RunStoreValidationError);
    expect(intervals(await r.list())).toEqual(DEFAULT_COLLECTORS);
  });
});

describe("registration time (the grace of a new collector)", () => {
  const registrations = async () =>
    Object.fromEntries(
      (await registry().list()).map((s) => [s.name, [s.registered_at, s.registered_by]] as const),
    );

  it("registers the configured collectors the first time they are listed, at the registry's clock", async () => {
    const t0 = clock;
    expect(await registry().get("config_ec2")).toMatchObject({ registered_at: null, registered_by: null });
    expect(await registrations()).toEqual({
      config_ec2: [t0, "config"],
      config_ebs: [t0, "config"],
      config_network: [t0, "config"],
      hierarchy_builder: [t0, "config"],
    });
  });

  it("survives a restart: a new registry instance (and a re-opened store) keeps the first time", async () => {
    const t0 = clock;
    await registry().list();
    clock += 3_600_000;
    await store.close();
    store = openChdbRunStore(dir, { timeoutMs: 10_000 });
    await store.migrate();
    const after = await registrations();
    expect(after.config_ec2).toEqual([t0, "config"]);
    expect(after.hierarchy_builder).toEqual([t0, "config"]);
  });

  it("is not reset by re-registering: a second PUT, or the same collector configured again", async () => {
    const t0 = clock;
    await registry().put({
      name: "billing_cur",
      expected_interval_minutes: 60,
      freshness_threshold_minutes: 180,
    });
    clock += 600_000;
    await registry().put({
      name: "billing_cur",
      expected_interval_minutes: 30,
      freshness_threshold_minutes: 90,
    });
    await registry().put({
      name: "config_ec2",
      expected_interval_minutes: 5,
      freshness_threshold_minutes: 60,
    });
    const configured = registry([
      ...DEFAULT_COLLECTORS,
      { name: "billing_cur", expected_interval_minutes: 30, freshness_threshold_minutes: 90 },
    ]);
    const byName = new Map((await configured.list()).map((s) => [s.name, s]));
    expect(byName.get("billing_cur")).toMatchObject({ registered_at: t0, registered_by: "api" });
    expect(byName.get("config_ec2")).toMatchObject({ registered_at: clock, registered_by: "config" });
    // a collector added to the configuration later is registered when first listed
    clock += 60_000;
    const added = registry([
      ...DEFAULT_COLLECTORS,
      { name: "config_s3", expected_interval_minutes: 15, freshness_threshold_minutes: 60 },
    ]);
    expect((await added.list()).find((s) => s.name === "config_s3")).toMatchObject({
      registered_at: clock,
      registered_by: "config",
    });
  });

  it("two registrations racing keep the earliest", async () => {
    await store.client.insert({
      table: "svc.collector_registrations",
      values: [
        { name: "config_ec2", registered_at: msToCh(clock + 5000), registered_by: "api" },
        { name: "config_ec2", registered_at: msToCh(clock), registered_by: "config" },
      ],
      format: "JSONEachRow",
    });
    expect(await registry().get("config_ec2")).toMatchObject({
      registered_at: clock,
      registered_by: "config",
    });
  });
});
