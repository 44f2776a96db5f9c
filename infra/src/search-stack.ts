/**
 * One environment of the search relevance system on AWS (docs/settings.md): the
 * settings table with its stream, `{env}-ecom_settings_exporter` on that stream (copying settings to
 * Workers KV and index settings to Meilisearch), `{env}-AdminInternalApi` behind an IAM-authorized
 * HTTP API, `{env}-CustomerApi` (the shops' customer and search API) behind a public HTTP API with
 * throttling and access logs, and the secrets they read.
 * The Worker and its KV namespace are deployed with wrangler (apps/edge-worker/wrangler.toml).
 */

import { DEFAULT_RETENTION_DAYS, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from "@relevance/outcomes";
import {
  CfnOutput,
  CfnParameter,
  Duration,
  RemovalPolicy,
  SecretValue,
  Stack,
  type StackProps,
  Tags,
} from "aws-cdk-lib";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import { HttpIamAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import * as logs from "aws-cdk-lib/aws-logs";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import * as sqs from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import type { SearchEnvironment } from "./environments.ts";
import { ServiceFunction } from "./service-function.ts";

export interface SearchStackProps extends StackProps {
  environment: SearchEnvironment;
}

/** The admin function's table actions (DynamoSettingsTable: Get/Put/Update/Delete/Query, conditional writes). */
export const ADMIN_TABLE_ACTIONS = [
  "dynamodb:GetItem",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
  "dynamodb:DeleteItem",
  "dynamodb:Query",
];

/** The exporter's stream reading, as the event source mapping needs it (the stream carries full images). */
export const STREAM_READ_ACTIONS = [
  "dynamodb:DescribeStream",
  "dynamodb:GetRecords",
  "dynamodb:GetShardIterator",
];

/** The exporter's event source mapping (apps/exporter-lambda/README.md, "Event source mapping"). */
export const EXPORTER_MAPPING = {
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  retryAttempts: 10,
  maxRecordAgeSeconds: 86_400,
  parallelizationFactor: 1,
} as const;

/**
 * The public customer API's stage throttling (requests per second, steady and burst), shared by all
 * shops of the environment; each key's failed authentications are throttled by the app itself.
 */
export const CUSTOMER_API_THROTTLE = { rateLimit: 200, burstLimit: 400 } as const;

/** The customer function's table actions: the same as the admin function's (conditional writes, reads, queries). */
export const CUSTOMER_TABLE_ACTIONS = ADMIN_TABLE_ACTIONS;

const CLOUDFLARE_ID_PATTERN = "^[0-9a-f]{32}$";

export class SearchStack extends Stack {
  readonly table: dynamodb.Table;
  readonly exporter: ServiceFunction;
  readonly admin: ServiceFunction;
  /** `{env}-RelevanceDriftCheck`: the hourly drift check (docs/quality.md, "Drift alerts"). */
  readonly driftCheck: ServiceFunction;
  readonly parked: sqs.Queue;
  readonly api: apigwv2.HttpApi;
  readonly customer: ServiceFunction;
  readonly customerApi: apigwv2.HttpApi;

  constructor(scope: Construct, id: string, props: SearchStackProps) {
    super(scope, id, props);
    const env = props.environment;
    const name = env.name;
    Tags.of(this).add("service", "ecom-search");
    Tags.of(this).add("environment", name);

    // Deployment values: taken from relevance.environments.json when filled in there, else asked for
    // at deploy time (`--parameters`), so a template never carries an invented id.
    const storeAccount = new CfnParameter(this, "CloudflareAccountId", {
      type: "String",
      description: `Cloudflare account that holds the ${name} KV namespace${name === "prod" ? " (prod has its own account)" : ""}`,
      allowedPattern: CLOUDFLARE_ID_PATTERN,
      constraintDescription: "a Cloudflare account id: 32 hex digits",
      ...(env.storeAccountId === "" ? {} : { default: env.storeAccountId }),
    });
    const namespace = new CfnParameter(this, "KvNamespaceId", {
      type: "String",
      description: `Workers KV namespace of ${name} (npx wrangler kv namespace create KV --env ${name})`,
      allowedPattern: CLOUDFLARE_ID_PATTERN,
      constraintDescription: "a Workers KV namespace id: 32 hex digits",
      ...(env.kvNamespaceId === "" ? {} : { default: env.kvNamespaceId }),
    });

    this.table = new dynamodb.Table(this, "SettingsTable", {
      tableName: env.settingsTable,
      partitionKey: { name: "pk", type: dynamodb.AttributeType.STRING },
      sortKey: { name: "sk", type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      // ecom_settings_exporter needs both images: the new one to copy, the old one to delete.
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // The search engine the settings stream also feeds (docs/search.md, "Index management"): empty
    // leaves the exporter copying to KV only.
    const meilisearchUrl = new CfnParameter(this, "MeilisearchUrl", {
      type: "String",
      description: `Meilisearch of ${name} (https://...); the exporter applies each index's settings to it. Empty: KV only.`,
      allowedPattern: "^(https://[^\\s]+)?$",
      constraintDescription: "an https URL, or empty",
      default: "",
    });
    const meilisearchKey = new secretsmanager.Secret(this, "MeilisearchAdminKey", {
      secretName: `${name}/ecom-search/meilisearch-admin-key`,
      description: `Meilisearch key of ${name} with the indexes and settings actions (ecom_settings_exporter). Put the real key after the first deploy, before setting MeilisearchUrl.`,
    });
    const meilisearchCustomerKey = new secretsmanager.Secret(this, "MeilisearchCustomerApiKey", {
      secretName: `${name}/ecom-search/meilisearch-customer-api-key`,
      description: `Meilisearch key of ${name} for ${name}-CustomerApi: actions search, documents.*, indexes.*, settings.*, tasks.get, stats.get on all indexes. Put the real key after the first deploy.`,
    });
    const kvWriteToken = new secretsmanager.Secret(this, "CloudflareKvWriteToken", {
      secretName: `${name}/ecom-search/cloudflare-kv-write-token`,
      description: `Cloudflare API token of ${name}, Workers KV Storage: Edit on the store account (ecom_settings_exporter). Put the real token after the first deploy.`,
    });
    const kvReadToken = new secretsmanager.Secret(this, "CloudflareKvReadToken", {
      secretName: `${name}/ecom-search/cloudflare-kv-read-token`,
      description: `Cloudflare API token of ${name}, Workers KV Storage: Read on the store account (AdminInternalApi). Put the real token after the first deploy.`,
    });
    const adminToken = new secretsmanager.Secret(this, "AdminToken", {
      secretName: `${name}/ecom-search/admin-token`,
      description: `Bearer token of ${name}-AdminInternalApi (generated; rotate by putting a new value)`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });

    // The ClickHouse server of served searches and outcome events (docs/outcomes.md): the admin
    // API's quality report and training export read it. Empty: those routes answer 503.
    const clickhouseUrl = new CfnParameter(this, "ClickHouseUrl", {
      type: "String",
      description: `ClickHouse HTTP endpoint of ${name}'s outcomes (https://...); empty: no outcome store.`,
      allowedPattern: "^(https://[^\\s]+)?$",
      constraintDescription: "an https URL, or empty",
      default: "",
    });
    const clickhouseUser = new CfnParameter(this, "ClickHouseUser", {
      type: "String",
      description: `ClickHouse user of ${name}'s outcomes (empty: the server's default user).`,
      default: "",
    });
    const outcomeRetentionDays = new CfnParameter(this, "OutcomeRetentionDays", {
      type: "Number",
      description:
        "Days served searches and outcome events are kept (the tables' TTL); the queue consumer must use the same.",
      minValue: MIN_RETENTION_DAYS,
      maxValue: MAX_RETENTION_DAYS,
      default: DEFAULT_RETENTION_DAYS,
    });
    const clickhousePassword = new secretsmanager.Secret(this, "ClickHousePassword", {
      secretName: `${name}/ecom-search/clickhouse-password`,
      description: `Password of ClickHouseUser on ${name}'s outcome ClickHouse (AdminInternalApi). Put the real password after the first deploy, before setting ClickHouseUrl.`,
    });

    // Changes the exporter could not copy after its retries: the Lambda form of a "parked" change.
    this.parked = new sqs.Queue(this, "ExporterParked", {
      queueName: `${name}-ecom_settings_exporter-parked`,
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });

    const kvEnvironment = {
      CLOUDFLARE_ACCOUNT_ID: storeAccount.valueAsString,
      KV_NAMESPACE_ID: namespace.valueAsString,
    };

    this.exporter = new ServiceFunction(this, "Exporter", {
      functionName: `${name}-ecom_settings_exporter`,
      description: `ecom_settings_exporter (${name}): ${env.settingsTable} stream to Workers KV and Meilisearch settings`,
      bundle: "search-exporter",
      memorySize: 256,
      // A failing change can take about 5 × 10 s (Cloudflare timeout) plus backoff before the batch stops at it.
      timeout: Duration.seconds(300),
      environment: {
        ...kvEnvironment,
        MEILISEARCH_URL: meilisearchUrl.valueAsString,
        // Read before an engine write: a change the table has replaced is not written again.
        SETTINGS_TABLE_NAME: this.table.tableName,
      },
      secretEnvironment: {
        CLOUDFLARE_API_TOKEN: { secret: kvWriteToken },
        MEILISEARCH_API_KEY: { secret: meilisearchKey },
      },
    });
    this.exporter.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: STREAM_READ_ACTIONS,
        resources: [this.table.tableStreamArn as string],
      }),
    );
    // The version check before an engine write reads the record's current version (one item).
    this.exporter.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ["dynamodb:GetItem"], resources: [this.table.tableArn] }),
    );
    // ListStreams has no resource-level permission (IAM: resource "*"); the mapping lists the table's streams.
    this.exporter.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ["dynamodb:ListStreams"], resources: ["*"] }),
    );
    const mapping = new lambda.EventSourceMapping(this, "ExporterStream", {
      target: this.exporter.function,
      eventSourceArn: this.table.tableStreamArn as string,
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: EXPORTER_MAPPING.batchSize,
      maxBatchingWindow: Duration.seconds(EXPORTER_MAPPING.maxBatchingWindowSeconds),
      // Required: without it the handler's batchItemFailures are ignored and every failure retries the batch.
      reportBatchItemFailures: true,
      // An invocation that fails outright (timeout, crash) is split, so one record cannot hold a batch hostage.
      bisectBatchOnError: true,
      retryAttempts: EXPORTER_MAPPING.retryAttempts,
      maxRecordAge: Duration.seconds(EXPORTER_MAPPING.maxRecordAgeSeconds),
      parallelizationFactor: EXPORTER_MAPPING.parallelizationFactor,
      onFailure: new SqsDlq(this.parked),
    });
    // The role's stream permissions must exist before Lambda validates the mapping.
    mapping.node.addDependency(this.exporter.role);

    this.admin = new ServiceFunction(this, "Admin", {
      functionName: `${name}-AdminInternalApi`,
      description: `${name}-AdminInternalApi: internal admin API (relevance trigger config)`,
      bundle: "search-admin",
      memorySize: 256,
      timeout: Duration.seconds(15),
      environment: {
        ENV: name,
        ...kvEnvironment,
        CLICKHOUSE_URL: clickhouseUrl.valueAsString,
        CLICKHOUSE_USER: clickhouseUser.valueAsString,
        OUTCOME_RETENTION_DAYS: outcomeRetentionDays.valueAsString,
      },
      secretEnvironment: {
        ADMIN_TOKEN: { secret: adminToken },
        CLOUDFLARE_API_TOKEN: { secret: kvReadToken },
        CLICKHOUSE_PASSWORD: { secret: clickhousePassword },
      },
    });
    this.admin.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ADMIN_TABLE_ACTIONS, resources: [this.table.tableArn] }),
    );

    // The drift check: hourly over the admin function's backends (the outcome ClickHouse, the
    // models in KV, the table for the alerts' rows and claims). Its channels are a secret: webhook
    // and Slack URLs carry tokens. The initial value holds no secret.
    const driftChannels = new secretsmanager.Secret(this, "DriftAlertChannels", {
      secretName: `${name}/ecom-search/drift-alert-channels`,
      description: `Channels of ${name}'s relevance drift alerts: {"channels": [...]} (webhook, Slack, SMTP, Alertmanager; docs/notifications.md)`,
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ channels: [] })),
    });
    this.driftCheck = new ServiceFunction(this, "DriftCheck", {
      functionName: `${name}-RelevanceDriftCheck`,
      description: `${name}-RelevanceDriftCheck: PSI of live searches against each model's training profile; relevance_drift alerts`,
      bundle: "search-drift",
      memorySize: 256,
      timeout: Duration.minutes(5),
      environment: {
        ENV: name,
        ...kvEnvironment,
        CLICKHOUSE_URL: clickhouseUrl.valueAsString,
        CLICKHOUSE_USER: clickhouseUser.valueAsString,
        OUTCOME_RETENTION_DAYS: outcomeRetentionDays.valueAsString,
      },
      secretEnvironment: {
        CLOUDFLARE_API_TOKEN: { secret: kvReadToken },
        CLICKHOUSE_PASSWORD: { secret: clickhousePassword },
        ALERT_CONFIG_JSON: { secret: driftChannels },
      },
    });
    this.driftCheck.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ADMIN_TABLE_ACTIONS, resources: [this.table.tableArn] }),
    );
    new events.Rule(this, "DriftCheckSchedule", {
      ruleName: `${name}-RelevanceDriftCheck`,
      description: "Runs the relevance drift check every hour",
      schedule: events.Schedule.rate(Duration.hours(1)),
      targets: [
        new targets.LambdaFunction(this.driftCheck.function, {
          retryAttempts: 1,
          maxEventAge: Duration.minutes(30),
        }),
      ],
    });

    const accessLogs = new logs.LogGroup(this, "AdminApiAccessLogs", {
      logGroupName: `/aws/apigateway/${name}-AdminInternalApi`,
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Internal: every route needs SigV4-signed requests from an IAM principal allowed execute-api:Invoke,
    // in addition to the admin bearer token the function checks.
    this.api = new apigwv2.HttpApi(this, "AdminApi", {
      apiName: `${name}-AdminInternalApi`,
      description: `${name}-AdminInternalApi (IAM-authorized)`,
      createDefaultStage: false,
      defaultAuthorizer: new HttpIamAuthorizer(),
    });
    this.api.addRoutes({
      path: "/api/v1/admin/{proxy+}",
      methods: [apigwv2.HttpMethod.ANY],
      integration: new HttpLambdaIntegration("AdminIntegration", this.admin.function, {
        payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
      }),
    });
    const stage = new apigwv2.HttpStage(this, "AdminApiStage", {
      httpApi: this.api,
      stageName: "$default",
      autoDeploy: true,
      throttle: { rateLimit: 20, burstLimit: 40 },
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        // HTTP API variables (the default format names REST API ones); the caller is the IAM principal.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            requestTime: "$context.requestTime",
            routeKey: "$context.routeKey",
            path: "$context.path",
            status: "$context.status",
            responseLength: "$context.responseLength",
            sourceIp: "$context.identity.sourceIp",
            caller: "$context.identity.userArn",
            integrationError: "$context.integrationErrorMessage",
          }),
        ),
      },
    });

    // The shops' API: customer management and search with the account's API key, which the
    // function checks (no IAM: the callers are shops' back ends and their developers).
    this.customer = new ServiceFunction(this, "Customer", {
      functionName: `${name}-CustomerApi`,
      description: `${name}-CustomerApi: the customer API (indexes, documents, settings, aliases, tasks) and search`,
      bundle: "search-customer",
      // Parsed relevance models stay in the instance's cache (MODEL_CACHE_MB of it).
      memorySize: 512,
      // API Gateway waits at most 30 s for an HTTP API integration.
      timeout: Duration.seconds(29),
      environment: { ENV: name, ...kvEnvironment, MEILISEARCH_URL: meilisearchUrl.valueAsString },
      secretEnvironment: {
        CLOUDFLARE_API_TOKEN: { secret: kvReadToken },
        MEILISEARCH_API_KEY: { secret: meilisearchCustomerKey },
      },
    });
    this.customer.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: CUSTOMER_TABLE_ACTIONS, resources: [this.table.tableArn] }),
    );
    const customerAccessLogs = new logs.LogGroup(this, "CustomerApiAccessLogs", {
      logGroupName: `/aws/apigateway/${name}-CustomerApi`,
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.customerApi = new apigwv2.HttpApi(this, "CustomerApi", {
      apiName: `${name}-CustomerApi`,
      description: `${name}-CustomerApi (public; the function checks each shop's API key)`,
      createDefaultStage: false,
    });
    this.customerApi.addRoutes({
      path: "/api/v1/{proxy+}",
      methods: [apigwv2.HttpMethod.ANY],
      integration: new HttpLambdaIntegration("CustomerIntegration", this.customer.function, {
        payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
      }),
    });
    const customerStage = new apigwv2.HttpStage(this, "CustomerApiStage", {
      httpApi: this.customerApi,
      stageName: "$default",
      autoDeploy: true,
      throttle: CUSTOMER_API_THROTTLE,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(customerAccessLogs),
        // No headers: the API key never reaches the access log.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            requestTime: "$context.requestTime",
            method: "$context.httpMethod",
            path: "$context.path",
            status: "$context.status",
            latencyMs: "$context.responseLatency",
            integrationLatencyMs: "$context.integrationLatency",
            responseLength: "$context.responseLength",
            sourceIp: "$context.identity.sourceIp",
            userAgent: "$context.identity.userAgent",
            integrationError: "$context.integrationErrorMessage",
          }),
        ),
      },
    });

    new CfnOutput(this, "SettingsTableName", { value: this.table.tableName });
    new CfnOutput(this, "SettingsTableStreamArn", { value: this.table.tableStreamArn as string });
    new CfnOutput(this, "AdminApiUrl", { value: `${stage.url}api/v1/admin/` });
    new CfnOutput(this, "AdminApiInvokeArn", {
      description: "Grant execute-api:Invoke on this to the operators' role",
      value: this.api.arnForExecuteApi("*", "/api/v1/admin/*"),
    });
    new CfnOutput(this, "CustomerApiUrl", {
      description: "Base URL of the shops' API (x-api-key); a Meilisearch client's host",
      value: `${customerStage.url}api/v1`,
    });
    new CfnOutput(this, "MeilisearchCustomerKeySecretArn", { value: meilisearchCustomerKey.secretArn });
    new CfnOutput(this, "ExporterParkedQueueUrl", { value: this.parked.queueUrl });
    new CfnOutput(this, "KvWriteTokenSecretArn", { value: kvWriteToken.secretArn });
    new CfnOutput(this, "KvReadTokenSecretArn", { value: kvReadToken.secretArn });
    new CfnOutput(this, "AdminTokenSecretArn", { value: adminToken.secretArn });
  }
}
