/**
 * The monitoring service of the cost-analytics platform on AWS: one collector function
 * per collector on an EventBridge schedule, the collectors' event queue with its dead-letter queue
 * and the ingest consumer, the alert engine on a one-minute schedule, the cost-and-usage report (CUR)
 * bucket and the ingest of its deliveries (svcmon-cur-ingest, on the manifests' "Object Created"
 * events), the ClickHouse credentials, monitor token and alert channels in Secrets Manager, and the
 * status service behind a function URL. ClickHouse itself
 * runs elsewhere (reached over HTTPS at ClickHouseUrl). Every resource is tagged
 * `svc:purpose=svc-infrastructure` (tagging.ts, tags.test.ts).
 */
import { type CollectorSpec, DEFAULT_COLLECTORS, type HierarchyRules } from "@monitor/core";
import {
  Aws,
  CfnCondition,
  CfnOutput,
  CfnParameter,
  Duration,
  Fn,
  RemovalPolicy,
  SecretValue,
  Stack,
  type StackProps,
} from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as destinations from "aws-cdk-lib/aws-lambda-destinations";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import * as logs from "aws-cdk-lib/aws-logs";
import * as s3 from "aws-cdk-lib/aws-s3";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import * as sqs from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { ServiceFunction } from "./service-function.ts";
import { tagMonitoringService } from "./tagging.ts";

/** Role the collectors assume in every monitored account (collector-role-stack.ts). */
export const COLLECTOR_ROLE_NAME = "svcmon-collector";
/** Execution roles of the collector functions: the monitored accounts' trust policy names this prefix. */
export const COLLECTOR_EXECUTION_ROLE_PREFIX = "svcmon-collector-";

export const EVENT_QUEUE_NAME = "svcmon-events";
export const EVENT_DLQ_NAME = "svcmon-events-dlq";
/** Receives of one message before SQS moves it to the dead-letter queue. */
export const MAX_RECEIVE_COUNT = 5;
export const INGEST_TIMEOUT_SECONDS = 60;
export const ALERTS_FUNCTION_NAME = "svcmon-alerts";
/**
 * The alert engine's status changes and claimed notifications, and its state under optimistic
 * concurrency (docs/monitor-alerts.md "Transitions"; `DynamoDbTransitionStore` of @monitor/aws).
 */
export const ALERT_TRANSITIONS_TABLE_NAME = "svcmon-alert-transitions";
/** What svcmon-alerts may do with that table: conditional reads and writes, and the index's queries. */
export const ALERT_TRANSITIONS_ACTIONS = [
  "dynamodb:GetItem",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
  "dynamodb:Query",
] as const;
/** What svcmon-status does on the transitions table: the silences item (read, conditional put) and the ended /system sessions (an item each). */
export const SILENCES_ACTIONS = ["dynamodb:GetItem", "dynamodb:PutItem"] as const;
/** Every minute; a tick ends before the next one starts. */
export const ALERTS_INTERVAL_MINUTES = 1;
export const ALERTS_TIMEOUT_SECONDS = 50;
/** The alert channels config (`{"channels": [...]}`, docs/notifications.md), read by svcmon-alerts. */
export const ALERT_CHANNELS_SECRET_NAME = "svcmon/alert-channels";
/** Ingests a cost report delivery when its manifest is written (docs/monitor-cost.md). */
export const CUR_INGEST_FUNCTION_NAME = "svcmon-cur-ingest";
/** Deliveries whose ingest failed after Lambda's retries (and events EventBridge could not deliver). */
export const CUR_INGEST_DLQ_NAME = "svcmon-cur-ingest-dlq";
/** Lambda's ceiling: ClickHouse reads a month's report, checks it and swaps it in within one invocation. */
export const CUR_INGEST_TIMEOUT_SECONDS = 900;
/** Bound of each ClickHouse statement of an ingest (the report read is the long one), within the timeout. */
export const CUR_INGEST_STATEMENT_TIMEOUT_MS = 600_000;
/** Every delivery manifest, legacy CUR and CUR 2.0, ends so (AWS Data Exports user guide). */
export const CUR_MANIFEST_SUFFIX = "-Manifest.json";
/** Lambda allows 4 KB of environment variables per function; the rules must leave room for the rest. */
export const MAX_HIERARCHY_RULES_JSON_BYTES = 2048;

