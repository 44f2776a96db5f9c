import { createTransitionTableInput, TRANSITIONS_TABLE } from "@monitor/aws";
import { DEFAULT_COLLECTORS } from "@monitor/core";
import { Match } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLLECTOR_ROLE_STACK, MONITOR_STACK } from "./build-app.ts";
import { COLLECTOR_READ_ACTIONS } from "./collector-role-stack.ts";
import {
  ALERT_CHANNELS_SECRET_NAME,
  ALERT_TRANSITIONS_ACTIONS,
  ALERT_TRANSITIONS_TABLE_NAME,
  ALERTS_FUNCTION_NAME,
  ALERTS_TIMEOUT_SECONDS,
  COLLECTOR_ROLE_NAME,
  CUR_INGEST_DLQ_NAME,
  collectorTimeouts,
  EVENT_DLQ_NAME,
  EVENT_QUEUE_NAME,
  INGEST_TIMEOUT_SECONDS,
  MAX_RECEIVE_COUNT,
  SILENCES_ACTIONS,
} from "./monitor-stack.ts";
import {
  type CfnResourceJson,
  removeSynthesized,
  type Synthesized,
  statementsOf,
  synthesize,
} from "./test-support.ts";

afterAll(removeSynthesized);

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize();
});

const resources = () => synth.json(MONITOR_STACK).Resources;
const template = () => synth.template(MONITOR_STACK);
const ofType = (type: string) => Object.entries(resources()).filter(([, r]) => r.Type === type);
const logicalIdOf = (type: string, match: (r: CfnResourceJson) => boolean) => {
  const found = ofType(type).find(([, r]) => match(r));
  if (found === undefined) throw new Error(`no ${type} matches`);
  return found[0];
};
const fnId = (name: string) =>
  logicalIdOf("AWS::Lambda::Function", (r) => r.Properties?.FunctionName === name);
const queueId = (name: string) => logicalIdOf("AWS::SQS::Queue", (r) => r.Properties?.QueueName === name);
/**
 * What the status and alerts roles may do with SQS: read the event queue and find and read its
 * dead-letter queue; read the CUR ingest's failure queue, whose URL they are given.
 */
const queueHealthGrants = () => {
  const arn = (name: string) => ({ "Fn::GetAtt": [queueId(name), "Arn"] });
  return [
    {
      Action: ["sqs:GetQueueAttributes", "sqs:GetQueueUrl"],
      Effect: "Allow",
      Resource: [arn(EVENT_QUEUE_NAME), arn(EVENT_DLQ_NAME)],
    },
    { Action: "sqs:GetQueueAttributes", Effect: "Allow", Resource: arn(CUR_INGEST_DLQ_NAME) },
  ];
};

describe("collectors", () => {
  it.each(DEFAULT_COLLECTORS.map((c) => [c.name, c] as const))(
    "%s runs on an EventBridge rule at its expected interval",
    (name, spec) => {
      template().hasResourceProperties("AWS::Events::Rule", {
        ScheduleExpression: `rate(${spec.expected_interval_minutes} minutes)`,
        State: "ENABLED",
        Targets: [Match.objectLike({ Arn: { "Fn::GetAtt": [fnId(`svcmon-collector-${name}`), "Arn"] } })],
      });
    },
  );

  it.each(DEFAULT_COLLECTORS.map((c) => [c.name, c] as const))(
    "%s: one tick at a time, finished (records written) before the next tick",
    (name, spec) => {
      const { functionS, runMs } = collectorTimeouts(spec);
      expect(functionS).toBeLessThan((spec.expected_interval_minutes ?? 0) * 60);
      expect(runMs).toBeLessThan(functionS * 1000);
      template().hasResourceProperties("AWS::Lambda::Function", {
        FunctionName: `svcmon-collector-${name}`,
        Timeout: functionS,
        ReservedConcurrentExecutions: 1,
        Environment: {
          Variables: Match.objectLike({
            COLLECTOR: name,
            RUN_TIMEOUT_MS: String(runMs),
            COLLECTOR_ROLE_NAME: COLLECTOR_ROLE_NAME,
            COLLECTOR_REGIONS: { Ref: "MonitoredRegions" },
          }),
        },
      });
      template().hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
        FunctionName: { Ref: fnId(`svcmon-collector-${name}`) },
        MaximumRetryAttempts: 0,
      });
    },
  );

  it("refuses an interval a Lambda tick cannot honour", () => {
    expect(() =>
      collectorTimeouts({ name: "fast", expected_interval_minutes: 2, freshness_threshold_minutes: 60 }),
    ).toThrow(/fast: an interval of 2 min is too short/);
    expect(
      collectorTimeouts({ name: "slow", expected_interval_minutes: 60, freshness_threshold_minutes: 120 }),
    ).toEqual({
      functionS: 900,
      runMs: 840_000,
    });
  });
});

