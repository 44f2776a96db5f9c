import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CountingSink,
  SERVICE_HOME,
  SERVICE_PURPOSE_TAG,
  SERVICE_PURPOSE_VALUE,
  SimulatedCloud,
  simulatedCollectors,
} from "@monitor/aws/simulation";
import { RESOURCES_TABLE, RunStoreValidationError, tagsFromAws, validateResourceRow } from "@monitor/core";
import { resourceRow, rowSinkContract } from "@monitor/core/contract/row-sink";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openChdbRunStore } from "./chdb.ts";
import { ClickHouseResourceSink } from "./clickhouse-resource-sink.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import { resourcesLatest } from "./resources-latest.ts";

// One chDB data folder per test file (one engine per folder per process).
const dir = mkdtempSync(join(tmpdir(), "svcmon-resources-"));
let store: ClickHouseRunStore;
const MIN = 60_000;
const T0 = Math.floor(Date.now() / 1000) * 1000 - 60 * MIN;

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function truncate() {
  for (const t of [
    "svc.resources",
    "svc.collector_runs",
    "svc.collector_series",
    "svc.collector_failed_runs",
  ]) {
    await store.client.command({ query: `TRUNCATE TABLE ${t}` });
  }
}

async function storedIds(): Promise<string[]> {
  const rs = await store.client.query({
    query: "SELECT resource_id FROM svc.resources",
    format: "JSONEachRow",
  });
  return (await rs.json<{ resource_id: string }>()).map((r) => r.resource_id);
}

rowSinkContract(
  "ClickHouseResourceSink on chDB",
  async () => {
    await truncate();
    return ClickHouseResourceSink.fromStore(store);
  },
  () => storedIds(),
);
rowSinkContract(
  "CountingSink",
  async () => new CountingSink(),
  async () => null,
);