const MINUTE_S = 60;
/** Lambda's ceiling for one invocation. */
const MAX_LAMBDA_S = 15 * MINUTE_S;
/**
 * The stack runs its own collectors on EventBridge rate rules, so they are interval collectors; a cron
 * schedule belongs to jobs that report their runs themselves (`svcmon run` under the host's cron).
 */
export function deployedInterval(spec: CollectorSpec): number {
  if (spec.expected_interval_minutes === null)
    throw new Error(`${spec.name}: the stack deploys interval collectors; this one has a cron schedule`);
  return spec.expected_interval_minutes;
}

/** Left after a run's timeout to write its records (3 attempts with backoff, each bounded). */
const RECORD_MARGIN_S = 60;

/**
 * A collector's function timeout: below its interval (the next tick must not find it running) and
 * within Lambda's 15 minutes; the run timeout leaves time to write the records.
 */
export function collectorTimeouts(spec: CollectorSpec): { functionS: number; runMs: number } {
  const interval = deployedInterval(spec);
  const functionS = Math.min(MAX_LAMBDA_S, interval * MINUTE_S - MINUTE_S);
  if (functionS <= RECORD_MARGIN_S) {
    throw new Error(`${spec.name}: an interval of ${interval} min is too short for a Lambda tick`);
  }
  return { functionS, runMs: (functionS - RECORD_MARGIN_S) * 1000 };
}

export interface MonitorStackProps extends StackProps {
  /** Collectors and their schedules. Default: the registry defaults of @monitor/core. */
  collectors?: readonly CollectorSpec[];
  /**
   * IAM roles that read the cost reports from the bucket: the identity the ClickHouse server uses for
   * `s3()` (packages/monitor/cost, "environment" credentials). None by default.
   */
  curReaderArns?: readonly string[];
  /**
   * Resource hierarchy rules of hierarchy_builder and svcmon-cur-ingest (HIERARCHY_RULES_JSON), already
   * validated (build-app.ts reads them from a file). Default: the built-in rules.
   */
  hierarchyRules?: HierarchyRules;
}

export class MonitorStack extends Stack {
  readonly eventQueue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly curBucket: s3.Bucket;
  readonly status: ServiceFunction;
  readonly ingest: ServiceFunction;
  readonly alerts: ServiceFunction;
  readonly alertTransitions: dynamodb.Table;
  readonly curIngest: ServiceFunction;
  readonly curIngestDeadLetterQueue: sqs.Queue;
  readonly collectors: Map<string, ServiceFunction> = new Map();

