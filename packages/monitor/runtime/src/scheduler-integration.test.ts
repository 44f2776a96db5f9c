import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DescribeInstancesCommand,
  type DescribeInstancesCommandInput,
  DescribeRegionsCommand,
  EC2Client,
} from "@aws-sdk/client-ec2";
import { AssumeRoleCommand, type AssumeRoleCommandInput, STSClient } from "@aws-sdk/client-sts";
import { awsCollectors, describeRegionsSource, markAccountNoAccess, RoleAssumer } from "@monitor/aws";
import {
  assumeRoleAccessDenied,
  assumeRoleOutput,
  ec2RequestLimitExceeded,
  instance,
  instancesPage,
} from "@monitor/aws/test-support/aws-responses";
import { MemoryQueue } from "@monitor/aws/test-support/doubles";
import {
  ClickHouseCollectorRegistry,
  ClickHouseResourceSink,
  type ClickHouseRunStore,
  resourcesLatest,
} from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import type { CollectorAccount } from "@monitor/core";
import { FakeClock } from "@monitor/core/fake-clock";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accountsFromStore, type RunOutcome, Scheduler, type SchedulerOptions } from "./scheduler.ts";

// One chDB data folder per test file (one engine per folder per process).
const dir = mkdtempSync(join(tmpdir(), "svcmon-aws-"));
let store: ClickHouseRunStore;
const sts = mockClient(STSClient);
const ec2 = mockClient(EC2Client);
const MIN = 60_000;
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3 * 60 * MIN;
const PROD: CollectorAccount = { account_id: "111111111111", account_name: "prod", svc_status: "active" };
const LEGACY: CollectorAccount = { account_id: "555555555555", account_name: "legacy", svc_status: "active" };

let clock: FakeClock;
let queue: MemoryQueue;

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  for (const t of [
    "svc.collector_runs",
    "svc.collector_series",
    "svc.collector_failed_runs",
    "svc.cloud_accounts",
    "svc.resources",
  ]) {
    await store.client.command({ query: `TRUNCATE TABLE ${t}` });
  }
  clock = new FakeClock(T0);
  queue = new MemoryQueue();
  for (const a of [PROD, LEGACY]) {
    await store.upsertAccount({ ...(a as Required<CollectorAccount>), updated_at: T0 - MIN });
  }
  sts.on(AssumeRoleCommand).callsFake(async (input: AssumeRoleCommandInput) => {
    const account = (input.RoleArn ?? "").split(":")[4] as string;
    if (account === LEGACY.account_id) throw assumeRoleAccessDenied(account);
    return assumeRoleOutput(account, new Date(clock.now() + 3_600_000));
  });
});
afterEach(() => {
  sts.reset();
  ec2.reset();
});

function scheduler(opts: Partial<SchedulerOptions> = {}): Scheduler {
  const credentials = new RoleAssumer({
    sts: new STSClient({ region: "us-east-1" }),
    externalId: "svcmon-ext",
    now: () => clock.now(),
  });
  return new Scheduler({
    collectors: awsCollectors({
      credentials,
      sink: ClickHouseResourceSink.fromStore(store),
      events: queue,
      onNoAccess: markAccountNoAccess(store, () => clock.now()),
    }),
    registry: ClickHouseCollectorRegistry.fromStore(store, { now: () => clock.now() }),
    store,
    accounts: accountsFromStore(store),
    regions: ["us-east-1"],
    timeoutMs: 5000,
    clock,
    ...opts,
  });
}

function recorded(o: RunOutcome | undefined) {
  if (o?.outcome !== "recorded") throw new Error(`run not recorded: ${JSON.stringify(o)}`);
  return o.record;
}

const PAGE1 = instancesPage(
  [
    instance("i-0aaa000000000001", {
      tags: { team: "search", env: "prod", "svc:purpose": "svc-infrastructure" },
    }),
    instance("i-0aaa000000000002", { tags: { team: "ads" } }),
  ],
  "page-2",
);
const PAGE2 = instancesPage([instance("i-0aaa000000000003", { tags: { env: "staging" } })]);