describe("the event queue", () => {
  it("moves a message to the dead-letter queue after a bounded number of receives", () => {
    const dlq = logicalIdOf("AWS::SQS::Queue", (r) => r.Properties?.QueueName === EVENT_DLQ_NAME);
    template().hasResourceProperties("AWS::SQS::Queue", {
      QueueName: EVENT_QUEUE_NAME,
      RedrivePolicy: {
        deadLetterTargetArn: { "Fn::GetAtt": [dlq, "Arn"] },
        maxReceiveCount: MAX_RECEIVE_COUNT,
      },
      VisibilityTimeout: 6 * INGEST_TIMEOUT_SECONDS,
      SqsManagedSseEnabled: true,
    });
  });

  it("is consumed by svcmon-ingest, which reports batch item failures", () => {
    const queue = logicalIdOf("AWS::SQS::Queue", (r) => r.Properties?.QueueName === EVENT_QUEUE_NAME);
    template().hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: { "Fn::GetAtt": [queue, "Arn"] },
      FunctionName: { Ref: fnId("svcmon-ingest") },
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      BatchSize: 10,
    });
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: "svcmon-ingest",
      Timeout: INGEST_TIMEOUT_SECONDS,
    });
  });
});

describe("the alert engine", () => {
  it("runs one tick a minute, one at a time, within the minute", () => {
    template().hasResourceProperties("AWS::Events::Rule", {
      Name: ALERTS_FUNCTION_NAME,
      ScheduleExpression: "rate(1 minute)",
      State: "ENABLED",
      Targets: [Match.objectLike({ Arn: { "Fn::GetAtt": [fnId(ALERTS_FUNCTION_NAME), "Arn"] } })],
    });
    expect(ALERTS_TIMEOUT_SECONDS).toBeLessThan(60);
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: ALERTS_FUNCTION_NAME,
      Timeout: ALERTS_TIMEOUT_SECONDS,
      ReservedConcurrentExecutions: 1,
    });
    template().hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
      FunctionName: { Ref: fnId(ALERTS_FUNCTION_NAME) },
      MaximumRetryAttempts: 0,
    });
  });

  it("keeps its state in ClickHouse and reads the channels config and the queues it alerts on", () => {
    const queue = queueId(EVENT_QUEUE_NAME);
    const secret = logicalIdOf(
      "AWS::SecretsManager::Secret",
      (r) => r.Properties?.Name === ALERT_CHANNELS_SECRET_NAME,
    );
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: ALERTS_FUNCTION_NAME,
      Environment: {
        Variables: Match.objectLike({
          CLICKHOUSE_URL: { Ref: "ClickHouseUrl" },
          MONITOR_SQS_QUEUE_URLS: { Ref: queue },
          MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: { Ref: queueId(CUR_INGEST_DLQ_NAME) },
          ALERT_WEBHOOK_URL: { Ref: "AlertWebhookUrl" },
          // The dead-man's switch of the alert loop (empty by default: none).
          MONITOR_HEARTBEAT_URL: { Ref: "HeartbeatUrl" },
          // The base of the notifications' /system links: the status function's URL.
          MONITOR_STATUS_URL: {
            "Fn::GetAtt": [Match.stringLikeRegexp("^StatusFunctionFunctionUrl"), "FunctionUrl"],
          },
        }),
      },
    });
    const env = resources()[fnId(ALERTS_FUNCTION_NAME)]?.Properties?.Environment as
      | { Variables: Record<string, unknown> }
      | undefined;
    const secretMap = JSON.stringify(env?.Variables.SECRET_ENV_MAP);
    expect(secretMap).toContain('\\"ALERT_CONFIG_JSON\\":{\\"secretId\\":\\"');
    expect(secretMap).toContain(secret);
    const policy = ofType("AWS::IAM::Policy").find(([id]) => id.startsWith("AlertsRole"))?.[1];
    const statements = statementsOf(policy);
    const sqs = statements.filter((s) => JSON.stringify(s.Action).includes("sqs:"));
    expect(sqs).toEqual(queueHealthGrants());
    const reads = statements.filter((s) =>
      JSON.stringify(s.Action).includes("secretsmanager:GetSecretValue"),
    );
    expect(JSON.stringify(reads)).toContain(secret);
  });

  it("claims its notifications in a DynamoDB table shaped as the adapter's, and may only read and write it", () => {
    const table = logicalIdOf(
      "AWS::DynamoDB::Table",
      (r) => r.Properties?.TableName === ALERT_TRANSITIONS_TABLE_NAME,
    );
    const sdk = createTransitionTableInput(ALERT_TRANSITIONS_TABLE_NAME);
    template().hasResourceProperties("AWS::DynamoDB::Table", {
      TableName: ALERT_TRANSITIONS_TABLE_NAME,
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: sdk.KeySchema,
      AttributeDefinitions: Match.arrayEquals(
        (sdk.AttributeDefinitions ?? []).map((d) => Match.objectEquals({ ...d })),
      ),
      GlobalSecondaryIndexes: (sdk.GlobalSecondaryIndexes ?? []).map((i) =>
        Match.objectLike({
          IndexName: i.IndexName,
          KeySchema: i.KeySchema,
          Projection: { ProjectionType: "ALL" },
        }),
      ),
      TimeToLiveSpecification: { AttributeName: TRANSITIONS_TABLE.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    template().hasResource("AWS::DynamoDB::Table", {
      Properties: Match.objectLike({ TableName: ALERT_TRANSITIONS_TABLE_NAME }),
      DeletionPolicy: "Retain",
    });
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: ALERTS_FUNCTION_NAME,
      Environment: { Variables: Match.objectLike({ MONITOR_TRANSITIONS_TABLE: { Ref: table } }) },
    });
    // svcmon-status keeps the silences in the same table: its name, and read / conditional put only.
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: "svcmon-status",
      Environment: { Variables: Match.objectLike({ MONITOR_TRANSITIONS_TABLE: { Ref: table } }) },
    });
    const statusPolicy = ofType("AWS::IAM::Policy").find(([id]) => id.startsWith("StatusRole"))?.[1];
    expect(
      statusPolicy === undefined
        ? []
        : statementsOf(statusPolicy).filter((st) => JSON.stringify(st.Action).includes("dynamodb:")),
    ).toEqual([
      { Action: [...SILENCES_ACTIONS], Effect: "Allow", Resource: { "Fn::GetAtt": [table, "Arn"] } },
    ]);
    const policy = ofType("AWS::IAM::Policy").find(([id]) => id.startsWith("AlertsRole"))?.[1];
    const dynamo = statementsOf(policy).filter((st) => JSON.stringify(st.Action).includes("dynamodb:"));
    const arn = { "Fn::GetAtt": [table, "Arn"] };
    expect(dynamo).toEqual([
      {
        Action: [...ALERT_TRANSITIONS_ACTIONS],
        Effect: "Allow",
        Resource: [arn, { "Fn::Join": ["", [arn, "/index/*"]] }],
      },
    ]);
    // No other function touches the table (svcmon-status only its silences item, checked above).
    for (const [id, p] of ofType("AWS::IAM::Policy"))
      if (!id.startsWith("AlertsRole") && !id.startsWith("StatusRole"))
        expect(JSON.stringify(p)).not.toContain(table);
  });

  it("starts with an empty channel list and no secret value in the template", () => {
    template().hasResourceProperties("AWS::SecretsManager::Secret", {
      Name: ALERT_CHANNELS_SECRET_NAME,
      SecretString: JSON.stringify({ channels: [] }),
    });
  });
});

