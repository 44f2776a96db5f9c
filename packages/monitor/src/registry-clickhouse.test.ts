import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_COLLECTORS } from "@svcmon/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ClickHouseRunStore, openChdbRunStore } from "./clickhouse-run-store.ts";
import { ClickHouseCollectorRegistry } from "./registry-clickhouse.ts";
import { RunStoreValidationError } from "./run-store.ts";

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
});

function registry(defaults = DEFAULT_COLLECTORS): ClickHouseCollectorRegistry {
  return ClickHouseCollectorRegistry.fromStore(store, { defaults, now: () => clock });
}

describe("ClickHouseCollectorRegistry", () => {
  it("lists the configured defaults when nothing is stored", async () => {
    const r = registry();
    expect(await r.list()).toEqual(DEFAULT_COLLECTORS);
    expect(await r.get("hierarchy_builder")).toEqual({
      name: "hierarchy_builder",
      expected_interval_minutes: 30,
      freshness_threshold_minutes: 60,
    });
    expect(await r.get("nope")).toBeNull();
  });

  it("overlays stored overrides (latest updated_at wins) and appends stored extra collectors", async () => {
    const r = registry();
    await r.put({ name: "config_ebs", expected_interval_minutes: 5, freshness_threshold_minutes: 20 });
    await r.put({ name: "config_ebs", expected_interval_minutes: 7, freshness_threshold_minutes: 21 });
    await r.put({ name: "billing_cur", expected_interval_minutes: 60, freshness_threshold_minutes: 180 });
    const list = await r.list();
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
    });
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
    expect(await registry().get("config_ec2")).toEqual({
      name: "config_ec2",
      expected_interval_minutes: 10,
      freshness_threshold_minutes: 30,
    });
    // another configuration: stored overrides still apply to it
    const other = registry([
      { name: "config_ec2", expected_interval_minutes: 1, freshness_threshold_minutes: 2 },
    ]);
    expect(await other.list()).toEqual([
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
    expect(await r.list()).toEqual(DEFAULT_COLLECTORS);
  });
});