  constructor(scope: Construct, id: string, props: MonitorStackProps = {}) {
    super(scope, id, props);
    tagMonitoringService(this);

    const clickHouseUrl = new CfnParameter(this, "ClickHouseUrl", {
      type: "String",
      description:
        "HTTPS endpoint of the analytics database (ClickHouse HTTP interface), e.g. https://ch.example:8443",
      allowedPattern: "^https://[^\\s/]+(:\\d+)?/?$",
      constraintDescription: "an https:// URL of the ClickHouse HTTP interface",
    });
    const regions = new CfnParameter(this, "MonitoredRegions", {
      type: "String",
      description:
        "Regions every collector scans in each active account, comma-separated (e.g. us-east-1,eu-west-1)",
      allowedPattern: "^[a-z]{2}(-gov)?-[a-z]+-\\d(,[a-z]{2}(-gov)?-[a-z]+-\\d)*$",
      constraintDescription: "AWS regions separated by commas, no spaces",
    });
    const externalId = new CfnParameter(this, "CollectorExternalId", {
      type: "String",
      description: `External id the collectors present when assuming ${COLLECTOR_ROLE_NAME} in a monitored account`,
      allowedPattern: "^[\\w+=,.@:/-]{2,1224}$",
    });
    const alertWebhookUrl = new CfnParameter(this, "AlertWebhookUrl", {
      type: "String",
      default: "",
      description:
        `Optional webhook receiving alerts as JSON (ALERT_WEBHOOK_URL), besides the channels of ${ALERT_CHANNELS_SECRET_NAME}; ` +
        "a URL that is itself a secret (Slack) belongs in that secret instead",
      allowedPattern: "^(https?://\\S+)?$",
      constraintDescription: "empty, or an http(s) URL",
    });
    const heartbeatUrl = new CfnParameter(this, "HeartbeatUrl", {
      type: "String",
      default: "",
      description:
        "Optional dead-man's switch (MONITOR_HEARTBEAT_URL, healthchecks-compatible): pinged at the start and end of every alert round, /fail with the reason when one fails, so an outside check notices a monitor that stopped",
      allowedPattern: "^(https?://\\S{1,2040})?$",
      constraintDescription: "empty, or an http(s) URL of at most 2,048 characters",
    });
    const billingAccount = new CfnParameter(this, "BillingAccountId", {
      type: "String",
      default: "",
      description:
        "Account that defines the CUR / Data Exports export writing to the bucket; empty: this account",
      allowedPattern: "^(\\d{12})?$",
    });

    const curNamedCollection = new CfnParameter(this, "CurS3NamedCollection", {
      type: "String",
      default: "",
      description:
        "ClickHouse named collection holding S3 keys for reading the CUR bucket; empty: the server's own credentials (an IAM role)",
      allowedPattern: "^([A-Za-z_][A-Za-z0-9_]*)?$",
      constraintDescription: "empty, or a ClickHouse identifier",
    });
    const rulesEnv = hierarchyRulesEnv(props.hierarchyRules);

    // Secrets: generated at the first deploy; the ClickHouse user is then created with this password
    // (or the secret is given the existing user's credentials), see docs/deploy.md.
    const clickHouseSecret = new secretsmanager.Secret(this, "ClickHouseCredentials", {
      secretName: "svcmon/clickhouse",
      description: 'ClickHouse credentials of the monitoring service: {"username", "password"}',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ username: "svcmon" }),
        generateStringKey: "password",
        passwordLength: 40,
        excludePunctuation: true,
      },
    });
    const monitorToken = new secretsmanager.Secret(this, "MonitorToken", {
      secretName: "svcmon/monitor-token",
      description: "Bearer token of the monitor's /api/system/* routes and the /system page login",
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    // Keys of the /system page's signed session cookies (MONITOR_SESSION_KEYS: comma-separated, the
    // first signs, all verify). Generated without punctuation, so one generated key has no comma.
    const sessionKeys = new secretsmanager.Secret(this, "MonitorSessionKeys", {
      secretName: "svcmon/monitor-session-keys",
      description:
        "Keys of the /system page's session cookies, comma-separated: the first signs, all verify (rotate by prepending)",
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    // Not generated: an empty channel list until the operators put theirs (docs/deploy.md); the
    // initial value holds no secret.
    const alertChannels = new secretsmanager.Secret(this, "AlertChannels", {
      secretName: ALERT_CHANNELS_SECRET_NAME,
      description:
        'Alert channels of the monitoring service: {"channels": [...]} (webhook, Slack, SMTP, Alertmanager)',
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ channels: [] })),
    });
    const clickHouseEnv = {
      CLICKHOUSE_USERNAME: { secret: clickHouseSecret, jsonKey: "username" },
      CLICKHOUSE_PASSWORD: { secret: clickHouseSecret, jsonKey: "password" },
    };

    this.deadLetterQueue = new sqs.Queue(this, "EventDeadLetterQueue", {
      queueName: EVENT_DLQ_NAME,
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.eventQueue = new sqs.Queue(this, "EventQueue", {
      queueName: EVENT_QUEUE_NAME,
      retentionPeriod: Duration.days(4),
      // AWS's advice for Lambda consumers: at least six times the function timeout.
      visibilityTimeout: Duration.seconds(6 * INGEST_TIMEOUT_SECONDS),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });

    this.ingest = new ServiceFunction(this, "Ingest", {
      functionName: "svcmon-ingest",
      description: "Consumer of the collectors' event queue (svcmon-events)",
      bundle: "monitor-ingest",
      memorySize: 256,
      timeout: Duration.seconds(INGEST_TIMEOUT_SECONDS),
      environment: { CLICKHOUSE_URL: clickHouseUrl.valueAsString },
      secretEnvironment: clickHouseEnv,
      logRetention: logs.RetentionDays.ONE_MONTH,
    });
    this.ingest.function.addEventSource(
      new SqsEventSource(this.eventQueue, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(5),
        reportBatchItemFailures: true,
        // Bounds the load on ClickHouse (2 is the lowest SQS allows).
        maxConcurrency: 2,
      }),
    );

    this.status = new ServiceFunction(this, "Status", {
      functionName: "svcmon-status",
      description: "Status service: /api/system/*, /system page",
      bundle: "monitor-status",
      memorySize: 512,
      timeout: Duration.seconds(30),
      environment: {
        CLICKHOUSE_URL: clickHouseUrl.valueAsString,
        // Queue health of the status page (the dead-letter queue is found through the redrive policy).
        MONITOR_SQS_QUEUE_URLS: this.eventQueue.queueUrl,
      },
      secretEnvironment: {
        ...clickHouseEnv,
        MONITOR_TOKEN: { secret: monitorToken },
        MONITOR_SESSION_KEYS: { secret: sessionKeys },
      },
      logRetention: logs.RetentionDays.ONE_MONTH,
    });
    this.grantQueueHealth(this.status);
    // The app authenticates every /api/system/* route and the page itself (bearer token, session
    // cookie), which a browser cannot do with SigV4: the URL is public, the app is not.
    const statusUrl = this.status.function.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });

    // Keys and index as `createTransitionTableInput` (@monitor/aws); rows expire by their TTL.
    this.alertTransitions = new dynamodb.Table(this, "AlertTransitions", {
      tableName: ALERT_TRANSITIONS_TABLE_NAME,
      partitionKey: { name: "id", type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: "expires_at",
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.alertTransitions.addGlobalSecondaryIndex({
      indexName: "by-kind",
      partitionKey: { name: "kind", type: dynamodb.AttributeType.STRING },
      sortKey: { name: "at_id", type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });
    // Sparse: only notifications not yet sent nor retired carry `unsent`.
    this.alertTransitions.addGlobalSecondaryIndex({
      indexName: "unsent",
      partitionKey: { name: "unsent", type: dynamodb.AttributeType.STRING },
      sortKey: { name: "at_id", type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    this.alerts = new ServiceFunction(this, "Alerts", {
      functionName: ALERTS_FUNCTION_NAME,
      description: `Alert engine: one evaluation and delivery round every ${ALERTS_INTERVAL_MINUTES} min`,
      bundle: "monitor-alerts",
      memorySize: 256,
      timeout: Duration.seconds(ALERTS_TIMEOUT_SECONDS),
      environment: {
        CLICKHOUSE_URL: clickHouseUrl.valueAsString,
        // The dead-letter alert reads the queues as the status page does.
        MONITOR_SQS_QUEUE_URLS: this.eventQueue.queueUrl,
        ALERT_WEBHOOK_URL: alertWebhookUrl.valueAsString,
        // Notifications link to <this>/system#<subject> unless MONITOR_PUBLIC_URL (a custom domain) is set.
        MONITOR_STATUS_URL: statusUrl.url,
        // Status changes as rows, each notification claimed (ConditionExpression) before it is sent.
        MONITOR_TRANSITIONS_TABLE: this.alertTransitions.tableName,
        // Empty: no heartbeat. The alert engine watched from outside (docs/monitor-alerts.md).
        MONITOR_HEARTBEAT_URL: heartbeatUrl.valueAsString,
      },
      secretEnvironment: { ...clickHouseEnv, ALERT_CONFIG_JSON: { secret: alertChannels } },
      logRetention: logs.RetentionDays.ONE_MONTH,
      // One tick at a time; a tick that finds the previous one running is dropped, and the next
      // minute's tick comes anyway. Overlaps are safe regardless (a redeploy, a retry): the state is
      // saved against its version and each notification is claimed before it is sent.
      reservedConcurrentExecutions: 1,
      retryAttempts: 0,
      maxEventAge: Duration.minutes(1),
    });
    this.grantQueueHealth(this.alerts);
    this.alerts.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...ALERT_TRANSITIONS_ACTIONS],
        resources: [this.alertTransitions.tableArn, `${this.alertTransitions.tableArn}/index/*`],
      }),
    );
    // Silences are one item of the same table: svcmon-status creates, lists and expires
    // them (GetItem, conditional PutItem), the alert engine reads them.
    this.status.function.addEnvironment("MONITOR_TRANSITIONS_TABLE", this.alertTransitions.tableName);
    this.status.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...SILENCES_ACTIONS],
        resources: [this.alertTransitions.tableArn],
      }),
    );
    new events.Rule(this, "AlertsSchedule", {
      ruleName: ALERTS_FUNCTION_NAME,
      description: `Runs the alert engine every ${ALERTS_INTERVAL_MINUTES} min`,
      schedule: events.Schedule.rate(Duration.minutes(ALERTS_INTERVAL_MINUTES)),
      targets: [
        new targets.LambdaFunction(this.alerts.function, {
          retryAttempts: 0,
          maxEventAge: Duration.minutes(1),
        }),
      ],
    });

    for (const spec of props.collectors ?? DEFAULT_COLLECTORS)
      this.addCollector(spec, {
        clickHouseUrl: clickHouseUrl.valueAsString,
        regions: regions.valueAsString,
        externalId: externalId.valueAsString,
        clickHouseEnv,
        rulesEnv,
      });

    this.curBucket = this.createCurBucket(billingAccount);
    this.curIngestDeadLetterQueue = new sqs.Queue(this, "CurIngestDeadLetterQueue", {
      queueName: CUR_INGEST_DLQ_NAME,
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    // A failed cost ingestion is a dead letter: /system and the dead-letter alert read this queue itself
    // (it is a Lambda on-failure destination, so no RedrivePolicy leads to it).
    this.watchFailureQueue(this.curIngestDeadLetterQueue, [this.status, this.alerts]);
    this.curIngest = this.addCurIngest({
      clickHouseUrl: clickHouseUrl.valueAsString,
      clickHouseEnv,
      namedCollection: curNamedCollection.valueAsString,
      rulesEnv,
    });
    const readers = (props.curReaderArns ?? []).map((arn) => new iam.ArnPrincipal(arn));
    if (readers.length > 0) {
      // What ClickHouse's s3() needs: list the report prefix (globs) and read the files.
      this.curBucket.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: "CurReadersList",
          principals: readers,
          actions: ["s3:ListBucket"],
          resources: [this.curBucket.bucketArn],
        }),
      );
      this.curBucket.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: "CurReadersGet",
          principals: readers,
          actions: ["s3:GetObject"],
          resources: [this.curBucket.arnForObjects("*")],
        }),
      );
    }

    new CfnOutput(this, "StatusUrl", {
      value: statusUrl.url,
      description: "Open <url>system and log in with the monitor token",
    });
    new CfnOutput(this, "EventQueueUrl", { value: this.eventQueue.queueUrl });
    new CfnOutput(this, "EventDeadLetterQueueUrl", { value: this.deadLetterQueue.queueUrl });
    new CfnOutput(this, "CurBucketName", { value: this.curBucket.bucketName });
    new CfnOutput(this, "CurIngestDeadLetterQueueUrl", { value: this.curIngestDeadLetterQueue.queueUrl });
    new CfnOutput(this, "ClickHouseSecretArn", { value: clickHouseSecret.secretArn });
    new CfnOutput(this, "MonitorTokenSecretArn", { value: monitorToken.secretArn });
    new CfnOutput(this, "MonitorSessionKeysSecretArn", { value: sessionKeys.secretArn });
    new CfnOutput(this, "AlertChannelsSecretArn", { value: alertChannels.secretArn });
  }

  /**
   * Queue health (status body, dead-letter alert): the attributes of the event queue and of its
   * dead-letter queue, whose URL is looked up from the ARN in the redrive policy.
   */
  private grantQueueHealth(fn: ServiceFunction): void {
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ["sqs:GetQueueAttributes", "sqs:GetQueueUrl"],
        resources: [this.eventQueue.queueArn, this.deadLetterQueue.queueArn],
      }),
    );
  }

  /**
   * Queue health of a failure queue watched directly (MONITOR_SQS_DEAD_LETTER_QUEUE_URLS): the function
   * is given its URL, so reading its attributes is all it needs.
   */
  private watchFailureQueue(queue: sqs.Queue, fns: readonly ServiceFunction[]): void {
    for (const fn of fns) {
      fn.function.addEnvironment("MONITOR_SQS_DEAD_LETTER_QUEUE_URLS", queue.queueUrl);
      fn.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ["sqs:GetQueueAttributes"], resources: [queue.queueArn] }),
      );
    }
  }

  private addCollector(
    spec: CollectorSpec,
    shared: {
      clickHouseUrl: string;
      regions: string;
      externalId: string;
      clickHouseEnv: Record<string, { secret: secretsmanager.ISecret; jsonKey: string }>;
      rulesEnv: Record<string, string>;
    },
  ): void {
    const { functionS, runMs } = collectorTimeouts(spec);
    const id = spec.name.replace(/(^|_)([a-z])/g, (_, _sep: string, c: string) => c.toUpperCase());
    const fn = new ServiceFunction(this, `Collector${id}`, {
      functionName: `svcmon-collector-${spec.name}`,
      description: `Collector ${spec.name}, every ${spec.expected_interval_minutes} min`,
      bundle: "monitor-collector",
      roleName: `${COLLECTOR_EXECUTION_ROLE_PREFIX}${spec.name}`,
      memorySize: 512,
      timeout: Duration.seconds(functionS),
      environment: {
        COLLECTOR: spec.name,
        COLLECTOR_REGIONS: shared.regions,
        RUN_TIMEOUT_MS: String(runMs),
        COLLECTOR_ROLE_NAME: COLLECTOR_ROLE_NAME,
        COLLECTOR_EXTERNAL_ID: shared.externalId,
        EVENT_QUEUE_URL: this.eventQueue.queueUrl,
        CLICKHOUSE_URL: shared.clickHouseUrl,
        // Every collector function is the same build; hierarchy_builder's is the one that places resources.
        ...shared.rulesEnv,
      },
      secretEnvironment: shared.clickHouseEnv,
      logRetention: logs.RetentionDays.ONE_MONTH,
      // One tick at a time: a tick that finds the previous one still running is dropped after a
      // minute (the runtime's "run skipped"), and a failed tick is not retried (the next one comes).
      reservedConcurrentExecutions: 1,
      retryAttempts: 0,
      maxEventAge: Duration.minutes(1),
    });
    // Monitored accounts are listed at run time (svc.cloud_accounts): the account is a wildcard, the
    // role name is not, and each account's trust policy also demands the external id.
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ["sts:AssumeRole"],
        resources: [`arn:${Aws.PARTITION}:iam::*:role/${COLLECTOR_ROLE_NAME}`],
      }),
    );
    this.eventQueue.grantSendMessages(fn.role);
    new events.Rule(this, `Schedule${id}`, {
      ruleName: `svcmon-collector-${spec.name}`,
      description: `Runs ${spec.name} every ${deployedInterval(spec)} min`,
      schedule: events.Schedule.rate(Duration.minutes(deployedInterval(spec))),
      targets: [
        new targets.LambdaFunction(fn.function, { retryAttempts: 2, maxEventAge: Duration.minutes(5) }),
      ],
    });
    this.collectors.set(spec.name, fn);
  }

  /**
   * svcmon-cur-ingest: invoked (asynchronously) by an EventBridge rule on the CUR bucket's "Object
   * Created" events whose key ends in -Manifest.json, i.e. when a delivery is complete. One ingest at
   * a time (reserved concurrency 1: two deliveries never swap partitions concurrently; the others wait
   * in Lambda's event queue). A failed ingest is retried twice, then the event goes to the dead-letter
   * queue with the error, as does an event EventBridge could not deliver.
   */
  private addCurIngest(shared: {
    clickHouseUrl: string;
    clickHouseEnv: Record<string, { secret: secretsmanager.ISecret; jsonKey: string }>;
    namedCollection: string;
    rulesEnv: Record<string, string>;
  }): ServiceFunction {
    const dlq = this.curIngestDeadLetterQueue;
    const fn = new ServiceFunction(this, "CurIngest", {
      functionName: CUR_INGEST_FUNCTION_NAME,
      description: "Ingests a cost report delivery into ClickHouse when its manifest is written",
      bundle: "monitor-cur-ingest",
      memorySize: 256,
      timeout: Duration.seconds(CUR_INGEST_TIMEOUT_SECONDS),
      environment: {
        CLICKHOUSE_URL: shared.clickHouseUrl,
        CUR_BUCKET: this.curBucket.bucketName,
        CUR_S3_NAMED_COLLECTION: shared.namedCollection,
        CUR_INGEST_TIMEOUT_MS: String(CUR_INGEST_STATEMENT_TIMEOUT_MS),
        ...shared.rulesEnv,
      },
      secretEnvironment: shared.clickHouseEnv,
      logRetention: logs.RetentionDays.THREE_MONTHS,
      reservedConcurrentExecutions: 1,
    });
    // Throttled events (an ingest is running) wait in Lambda's queue up to maxEventAge; retries are
    // for failures (ClickHouse away, a data file not there yet).
    fn.function.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new destinations.SqsDestination(dlq),
    });
    // The function reads manifests only; ClickHouse reads the data files with its own identity.
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ["s3:GetObject"],
        resources: [this.curBucket.arnForObjects(`*${CUR_MANIFEST_SUFFIX}`)],
      }),
    );
    new events.Rule(this, "CurDelivered", {
      ruleName: CUR_INGEST_FUNCTION_NAME,
      description: "A cost report delivery is complete: its manifest was written to the CUR bucket",
      eventPattern: {
        source: ["aws.s3"],
        detailType: ["Object Created"],
        detail: {
          bucket: { name: [this.curBucket.bucketName] },
          object: { key: events.Match.suffix(CUR_MANIFEST_SUFFIX) },
        },
      },
      targets: [
        new targets.LambdaFunction(fn.function, {
          deadLetterQueue: dlq,
          retryAttempts: 24,
          maxEventAge: Duration.hours(24),
        }),
      ],
    });
    return fn;
  }

  private createCurBucket(billingAccount: CfnParameter): s3.Bucket {
    const bucket = new s3.Bucket(this, "CurBucket", {
      bucketName: `svcmon-cur-${Aws.ACCOUNT_ID}-${Aws.REGION}`,
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: false,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Object events to EventBridge (the ingest trigger). Set on the L1 bucket: the L2 option
    // (eventBridgeEnabled) goes through a custom resource whose provider function would log to an
    // untagged log group, while CloudFormation sets this natively.
    (bucket.node.defaultChild as s3.CfnBucket).notificationConfiguration = {
      eventBridgeConfiguration: { eventBridgeEnabled: true },
    };
    const ownAccount = new CfnCondition(this, "BillingAccountIsThisAccount", {
      expression: Fn.conditionEquals(billingAccount.valueAsString, ""),
    });
    const source = Fn.conditionIf(
      ownAccount.logicalId,
      Aws.ACCOUNT_ID,
      billingAccount.valueAsString,
    ).toString();
    // AWS documentation of both delivery services: the bucket policy they check before writing, limited
    // to exports defined in the billing account (confused-deputy conditions).
    const delivery = [
      new iam.ServicePrincipal("billingreports.amazonaws.com"),
      new iam.ServicePrincipal("bcm-data-exports.amazonaws.com"),
    ];
    const conditions = {
      StringLike: {
        "aws:SourceAccount": source,
        "aws:SourceArn": [
          `arn:${Aws.PARTITION}:cur:us-east-1:${source}:definition/*`,
          `arn:${Aws.PARTITION}:bcm-data-exports:us-east-1:${source}:export/*`,
        ],
      },
    };
    bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: "CurDeliveryReadBucket",
        principals: delivery,
        actions: ["s3:GetBucketAcl", "s3:GetBucketPolicy"],
        resources: [bucket.bucketArn],
        conditions,
      }),
    );
    bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: "CurDeliveryWriteReports",
        principals: delivery,
        actions: ["s3:PutObject"],
        resources: [bucket.arnForObjects("*")],
        conditions,
      }),
    );
    return bucket;
  }
}

/** HIERARCHY_RULES_JSON for the functions that place resources or cost lines; none means the built-in rules. */
function hierarchyRulesEnv(rules: HierarchyRules | undefined): Record<string, string> {
  if (rules === undefined) return {};
  const json = JSON.stringify(rules);
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes > MAX_HIERARCHY_RULES_JSON_BYTES) {
    throw new Error(
      `hierarchy rules are ${bytes} bytes as JSON; at most ${MAX_HIERARCHY_RULES_JSON_BYTES} fit in a function's environment`,
    );
  }
  return { HIERARCHY_RULES_JSON: json };
}