describe("the CUR bucket", () => {
  it("is encrypted, private and owned by the bucket owner", () => {
    template().hasResourceProperties("AWS::S3::Bucket", {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
    });
    template().hasResource("AWS::S3::Bucket", { DeletionPolicy: "Retain" });
  });

  it("lets only the billing delivery services write, for exports of the billing account, over TLS", () => {
    const policy = ofType("AWS::S3::BucketPolicy")[0]?.[1];
    const statements = statementsOf(policy);
    const deny = statements.find((s) => s.Effect === "Deny");
    expect(deny?.Condition).toEqual({ Bool: { "aws:SecureTransport": "false" } });
    const allows = statements.filter((s) => s.Effect === "Allow");
    expect(allows.map((s) => s.Action)).toEqual([["s3:GetBucketAcl", "s3:GetBucketPolicy"], "s3:PutObject"]);
    for (const s of allows) {
      expect(s.Principal).toEqual({
        Service: ["billingreports.amazonaws.com", "bcm-data-exports.amazonaws.com"],
      });
      const like = (s.Condition as { StringLike: Record<string, unknown> }).StringLike;
      expect(like).toHaveProperty("aws:SourceAccount");
      expect(JSON.stringify(like["aws:SourceArn"])).toContain(":cur:us-east-1:");
      expect(JSON.stringify(like["aws:SourceArn"])).toContain(":bcm-data-exports:us-east-1:");
    }
  });
});

