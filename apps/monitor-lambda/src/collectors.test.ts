import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DescribeInstancesCommand,
  DescribeRegionsCommand,
  type DescribeRegionsCommandOutput,
  EC2Client,
} from "@aws-sdk/client-ec2";
import { SendMessageBatchCommand, type SendMessageBatchCommandInput, SQSClient } from "@aws-sdk/client-sqs";
import { AssumeRoleCommand, type AssumeRoleCommandInput, STSClient } from "@aws-sdk/client-sts";
import {
  assumeRoleAccessDenied,
  assumeRoleOutput,
  instance,
  instancesPage,
} from "@monitor/aws/test-support/aws-responses";
import {
  ClickHouseCollectorRegistry,
  ClickHouseHierarchyStore,
  type ClickHouseRunStore,
  resourcesLatest,
} from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { DEFAULT_HIERARCHY_RULES } from "@monitor/core";
import { StandardRetryStrategy } from "@smithy/core/retry";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCollectorHandler } from "./collector.ts";
import { awsClients, lambdaCollectors } from "./collectors.ts";
import { memoryLogger } from "./test-support.ts";

const PROD = "111111111111";
const REFUSING = "222222222222";
const QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/999999999999/svcmon-events";
const WIRING = { roleName: "svcmon-collector", externalId: "ext-0123456789", eventQueueUrl: QUEUE_URL };
/** MonitoredRegions: us-west-2 is configured but not enabled in the accounts below. */
const CONFIGURED = ["eu-west-1", "us-east-1", "us-west-2"];

const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-collectors-"));
let store: ClickHouseRunStore;
const sts = mockClient(STSClient);
const ec2 = mockClient(EC2Client);
const sqs = mockClient(SQSClient);
let sent: SendMessageBatchCommandInput[];

beforeAll(async () => {
  store = openChdbRunStore(join(dir, "chdb"), { timeoutMs: 10_000 });
  await store.migrate();
  const now = Date.now();
  await store.upsertAccount({
    account_id: PROD,
    account_name: "prod",
    svc_status: "active",
    updated_at: now,
  });
  await store.upsertAccount({
    account_id: REFUSING,
    account_name: "legacy",
    svc_status: "active",
    updated_at: now,
  });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  sent = [];
  sts.on(AssumeRoleCommand).callsFake(async (input: AssumeRoleCommandInput) => {
    const account = (input.RoleArn ?? "").split(":")[4] as string;
    if (account === REFUSING) throw assumeRoleAccessDenied(account);
    return assumeRoleOutput(account, new Date(Date.now() + 3_600_000));
  });
  const regions: DescribeRegionsCommandOutput = {
    $metadata: {},
    Regions: ["ap-south-2", "eu-west-1", "us-east-1"].map((RegionName) => ({
      RegionName,
      Endpoint: `ec2.${RegionName}.amazonaws.com`,
      OptInStatus: "opt-in-not-required",
    })),
  };
  ec2.on(DescribeRegionsCommand).resolves(regions);
  ec2
    .on(DescribeInstancesCommand)
    .resolves(
      instancesPage([
        instance("i-0aaa000000000001", { tags: { "svc:purpose": "svc-infrastructure" } }),
        instance("i-0aaa000000000002", { tags: { team: "search" } }),
      ]),
    );
  sqs.on(SendMessageBatchCommand).callsFake(async (input: SendMessageBatchCommandInput) => {
    sent.push(input);
    return {
      Successful: (input.Entries ?? []).map((e) => ({
        Id: e.Id,
        MessageId: `m-${e.Id}`,
        MD5OfMessageBody: "0",
      })),
      Failed: [],
    };
  });
});
afterEach(() => {
  sts.reset();
  ec2.reset();
  sqs.reset();
});

function tick(collector: string) {
  const log = memoryLogger();
  const wired = lambdaCollectors({
    store,
    wiring: WIRING,
    regions: CONFIGURED,
    hierarchyRules: DEFAULT_HIERARCHY_RULES,
    sts: new STSClient({ region: "eu-west-1" }),
    sqs: new SQSClient({ region: "eu-west-1" }),
    log: ({ level, msg, ...fields }) => {
      if (level !== "debug") log[level](msg, fields);
    },
  });
  const handler = createCollectorHandler({
    store,
    registry: ClickHouseCollectorRegistry.fromStore(store),
    collectors: wired.collectors,
    settings: { collector, regions: CONFIGURED, runTimeoutMs: 10_000 },
    regions: wired.regions,
    settled: wired.settled,
    log,
  });
  return { log, run: handler };
}