describe("AWS collectors in the real Scheduler with the chDB run store (EC2 and STS mocked with aws-sdk-client-mock)", () => {
  it("config_ec2 succeeds: one run record, tagged rows in svc.resources under the record's run_id, events sent", async () => {
    ec2
      .on(DescribeInstancesCommand)
      .callsFake(async (input: DescribeInstancesCommandInput) => (input.NextToken ? PAGE2 : PAGE1));
    const record = recorded(await scheduler().runOnce("config_ec2", PROD, "us-east-1"));
    expect(record).toMatchObject({
      collector: "config_ec2",
      cloud_account_id: PROD.account_id,
      cloud_region: "us-east-1",
      status: "succeeded",
      events_produced: 3,
      rows_inserted: 3,
      error: "",
    });
    const [latest] = await store.latestRunPerCollector();
    expect(latest).toMatchObject({ run_id: record.run_id, status: "succeeded", rows_inserted: 3 });

    const resources = await resourcesLatest(store.client, { accountIds: [PROD.account_id] });
    expect(resources.map((r) => [r.resource_id, r.tags])).toEqual([
      ["i-0aaa000000000001", { team: "search", env: "prod", "svc:purpose": "svc-infrastructure" }],
      ["i-0aaa000000000002", { team: "ads" }],
      ["i-0aaa000000000003", { env: "staging" }],
    ]);
    expect(resources.every((r) => r.run_id === record.run_id && r.observed_at === T0)).toBe(true);
    expect(queue.bodies.map((b) => JSON.parse(b).run_id)).toEqual([
      record.run_id,
      record.run_id,
      record.run_id,
    ]);
  });

  it("page 2 throttled past the client's attempts is recorded as partial with the error", async () => {
    ec2.on(DescribeInstancesCommand).callsFake(async (input: DescribeInstancesCommandInput) => {
      if (input.NextToken) throw ec2RequestLimitExceeded(3);
      return PAGE1;
    });
    const record = recorded(await scheduler().runOnce("config_ec2", PROD, "us-east-1"));
    expect(record).toMatchObject({
      status: "partial",
      events_produced: 2,
      rows_inserted: 2,
      error:
        "DescribeInstances page 2 failed after 3 attempts: RequestLimitExceeded: Request limit exceeded.",
    });
  });

  it("AccessDenied on AssumeRole: failed run records with the error, the account becomes no_access and is skipped after", async () => {
    ec2.on(DescribeInstancesCommand).resolves(PAGE2);
    const s = scheduler();
    const outcomes = await s.runCollector("config_ec2");
    const records = outcomes
      .map(recorded)
      .sort((a, b) => a.cloud_account_id.localeCompare(b.cloud_account_id));
    expect(records.map((r) => [r.cloud_account_id, r.status])).toEqual([
      [PROD.account_id, "succeeded"],
      [LEGACY.account_id, "failed"],
    ]);
    expect(records[1]?.error).toBe(
      "AccessDeniedError: cannot assume arn:aws:iam::555555555555:role/svcmon-collector in account 555555555555: " +
        "AccessDenied: User: arn:aws:sts::999999999999:assumed-role/svcmon-runtime/svcmon is not authorized to " +
        "perform: sts:AssumeRole on resource: arn:aws:iam::555555555555:role/svcmon-collector",
    );
    const accounts = await store.accountsLatest();
    expect(accounts.map((a) => [a.account_id, a.account_name, a.svc_status])).toEqual([
      [PROD.account_id, "prod", "active"],
      [LEGACY.account_id, "legacy", "no_access"],
    ]);
    // The other two collectors fail on the same account: still one no_access version.
    await s.runCollector("config_ebs").catch(() => {});
    const versions = await store.client.query({
      query: "SELECT count() AS n FROM svc.cloud_accounts WHERE account_id = '555555555555'",
      format: "JSONEachRow",
    });
    expect(Number((await versions.json<{ n: unknown }>())[0]?.n)).toBe(2);
    // no_access accounts are not scanned any more (the scheduler keeps active accounts only).
    const next = await s.runCollector("config_network");
    expect(next.map(recorded).map((r) => r.cloud_account_id)).toEqual([PROD.account_id]);
  });

  it("a DescribeInstances call that never answers is aborted at the timeout and recorded failed", async () => {
    ec2.on(DescribeInstancesCommand).callsFake(() => new Promise(() => {}));
    const p = scheduler().runOnce("config_ec2", PROD, "us-east-1");
    // Real-time wait (no timing asserted) until the collector is stuck inside DescribeInstances.
    while (ec2.commandCalls(DescribeInstancesCommand).length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await clock.advance(5000);
    const record = recorded(await p);
    expect(record).toMatchObject({ status: "failed", error: "timed out after 5000 ms", duration_ms: 5000 });
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(1);
    expect(await resourcesLatest(store.client)).toEqual([]);
  });

  it("the region source runs each account in its enabled regions (DescribeRegions), limited to the allow-list", async () => {
    ec2.on(DescribeRegionsCommand).resolves({
      $metadata: { httpStatusCode: 200 },
      Regions: [
        {
          RegionName: "eu-west-1",
          Endpoint: "ec2.eu-west-1.amazonaws.com",
          OptInStatus: "opt-in-not-required",
        },
        {
          RegionName: "us-east-1",
          Endpoint: "ec2.us-east-1.amazonaws.com",
          OptInStatus: "opt-in-not-required",
        },
        { RegionName: "ap-east-1", Endpoint: "ec2.ap-east-1.amazonaws.com", OptInStatus: "opted-in" },
      ],
    });
    ec2.on(DescribeInstancesCommand).resolves(PAGE2);
    const credentials = new RoleAssumer({
      sts: new STSClient({ region: "us-east-1" }),
      now: () => clock.now(),
    });
    const s = scheduler({
      regions: describeRegionsSource({
        credentials,
        only: ["us-east-1", "eu-west-1", "us-west-2"],
        fallback: ["us-east-1"],
        now: () => clock.now(),
      }),
    });
    const records = (await s.runCollector("config_ec2")).map(recorded);
    const subjects = records.map((r) => `${r.cloud_account_id}/${r.cloud_region}/${r.status}`).sort();
    // prod: its two allowed enabled regions; legacy: regions unreadable (role refused) → the fallback,
    // where the run records the refusal.
    expect(subjects).toEqual([
      "111111111111/eu-west-1/succeeded",
      "111111111111/us-east-1/succeeded",
      "555555555555/us-east-1/failed",
    ]);
    expect(ec2.commandCalls(DescribeRegionsCommand)).toHaveLength(1);
    // Within the hour the account's list is reused; the refused account is asked again each tick.
    await s.runCollector("config_ec2");
    expect(ec2.commandCalls(DescribeRegionsCommand)).toHaveLength(1);
  });
});