describe("secrets and the status service", () => {
  it("generates the ClickHouse credentials and the monitor token in Secrets Manager", () => {
    template().hasResourceProperties("AWS::SecretsManager::Secret", {
      Name: "svcmon/clickhouse",
      GenerateSecretString: Match.objectLike({ GenerateStringKey: "password" }),
    });
    template().hasResourceProperties("AWS::SecretsManager::Secret", { Name: "svcmon/monitor-token" });
    expect(JSON.stringify(synth.json(MONITOR_STACK))).not.toContain("{{resolve:secretsmanager");
  });

  it("generates the page's session keys and gives them to the status service only, as MONITOR_SESSION_KEYS", () => {
    template().hasResourceProperties("AWS::SecretsManager::Secret", {
      Name: "svcmon/monitor-session-keys",
      GenerateSecretString: Match.objectLike({ PasswordLength: 64, ExcludePunctuation: true }),
    });
    const secretId = logicalIdOf(
      "AWS::SecretsManager::Secret",
      (r) => r.Properties?.Name === "svcmon/monitor-session-keys",
    );
    const envOf = (r: CfnResourceJson) => JSON.stringify(r.Properties?.Environment ?? {});
    const readers = ofType("AWS::Lambda::Function")
      .filter(([, r]) => envOf(r).includes("MONITOR_SESSION_KEYS"))
      .map(([, r]) => r.Properties?.FunctionName);
    expect(readers).toEqual(["svcmon-status"]);
    expect(envOf(resources()[fnId("svcmon-status")] as CfnResourceJson)).toContain(secretId);
  });

  it("serves the status app through a function URL (the app checks the bearer token and the page session)", () => {
    template().hasResourceProperties("AWS::Lambda::Url", {
      AuthType: "NONE",
      TargetFunctionArn: { "Fn::GetAtt": [fnId("svcmon-status"), "Arn"] },
    });
  });

  it("reads the event queue through its redrive policy and the CUR ingest's failure queue directly", () => {
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: "svcmon-status",
      Environment: {
        Variables: Match.objectLike({
          MONITOR_SQS_QUEUE_URLS: { Ref: queueId(EVENT_QUEUE_NAME) },
          MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: { Ref: queueId(CUR_INGEST_DLQ_NAME) },
        }),
      },
    });
  });

  it("lets the status service read queue health of those three queues and nothing else of SQS", () => {
    const policy = ofType("AWS::IAM::Policy").find(([id]) => id.startsWith("StatusRole"))?.[1];
    const statements = statementsOf(policy);
    const sqs = statements.filter((s) => JSON.stringify(s.Action).includes("sqs:"));
    expect(sqs).toEqual(queueHealthGrants());
  });
});

describe("the collector role of a monitored account", () => {
  const role = () =>
    Object.values(synth.json(COLLECTOR_ROLE_STACK).Resources).find((r) => r.Type === "AWS::IAM::Role");

  it("trusts only the monitoring account's collector execution roles, with the external id", () => {
    const props = role()?.Properties ?? {};
    expect(props.RoleName).toBe(COLLECTOR_ROLE_NAME);
    const [statement] = (props.AssumeRolePolicyDocument as { Statement: Record<string, unknown>[] })
      .Statement;
    expect(statement?.Condition).toEqual({
      StringEquals: { "sts:ExternalId": { Ref: "CollectorExternalId" } },
      ArnLike: {
        "aws:PrincipalArn": {
          "Fn::Join": [
            "",
            [
              "arn:",
              { Ref: "AWS::Partition" },
              ":iam::",
              { Ref: "MonitorAccountId" },
              ":role/svcmon-collector-*",
            ],
          ],
        },
      },
    });
  });

  it("deploys into accounts that were never bootstrapped (a StackSet): only its own two parameters", () => {
    expect(Object.keys(synth.json(COLLECTOR_ROLE_STACK).Parameters ?? {})).toEqual([
      "MonitorAccountId",
      "CollectorExternalId",
    ]);
    const artifact = synth.app.synth().getStackArtifact(COLLECTOR_ROLE_STACK);
    expect(artifact.assumeRoleArn).toBeUndefined();
    expect(artifact.stackTemplateAssetObjectUrl).toBeUndefined();
  });

  it("may only describe what the collectors read", () => {
    synth.template(COLLECTOR_ROLE_STACK).hasResourceProperties("AWS::IAM::Policy", {
      PolicyDocument: { Statement: [{ Action: COLLECTOR_READ_ACTIONS, Effect: "Allow", Resource: "*" }] },
    });
  });
});