async function runsOf(collector: string) {
  const rs = await store.client.query({
    query: `SELECT cloud_account_id AS account, cloud_region AS region, status, rows_inserted, events_produced
            FROM svc.collector_runs WHERE collector = {c:String} ORDER BY account, region`,
    query_params: { c: collector },
    format: "JSONEachRow",
  });
  return rs.json<{
    account: string;
    region: string;
    status: string;
    rows_inserted: number;
    events_produced: number;
  }>();
}

describe("the collectors of the Lambda build (STS, EC2 and SQS mocked with aws-sdk-client-mock, chDB store)", () => {
  it("are the three AWS collectors and hierarchy_builder", () => {
    const { collectors } = lambdaCollectors({
      store,
      wiring: WIRING,
      regions: CONFIGURED,
      hierarchyRules: DEFAULT_HIERARCHY_RULES,
      ...awsClients(),
      log: () => {},
    });
    expect(collectors.map((c) => c.name)).toEqual([
      "config_ec2",
      "config_ebs",
      "config_network",
      "hierarchy_builder",
    ]);
  });

  it("builds the function's STS and SQS clients with the SDK's standard retry strategy, 5 attempts", async () => {
    const clients = awsClients();
    for (const client of [clients.sts, clients.sqs]) {
      expect(await client.config.maxAttempts()).toBe(5);
      const strategy = await client.config.retryStrategy();
      expect(strategy).toBeInstanceOf(StandardRetryStrategy);
      expect(await (strategy as StandardRetryStrategy).maxAttempts()).toBe(5);
    }
  });

  it("a config_ec2 tick: the enabled configured regions of each account, rows, events on the queue, a refused account to no_access", async () => {
    const { run } = tick("config_ec2");
    expect(await run()).toMatchObject({ collector: "config_ec2", succeeded: 2, failed: 3, lost: 0 });

    // The role of each account, with the external id.
    const assumed = sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input);
    expect(assumed.every((i) => i.ExternalId === WIRING.externalId)).toBe(true);
    expect(new Set(assumed.map((i) => i.RoleArn))).toEqual(
      new Set([
        `arn:aws:iam::${PROD}:role/svcmon-collector`,
        `arn:aws:iam::${REFUSING}:role/svcmon-collector`,
      ]),
    );

    // PROD: DescribeRegions says us-west-2 is not enabled; REFUSING: unreadable, so every configured region.
    expect((await runsOf("config_ec2")).map((r) => [r.account, r.region, r.status, r.rows_inserted])).toEqual(
      [
        [PROD, "eu-west-1", "succeeded", 2],
        [PROD, "us-east-1", "succeeded", 2],
        [REFUSING, "eu-west-1", "failed", 0],
        [REFUSING, "us-east-1", "failed", 0],
        [REFUSING, "us-west-2", "failed", 0],
      ],
    );
    const rows = await resourcesLatest(store.client, { accountIds: [PROD] });
    expect(rows.map((r) => [r.cloud_region, r.resource_id])).toEqual([
      ["eu-west-1", "i-0aaa000000000001"],
      ["eu-west-1", "i-0aaa000000000002"],
      ["us-east-1", "i-0aaa000000000001"],
      ["us-east-1", "i-0aaa000000000002"],
    ]);
    expect(sent.every((b) => b.QueueUrl === QUEUE_URL)).toBe(true);
    const events = sent.flatMap((b) => (b.Entries ?? []).map((e) => JSON.parse(e.MessageBody ?? "")));
    expect(events).toHaveLength(4);
    expect(events[0]).toMatchObject({ kind: "resource_observed", collector: "config_ec2", account_id: PROD });

    const accounts = await store.accountsLatest();
    expect(accounts.map((a) => [a.account_id, a.svc_status])).toEqual([
      [PROD, "active"],
      [REFUSING, "no_access"],
    ]);
  });

  it("a hierarchy_builder tick after it: the latest resources placed by the rules, the cost re-attribution finished", async () => {
    const { run, log } = tick("hierarchy_builder");
    expect(await run()).toMatchObject({ collector: "hierarchy_builder", succeeded: 2, failed: 0, lost: 0 });
    const hierarchy = await ClickHouseHierarchyStore.fromStore(store).latestHierarchy();
    expect(
      hierarchy.filter((h) => h.cloud_region === "eu-west-1").map((h) => [h.resource_id, h.rule]),
    ).toEqual([
      ["i-0aaa000000000001", "svc:purpose"],
      ["i-0aaa000000000002", expect.any(String)],
    ]);
    expect(log.lines.filter((l) => l.level === "error")).toEqual([]);
  });
});
