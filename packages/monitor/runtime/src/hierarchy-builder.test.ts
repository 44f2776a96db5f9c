/**
 * hierarchy_builder against real chDB: the Scheduler's dependency gate in front of it, the latest
 * resources of svc.resources in, the build out (svc.resource_hierarchy, svc.hierarchy_builds).
 */

import { SimulatedCloud, simulatedCollectors } from "@monitor/aws/simulation";
import {
  ClickHouseHierarchyStore,
  ClickHouseResourceSink,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import { openTempStore } from "@monitor/clickhouse/test-support/temp-store";
import {
  type CollectorAccount,
  DEFAULT_HIERARCHY_RULES,
  type HierarchyRules,
  InMemoryCollectorRegistry,
} from "@monitor/core";
import { FakeClock } from "@monitor/core/fake-clock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type BuiltHierarchy, HIERARCHY_BUILDER, hierarchyBuilder } from "./hierarchy-builder.ts";
import { Scheduler } from "./scheduler.ts";

const MIN = 60_000;
// Recent times: rows older than the tables' 90-day TTL would be dropped at insert.
const T0 = Math.floor(Date.now() / 1000) * 1000 - 60 * MIN;
const A: CollectorAccount = { account_id: "111111111111", account_name: "prod" };
const REGION = "us-east-1";

let store: ClickHouseRunStore;
let cleanup: () => Promise<void>;
let hierarchy: ClickHouseHierarchyStore;
let sink: ClickHouseResourceSink;
let clock: FakeClock;
let built: BuiltHierarchy[];

beforeAll(async () => {
  const t = await openTempStore("svcmon-hierarchy-");
  store = t.store;
  cleanup = t.cleanup;
  hierarchy = ClickHouseHierarchyStore.fromStore(store);
  sink = ClickHouseResourceSink.fromStore(store);
}, 60_000);

afterAll(async () => {
  await cleanup?.();
});

beforeEach(async () => {
  for (const t of [
    "svc.collector_runs",
    "svc.collector_series",
    "svc.collector_failed_runs",
    "svc.resources",
    "svc.resource_hierarchy",
    "svc.hierarchy_builds",
  ]) {
    await store.client.command({ query: `TRUNCATE TABLE ${t}` });
  }
  clock = new FakeClock(T0);
  built = [];
});

function scheduler(rules: HierarchyRules = DEFAULT_HIERARCHY_RULES): Scheduler {
  return new Scheduler({
    collectors: [hierarchyBuilder({ store: hierarchy, rules, onBuilt: (b) => built.push(b) })],
    registry: new InMemoryCollectorRegistry(),
    store,
    accounts: async () => [A],
    regions: [REGION],
    timeoutMs: 10_000,
    clock,
  });
}

/** A succeeded config_ec2 run that started at `startedAt`, and the resources it observed. */
async function scan(
  startedAt: number,
  resources: { id: string; tags: Record<string, string>; type?: string; arn?: string }[],
): Promise<void> {
  const runId = globalThis.crypto.randomUUID();
  await sink.write(
    "resources",
    resources.map((r) => ({
      resource_id: r.id,
      resource_type: r.type ?? "ec2_instance",
      arn: r.arn ?? "",
      cloud_account_id: A.account_id,
      cloud_region: REGION,
      tags: r.tags,
      attributes: {},
      observed_at: startedAt + 1000,
      run_id: runId,
      collector: "config_ec2",
    })),
  );
  await store.insertRuns([
    {
      run_id: runId,
      collector: "config_ec2",
      cloud_account_id: A.account_id,
      cloud_region: REGION,
      started_at: startedAt,
      completed_at: startedAt + 2000,
      status: "succeeded",
      events_produced: resources.length,
      rows_inserted: resources.length,
      duration_ms: 2000,
    },
  ]);
}

async function builds(): Promise<number> {
  const rs = await store.client.query({
    query: "SELECT count() AS n FROM svc.hierarchy_builds",
    format: "JSONEachRow",
  });
  const [r] = await rs.json<{ n: string | number }>();
  return Number(r?.n ?? 0);
}

describe("hierarchy_builder behind the dependency gate", () => {
  it("without a recent config_* success the run fails `dependency not met` and writes nothing", async () => {
    await scan(T0 - 25 * MIN, [{ id: "i-1", tags: { team: "web" } }]);
    const [out] = await scheduler().runCollector(HIERARCHY_BUILDER);
    expect(out).toMatchObject({ outcome: "recorded", record: { status: "failed" } });
    if (out?.outcome === "recorded")
      expect(out.record.error).toMatch(/^dependency not met: .*config_ec2 2[0-9] min ago/);
    expect(await builds()).toBe(0);
    expect(built).toEqual([]);
  });

  it("after one, it places every resource by the rules and records the build", async () => {
    await scan(T0 - 5 * MIN, [
      {
        id: "i-svc",
        tags: { "svc:purpose": "svc-infrastructure", team: "platform", Name: "svcmon-clickhouse-1" },
      },
      { id: "i-web", tags: { team: "web", env: "prod" } },
      { id: "vol-cc", type: "ebs_volume", tags: { "cost-center": "cc-7" } },
      { id: "i-bare", tags: {} },
      { id: "i-forgot", tags: { Name: "svcmon-bastion", team: "platform" } },
      {
        id: "sg-stack",
        type: "security_group",
        arn: "arn:aws:ec2:us-east-1:111111111111:security-group/sg-stack",
        tags: { "aws:cloudformation:stack-name": "svcmon-prod", env: "prod" },
      },
    ]);
    const [out] = await scheduler().runCollector(HIERARCHY_BUILDER);
    expect(out).toMatchObject({
      outcome: "recorded",
      record: { status: "succeeded", events_produced: 6, rows_inserted: 6, error: "" },
    });
    expect(built).toEqual([{ accountId: A.account_id, region: REGION, builtAt: T0, resources: 6 }]);
    const rows = await hierarchy.latestHierarchy();
    expect(rows.map((r) => [r.resource_id, r.node, r.rule, r.untagged_service_reason])).toEqual([
      ["vol-cc", "cost-centers/cc-7", "rules[1]", ""],
      ["i-bare", `unassigned/${A.account_id}`, "unassigned", ""],
      ["i-forgot", "teams/platform", "rules[0]", "Name tag svcmon-bastion starts with svcmon-"],
      ["i-svc", "svc-infrastructure", "svc:purpose", ""],
      ["i-web", "teams/web", "rules[0]", ""],
      [
        "sg-stack",
        `environments/prod/${A.account_id}`,
        "rules[2]",
        "stack svcmon-prod (aws:cloudformation:stack-name matches svcmon-*)",
      ],
    ]);
    expect(rows.every((r) => r.built_at === T0)).toBe(true);
    expect((await hierarchy.latestHierarchy({ untaggedOnly: true })).map((r) => r.resource_id)).toEqual([
      "i-forgot",
      "sg-stack",
    ]);
  });

  it("only the latest build counts: a resource the latest scan did not see is gone", async () => {
    await scan(T0 - 10 * MIN, [
      { id: "i-stays", tags: { team: "web" } },
      { id: "i-goes", tags: { team: "web" } },
    ]);
    const s = scheduler();
    await s.runCollector(HIERARCHY_BUILDER);
    expect((await hierarchy.latestHierarchy()).map((r) => r.resource_id)).toEqual(["i-goes", "i-stays"]);
    // The next scan sees one of them, retagged; the next build follows it.
    await clock.advance(30 * MIN);
    await scan(clock.now() - 2 * MIN, [{ id: "i-stays", tags: { team: "search" } }]);
    const [out] = await s.runCollector(HIERARCHY_BUILDER);
    expect(out).toMatchObject({ record: { status: "succeeded", events_produced: 1 } });
    const rows = await hierarchy.latestHierarchy();
    expect(rows.map((r) => [r.resource_id, r.node])).toEqual([["i-stays", "teams/search"]]);
    expect(await builds()).toBe(2);
  });

  it("a build with no resources empties the account's hierarchy", async () => {
    await scan(T0 - 10 * MIN, [{ id: "i-1", tags: {} }]);
    await scheduler().runCollector(HIERARCHY_BUILDER);
    await scan(T0 - 1 * MIN, []);
    await clock.advance(MIN);
    const [out] = await scheduler().runCollector(HIERARCHY_BUILDER);
    expect(out).toMatchObject({ record: { status: "succeeded", events_produced: 0, rows_inserted: 0 } });
    expect(await hierarchy.latestHierarchy()).toEqual([]);
  });

  it("reads its rules at every run when given a function", async () => {
    let rules: HierarchyRules = DEFAULT_HIERARCHY_RULES;
    const s = new Scheduler({
      collectors: [hierarchyBuilder({ store: hierarchy, rules: () => rules })],
      registry: new InMemoryCollectorRegistry(),
      store,
      accounts: async () => [A],
      regions: [REGION],
      timeoutMs: 10_000,
      clock,
    });
    await scan(T0 - 5 * MIN, [{ id: "i-1", tags: { team: "web", env: "prod" } }]);
    await s.runCollector(HIERARCHY_BUILDER);
    rules = { ...DEFAULT_HIERARCHY_RULES, rules: [{ tag: "env", node: "env/{value}" }] };
    await clock.advance(MIN);
    await s.runCollector(HIERARCHY_BUILDER);
    expect((await hierarchy.latestHierarchy()).map((r) => r.node)).toEqual(["env/prod"]);
  });

  it("replaces the simulated hierarchy_builder and builds from what the simulated collectors stored", async () => {
    const builder = hierarchyBuilder({ store: hierarchy, rules: DEFAULT_HIERARCHY_RULES });
    const cloud = new SimulatedCloud({ sink });
    const collectors = simulatedCollectors(cloud, { hierarchyBuilder: builder });
    expect(collectors.map((c) => c.name)).toEqual([
      "config_ec2",
      "config_ebs",
      "config_network",
      HIERARCHY_BUILDER,
    ]);
    expect(collectors[3]).toBe(builder);
    expect(simulatedCollectors(cloud)[3]).not.toBe(builder);
    const home: CollectorAccount = { account_id: "333333333333", account_name: "demo-analytics" };
    const s = new Scheduler({
      collectors,
      registry: new InMemoryCollectorRegistry(),
      store,
      accounts: async () => [home],
      regions: [REGION],
      timeoutMs: 10_000,
      clock,
    });
    for (const name of ["config_ec2", "config_ebs", "config_network"]) await s.runCollector(name);
    const [out] = await s.runCollector(HIERARCHY_BUILDER);
    expect(out).toMatchObject({ record: { status: "succeeded" } });
    const rows = await hierarchy.latestHierarchy();
    const inv = cloud.inventory(home.account_id, REGION);
    const running = inv.instances.filter((i) => i.state !== "terminated").length;
    expect(rows).toHaveLength(running + inv.volumes.length + inv.network.length);
    expect(rows.filter((r) => r.node === "svc-infrastructure").length).toBeGreaterThan(0);
    expect(
      rows
        .filter((r) => r.untagged_service_reason !== "")
        .map((r) => r.untagged_service_reason)
        .sort(),
    ).toEqual([
      "Name tag svcmon-bastion starts with svcmon-",
      "Name tag svcmon-clickhouse-backup starts with svcmon-",
      "Name tag svcmon-nat starts with svcmon-",
    ]);
  });
});
