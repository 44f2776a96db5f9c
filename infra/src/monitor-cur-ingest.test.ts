/**
 * The production trigger of cost report ingestion in svcmon-Monitor (docs/monitor-cost.md): the CUR
 * bucket's object events through EventBridge, filtered on the manifests, into svcmon-cur-ingest with
 * its dead-letter queue; and the hierarchy rules the functions get from `-c svcmon-Monitor:hierarchyRules`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MANIFEST_SUFFIX } from "@apps/monitor-lambda/cur-manifest";
import { DEFAULT_COLLECTORS } from "@monitor/core";
import { Match } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MONITOR_STACK } from "./build-app.ts";
import {
  CUR_INGEST_DLQ_NAME,
  CUR_INGEST_FUNCTION_NAME,
  CUR_INGEST_STATEMENT_TIMEOUT_MS,
  CUR_INGEST_TIMEOUT_SECONDS,
  CUR_MANIFEST_SUFFIX,
} from "./monitor-stack.ts";
import {
  asArray,
  type CfnResourceJson,
  removeSynthesized,
  type Synthesized,
  statementsOf,
  synthesize,
  variablesOf,
} from "./test-support.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-infra-rules-"));
afterAll(() => {
  removeSynthesized();
  rmSync(dir, { recursive: true, force: true });
});

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize();
});

const resources = (s = synth) => s.json(MONITOR_STACK).Resources;
const find = (type: string, match: (r: CfnResourceJson) => boolean, s = synth): [string, CfnResourceJson] => {
  const found = Object.entries(resources(s)).find(([, r]) => r.Type === type && match(r));
  if (found === undefined) throw new Error(`no ${type} matches`);
  return found;
};
const fn = (name: string, s = synth) =>
  find("AWS::Lambda::Function", (r) => r.Properties?.FunctionName === name, s);
const bucketId = () => find("AWS::S3::Bucket", () => true)[0];
const dlqId = () => find("AWS::SQS::Queue", (r) => r.Properties?.QueueName === CUR_INGEST_DLQ_NAME)[0];

describe("the CUR delivery trigger", () => {
  it("the bucket sends its object events to EventBridge natively (no notifications custom resource)", () => {
    synth.template(MONITOR_STACK).hasResourceProperties("AWS::S3::Bucket", {
      NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
    });
    expect(Object.values(resources()).filter((r) => r.Type.startsWith("Custom::"))).toEqual([]);
  });

  it("a rule on the bucket's manifests only invokes svcmon-cur-ingest; undeliverable events go to the dead-letter queue", () => {
    expect(CUR_MANIFEST_SUFFIX).toBe(MANIFEST_SUFFIX);
    synth.template(MONITOR_STACK).hasResourceProperties("AWS::Events::Rule", {
      Name: CUR_INGEST_FUNCTION_NAME,
      State: "ENABLED",
      EventPattern: {
        source: ["aws.s3"],
        "detail-type": ["Object Created"],
        detail: {
          bucket: { name: [{ Ref: bucketId() }] },
          object: { key: [{ suffix: "-Manifest.json" }] },
        },
      },
      Targets: [
        Match.objectLike({
          Arn: { "Fn::GetAtt": [fn(CUR_INGEST_FUNCTION_NAME)[0], "Arn"] },
          DeadLetterConfig: { Arn: { "Fn::GetAtt": [dlqId(), "Arn"] } },
        }),
      ],
    });
  });

  it("svcmon-cur-ingest: one ingest at a time, up to 15 minutes, retried twice, then the dead-letter queue", () => {
    expect(CUR_INGEST_STATEMENT_TIMEOUT_MS).toBeLessThan(CUR_INGEST_TIMEOUT_SECONDS * 1000);
    const [id, f] = fn(CUR_INGEST_FUNCTION_NAME);
    expect(f.Properties).toMatchObject({
      Timeout: CUR_INGEST_TIMEOUT_SECONDS,
      ReservedConcurrentExecutions: 1,
    });
    expect(variablesOf(f)).toMatchObject({
      CLICKHOUSE_URL: { Ref: "ClickHouseUrl" },
      CUR_BUCKET: { Ref: bucketId() },
      CUR_S3_NAMED_COLLECTION: { Ref: "CurS3NamedCollection" },
      CUR_INGEST_TIMEOUT_MS: String(CUR_INGEST_STATEMENT_TIMEOUT_MS),
    });
    expect(JSON.stringify(variablesOf(f).SECRET_ENV_MAP)).toContain("CLICKHOUSE_PASSWORD");
    synth.template(MONITOR_STACK).hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
      FunctionName: { Ref: id },
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": [dlqId(), "Arn"] } } },
    });
    synth.template(MONITOR_STACK).hasResourceProperties("AWS::SQS::Queue", {
      QueueName: CUR_INGEST_DLQ_NAME,
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it("may read the bucket's manifests and nothing else of S3, and the ClickHouse secret", () => {
    const [, policy] = find("AWS::IAM::Policy", (r) =>
      JSON.stringify(r.Properties?.Roles).includes("CurIngestRole"),
    );
    const statements = statementsOf(policy);
    const s3 = statements.filter((s) => asArray(s.Action).some((a) => String(a).startsWith("s3:")));
    expect(s3).toEqual([
      {
        Action: "s3:GetObject",
        Effect: "Allow",
        Resource: { "Fn::Join": ["", [{ "Fn::GetAtt": [bucketId(), "Arn"] }, "/*-Manifest.json"]] },
      },
    ]);
    const secrets = statements.filter((s) =>
      JSON.stringify(s.Action).includes("secretsmanager:GetSecretValue"),
    );
    expect(JSON.stringify(secrets)).toContain("ClickHouseCredentials");
  });

  it("a failed ingest is watched: svcmon-status and svcmon-alerts, and no other function, read the dead-letter queue", () => {
    const watching = Object.values(resources())
      .filter((r) => r.Type === "AWS::Lambda::Function")
      .filter((r) => variablesOf(r).MONITOR_SQS_DEAD_LETTER_QUEUE_URLS !== undefined);
    expect(watching.map((r) => r.Properties?.FunctionName).sort()).toEqual([
      "svcmon-alerts",
      "svcmon-status",
    ]);
    for (const r of watching) {
      expect(variablesOf(r).MONITOR_SQS_DEAD_LETTER_QUEUE_URLS).toEqual({ Ref: dlqId() });
    }
    // Read access only (no receive, delete or send), on that queue only.
    const grants = Object.entries(resources())
      .filter(([, r]) => r.Type === "AWS::IAM::Policy")
      .flatMap(([id, r]) => statementsOf(r).map((st) => [id, st] as const))
      .filter(([, st]) => JSON.stringify(st.Resource).includes(dlqId()));
    expect(
      grants.map(([id, st]) => [id.replace(/RoleDefaultPolicy.*$/, ""), st.Action, st.Resource]),
    ).toEqual(
      expect.arrayContaining([
        ["Status", "sqs:GetQueueAttributes", { "Fn::GetAtt": [dlqId(), "Arn"] }],
        ["Alerts", "sqs:GetQueueAttributes", { "Fn::GetAtt": [dlqId(), "Arn"] }],
      ]),
    );
    expect(grants.filter(([id]) => /^(Status|Alerts)Role/.test(id))).toHaveLength(2);
  });

  it("takes the ClickHouse named collection as an optional stack parameter", () => {
    expect(synth.json(MONITOR_STACK).Parameters?.CurS3NamedCollection).toMatchObject({
      Type: "String",
      Default: "",
      AllowedPattern: "^([A-Za-z_][A-Za-z0-9_]*)?$",
    });
  });
});

describe("hierarchy rules of the functions (-c svcmon-Monitor:hierarchyRules=<file>)", () => {
  const KEY = `${MONITOR_STACK}:hierarchyRules`;
  const placing = [CUR_INGEST_FUNCTION_NAME, ...DEFAULT_COLLECTORS.map((c) => `svcmon-collector-${c.name}`)];

  it("without it, no function gets HIERARCHY_RULES_JSON (they use the built-in rules)", () => {
    for (const name of placing)
      expect(variablesOf(fn(name)[1]), name).not.toHaveProperty("HIERARCHY_RULES_JSON");
  });

  it("a rules file reaches hierarchy_builder and svcmon-cur-ingest as HIERARCHY_RULES_JSON, validated", () => {
    const path = join(dir, "rules.json");
    writeFileSync(path, JSON.stringify({ rules: [{ tag: "squad", node: "squads/{value}" }] }));
    const s = synthesize({ context: { [KEY]: path } });
    for (const name of placing) {
      const json = variablesOf(fn(name, s)[1]).HIERARCHY_RULES_JSON as string;
      expect(JSON.parse(json), name).toMatchObject({ rules: [{ tag: "squad", node: "squads/{value}" }] });
    }
  });

  it("a bad file stops synthesis with one line naming the file and each field", () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, JSON.stringify({ rules: [{ tag: "team", node: "unassigned/{value}" }] }));
    expect(() => synthesize({ context: { [KEY]: path } })).toThrow(
      `context ${KEY}: ${path}: rules[0].node: must not start with unassigned: that node is reserved (resources no rule places)`,
    );
    expect(() => synthesize({ context: { [KEY]: join(dir, "missing.json") } })).toThrow(
      /context svcmon-Monitor:hierarchyRules: cannot read .*missing\.json: ENOENT/,
    );
  });

  it("rules too large for a function's environment stop synthesis", () => {
    const path = join(dir, "large.json");
    const rules = Array.from({ length: 60 }, (_, i) => ({ tag: `tag-${i}`, node: `nodes-${i}/{value}` }));
    writeFileSync(path, JSON.stringify({ rules }));
    expect(() => synthesize({ context: { [KEY]: path } })).toThrow(/bytes as JSON; at most 2048 fit/);
  });
});