describe("svc.resources (migration 7) through ClickHouseResourceSink, on chDB", () => {
  beforeEach(truncate);

  it("stores tags as Map(String, String), attributes as JSON, and the run's id and time", async () => {
    const sink = ClickHouseResourceSink.fromStore(store);
    const tags = tagsFromAws([
      { Key: "svc:purpose", Value: "svc-infrastructure" },
      { Key: "team", Value: "platform" },
      { Key: "empty" },
    ]);
    await sink.write(RESOURCES_TABLE, [resourceRow("i-1", { tags, observed_at: T0 })]);
    const rs = await store.client.query({
      query: `SELECT resource_id, resource_type, arn, tags, attributes, toUnixTimestamp64Milli(observed_at) AS t,
        toString(run_id) AS run_id, collector, toTypeName(tags) AS tags_type FROM svc.resources`,
      format: "JSONEachRow",
    });
    expect(await rs.json()).toEqual([
      {
        resource_id: "i-1",
        resource_type: "ec2_instance",
        arn: "arn:aws:ec2:us-east-1:111111111111:instance/i-1",
        tags: { "svc:purpose": "svc-infrastructure", team: "platform", empty: "" },
        attributes: '{"instance_type":"t3.micro","state":"running"}',
        t: T0,
        run_id: "3f1e9b7a-8c2d-4e5f-9a6b-7c8d9e0f1a2b",
        collector: "config_ec2",
        tags_type: "Map(String, String)",
      },
    ]);
  });

  it("a bad row is refused with its index and field, and nothing of the batch is written", async () => {
    const sink = ClickHouseResourceSink.fromStore(store);
    const bad = { ...resourceRow("i-2"), tags: { team: 7 } } as unknown as Record<string, unknown>;
    const err = await sink.write(RESOURCES_TABLE, [resourceRow("i-1"), bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunStoreValidationError);
    expect(err).toMatchObject({
      index: 1,
      field: "tags.team",
      message: "row 1: tags.team: must be a string",
    });
    expect(await storedIds()).toEqual([]);
    expect(validateResourceRow({ ...resourceRow("x"), run_id: "nope", observed_at: -1 })).toEqual({
      ok: false,
      errors: [
        { path: "run_id", message: "must be a UUID" },
        { path: "observed_at", message: "must be epoch milliseconds (integer)" },
      ],
    });
  });

  it("other tables go to the fallback sink, or are refused without one", async () => {
    const fallback = new CountingSink();
    const sink = ClickHouseResourceSink.fromStore(store, { fallback });
    expect(await sink.write("hierarchy_nodes", [{ node: "account/1" }])).toBe(1);
    expect(fallback.counts.get("hierarchy_nodes")).toBe(1);
    await expect(ClickHouseResourceSink.fromStore(store).write("hierarchy_nodes", [{}])).rejects.toThrow(
      'ClickHouseResourceSink writes only "resources", not "hierarchy_nodes"',
    );
  });
});

describe("resourcesLatest on chDB", () => {
  beforeEach(truncate);

  it("gives the latest observation per resource (argMax over observed_at), whatever the insert order", async () => {
    const sink = ClickHouseResourceSink.fromStore(store);
    await sink.write(RESOURCES_TABLE, [
      resourceRow("i-1", {
        observed_at: T0 + 2 * MIN,
        tags: { team: "new" },
        attributes: { state: "stopped" },
      }),
    ]);
    await sink.write(RESOURCES_TABLE, [
      resourceRow("i-1", { observed_at: T0, tags: { team: "old" } }),
      resourceRow("vol-1", { resource_type: "ebs_volume", observed_at: T0, attributes: { size_gb: 8 } }),
      resourceRow("i-1", { cloud_region: "eu-west-1", observed_at: T0 }),
    ]);
    const all = await resourcesLatest(store.client);
    expect(all.map((r) => [r.cloud_region, r.resource_type, r.resource_id, r.tags.team])).toEqual([
      ["eu-west-1", "ec2_instance", "i-1", "search"],
      ["us-east-1", "ebs_volume", "vol-1", "search"],
      ["us-east-1", "ec2_instance", "i-1", "new"],
    ]);
    expect(all[2]).toMatchObject({ attributes: { state: "stopped" }, observed_at: T0 + 2 * MIN });
    expect(all[1]?.attributes).toEqual({ size_gb: 8 });

    expect((await resourcesLatest(store.client, { sinceMs: T0 + MIN })).map((r) => r.resource_id)).toEqual([
      "i-1",
    ]);
    expect(
      (await resourcesLatest(store.client, { resourceTypes: ["ebs_volume"], regions: ["us-east-1"] })).map(
        (r) => r.resource_id,
      ),
    ).toEqual(["vol-1"]);
    expect(await resourcesLatest(store.client, { accountIds: ["999999999999"] })).toEqual([]);
  });

  it("filters by a tag in the latest state (key, or key and value)", async () => {
    const sink = ClickHouseResourceSink.fromStore(store);
    await sink.write(RESOURCES_TABLE, [
      resourceRow("q-1", { tags: { "svc:purpose": "svc-infrastructure" }, observed_at: T0 }),
      resourceRow("q-2", { tags: { "svc:purpose": "other" }, observed_at: T0 }),
      resourceRow("q-3", { tags: {}, observed_at: T0 }),
      // Tagged once, untagged since: the latest state has no tag.
      resourceRow("q-4", { tags: { "svc:purpose": "svc-infrastructure" }, observed_at: T0 }),
      resourceRow("q-4", { tags: {}, observed_at: T0 + MIN }),
    ]);
    const ids = async (tag: { key: string; value?: string }) =>
      (await resourcesLatest(store.client, { tag })).map((r) => r.resource_id);
    expect(await ids({ key: "svc:purpose" })).toEqual(["q-1", "q-2"]);
    expect(await ids({ key: "svc:purpose", value: "svc-infrastructure" })).toEqual(["q-1"]);
  });

  it("sinceLatestSuccess keeps resources observed since the start of their collector's latest succeeded run", async () => {
    const sink = ClickHouseResourceSink.fromStore(store);
    const run = (id: string, started: number, status: "succeeded" | "failed", region = "us-east-1") => ({
      run_id: id,
      collector: "config_ec2",
      cloud_account_id: "111111111111",
      cloud_region: region,
      started_at: started,
      completed_at: started + 1000,
      status,
      events_produced: 0,
      rows_inserted: 0,
      duration_ms: 1000,
    });
    await store.insertRuns([
      run("00000000-0000-4000-8000-000000000001", T0, "succeeded"),
      run("00000000-0000-4000-8000-000000000002", T0 + 10 * MIN, "succeeded"),
      run("00000000-0000-4000-8000-000000000003", T0 + 20 * MIN, "failed"),
      run("00000000-0000-4000-8000-000000000004", T0, "failed", "eu-west-1"),
    ]);
    await sink.write(RESOURCES_TABLE, [
      resourceRow("i-gone", { observed_at: T0 + 500 }), // seen by the first run only
      resourceRow("i-kept", { observed_at: T0 + 500 }),
      resourceRow("i-kept", { observed_at: T0 + 10 * MIN + 500 }),
      resourceRow("i-never", { cloud_region: "eu-west-1", observed_at: T0 + 500 }), // no success there
    ]);
    expect(
      (await resourcesLatest(store.client, { sinceLatestSuccess: true })).map((r) => r.resource_id),
    ).toEqual(["i-kept"]);
    expect((await resourcesLatest(store.client)).map((r) => r.resource_id)).toEqual([
      "i-never",
      "i-gone",
      "i-kept",
    ]);
  });
});

describe("simulated collectors (npm start) fill svc.resources through ClickHouseResourceSink", () => {
  beforeEach(truncate);

  it("every stored resource with its tags, the service's own ones findable by svc:purpose", async () => {
    const fallback = new CountingSink();
    const cloud = new SimulatedCloud({ sink: ClickHouseResourceSink.fromStore(store, { fallback }) });
    const ctx = {
      account: { account_id: SERVICE_HOME.account_id, account_name: "demo-analytics" },
      region: SERVICE_HOME.region,
      signal: new AbortController().signal,
      now: () => T0,
      run_id: "6d0c8f0e-7d7c-4b8e-9f5e-1f2a3b4c5d6e",
    };
    let rows = 0;
    for (const c of simulatedCollectors(cloud)) rows += (await c.run(ctx)).rows_inserted;
    const inv = cloud.inventory(SERVICE_HOME.account_id, SERVICE_HOME.region);
    const stored = await resourcesLatest(store.client);
    const live = inv.instances.filter((i) => i.state !== "terminated").length + inv.volumes.length;
    expect(stored).toHaveLength(live + new Set(inv.network.map((n) => n.resource_id)).size);
    expect(fallback.counts.get("hierarchy_nodes")).toBeGreaterThan(0); // hierarchy_builder's nodes
    expect(rows).toBe(stored.length + (fallback.counts.get("hierarchy_nodes") ?? 0));
    for (const r of stored) {
      expect(r.tags).toEqual(inv.tags[r.resource_id]);
      expect(r.run_id).toBe(ctx.run_id);
    }
    const own = await resourcesLatest(store.client, {
      tag: { key: SERVICE_PURPOSE_TAG, value: SERVICE_PURPOSE_VALUE },
    });
    expect(own.map((r) => r.resource_id)).toContain("i-0c1c4d0b5e7a90001");
    expect(own.find((r) => r.resource_id === "i-0c1c4d0b5e7a90001")).toMatchObject({
      resource_type: "ec2_instance",
      arn: "arn:aws:ec2:us-east-1:333333333333:instance/i-0c1c4d0b5e7a90001",
      attributes: { instance_type: "r6i.large", state: "running" },
    });
  });
});
