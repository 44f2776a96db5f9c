import { createSettingsTableInput } from "@relevance/settings/dynamodb";
import { Match } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchStackName } from "./build-app.ts";
import { readSearchEnvironments, SEARCH_ENVIRONMENTS, type SearchEnvironment } from "./environments.ts";
import { SECRET_ENV_MAP } from "./lambda/secret-env.ts";
import {
  ADMIN_TABLE_ACTIONS,
  CUSTOMER_API_THROTTLE,
  CUSTOMER_TABLE_ACTIONS,
  EXPORTER_MAPPING,
} from "./search-stack.ts";
import {
  type CfnResourceJson,
  removeSynthesized,
  type Synthesized,
  statementsOf,
  synthesize,
  variablesOf,
} from "./test-support.ts";

afterAll(removeSynthesized);

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize();
});

const ofType = (resources: Record<string, CfnResourceJson>, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);

describe.each(SEARCH_ENVIRONMENTS)("%s-EcomSearch", (env) => {
  const name = searchStackName(env);
  const json = () => synth.json(name);
  const template = () => synth.template(name);

  it("is deployed to the environment's region from relevance.environments.json", () => {
    const expected = readSearchEnvironments().find((e) => e.name === env)?.awsRegion;
    expect(synth.stack(name).region).toBe(expected);
  });

  it("holds the settings table as @relevance/settings defines it, with its stream, PITR and deletion protection", () => {
    const input = createSettingsTableInput(`${env}-EcomIndexSettingsTable`);
    template().hasResource("AWS::DynamoDB::Table", {
      Properties: {
        TableName: input.TableName,
        KeySchema: input.KeySchema,
        AttributeDefinitions: input.AttributeDefinitions,
        BillingMode: input.BillingMode,
        StreamSpecification: { StreamViewType: "NEW_AND_OLD_IMAGES" },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      },
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
    });
  });

  it("feeds the table's stream to the exporter: bisect on error, bounded retries and age, parked changes in SQS", () => {
    const mappings = ofType(json().Resources, "AWS::Lambda::EventSourceMapping");
    expect(mappings).toHaveLength(1);
    const [, mapping] = mappings[0] as [string, CfnResourceJson];
    const p = mapping.Properties ?? {};
    const table = ofType(json().Resources, "AWS::DynamoDB::Table")[0]?.[0];
    const parked = ofType(json().Resources, "AWS::SQS::Queue")[0]?.[0];
    expect(p.EventSourceArn).toEqual({ "Fn::GetAtt": [table, "StreamArn"] });
    expect(p.BisectBatchOnFunctionError).toBe(true);
    expect(p.FunctionResponseTypes).toEqual(["ReportBatchItemFailures"]);
    expect(p.MaximumRetryAttempts).toBe(EXPORTER_MAPPING.retryAttempts);
    expect(p.MaximumRetryAttempts as number).toBeGreaterThanOrEqual(0);
    expect(p.MaximumRetryAttempts as number).toBeLessThanOrEqual(10);
    expect(p.MaximumRecordAgeInSeconds).toBe(86_400);
    expect(p.ParallelizationFactor).toBe(1);
    expect(p.StartingPosition).toBe("TRIM_HORIZON");
    expect(p.DestinationConfig).toEqual({ OnFailure: { Destination: { "Fn::GetAtt": [parked, "Arn"] } } });
    template().hasResourceProperties("AWS::SQS::Queue", {
      QueueName: `${env}-ecom_settings_exporter-parked`,
      SqsManagedSseEnabled: true,
    });
  });

  it("lets the exporter read one item of the table for its version check before an engine write", () => {
    const table = ofType(json().Resources, "AWS::DynamoDB::Table")[0]?.[0];
    const role = ofType(json().Resources, "AWS::IAM::Policy").find(([id]) => id.startsWith("Exporter"));
    const dynamo = statementsOf(role?.[1]).filter((s) =>
      JSON.stringify(s.Action).includes("dynamodb:GetItem"),
    );
    expect(dynamo).toEqual([
      { Action: "dynamodb:GetItem", Effect: "Allow", Resource: { "Fn::GetAtt": [table, "Arn"] } },
    ]);
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: `${env}-ecom_settings_exporter`,
      Environment: { Variables: Match.objectLike({ SETTINGS_TABLE_NAME: { Ref: table } }) },
    });
  });

  it("names the functions as the seed does and gives each its Cloudflare settings", () => {
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: `${env}-ecom_settings_exporter`,
      Runtime: "nodejs22.x",
      Timeout: 300,
      Environment: {
        Variables: Match.objectLike({
          CLOUDFLARE_ACCOUNT_ID: { Ref: "CloudflareAccountId" },
          KV_NAMESPACE_ID: { Ref: "KvNamespaceId" },
        }),
      },
    });
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: `${env}-AdminInternalApi`,
      Environment: {
        Variables: Match.objectLike({
          ENV: env,
          CLICKHOUSE_URL: { Ref: "ClickHouseUrl" },
          CLICKHOUSE_USER: { Ref: "ClickHouseUser" },
          OUTCOME_RETENTION_DAYS: { Ref: "OutcomeRetentionDays" },
        }),
      },
    });
  });

  it("keeps every secret out of the template: functions name their secrets and read them at run time", () => {
    const text = JSON.stringify(json());
    expect(text).not.toContain("{{resolve:secretsmanager");
    for (const [, fn] of ofType(json().Resources, "AWS::Lambda::Function")) {
      const vars = variablesOf(fn);
      expect(vars).not.toHaveProperty("CLOUDFLARE_API_TOKEN");
      expect(vars).not.toHaveProperty("ADMIN_TOKEN");
      expect(vars).not.toHaveProperty("MEILISEARCH_API_KEY");
      expect(vars).not.toHaveProperty("CLICKHOUSE_PASSWORD");
      expect(vars).toHaveProperty(SECRET_ENV_MAP);
    }
    expect(
      ofType(json().Resources, "AWS::SecretsManager::Secret").map(([, s]) => s.Properties?.Name),
    ).toEqual([
      `${env}/ecom-search/meilisearch-admin-key`,
      `${env}/ecom-search/meilisearch-customer-api-key`,
      `${env}/ecom-search/cloudflare-kv-write-token`,
      `${env}/ecom-search/cloudflare-kv-read-token`,
      `${env}/ecom-search/admin-token`,
      `${env}/ecom-search/clickhouse-password`,
      `${env}/ecom-search/drift-alert-channels`,
    ]);
  });

  it("runs the drift check hourly with the outcome store, the KV read token and its channels secret", () => {
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: `${env}-RelevanceDriftCheck`,
      Environment: {
        Variables: Match.objectLike({
          ENV: env,
          CLICKHOUSE_URL: Match.anyValue(),
          KV_NAMESPACE_ID: Match.anyValue(),
        }),
      },
    });
    template().hasResourceProperties("AWS::Events::Rule", {
      Name: `${env}-RelevanceDriftCheck`,
      ScheduleExpression: "rate(1 hour)",
    });
    const fn = ofType(json().Resources, "AWS::Lambda::Function").find(
      ([, f]) => f.Properties?.FunctionName === `${env}-RelevanceDriftCheck`,
    );
    const secrets = JSON.stringify(variablesOf(fn?.[1])[SECRET_ENV_MAP]);
    for (const name of [
      "CLOUDFLARE_API_TOKEN",
      "CLICKHOUSE_PASSWORD",
      "ALERT_CONFIG_JSON",
      "DriftAlertChannels",
    ])
      expect(secrets).toContain(name);
    expect(secrets).not.toContain("AdminToken");
  });

  it("puts the admin function behind IAM authorization on every route of its API", () => {
    const adminApi = ofType(json().Resources, "AWS::ApiGatewayV2::Api").find(
      ([, api]) => api.Properties?.Name === `${env}-AdminInternalApi`,
    )?.[0];
    const routes = ofType(json().Resources, "AWS::ApiGatewayV2::Route").filter(
      ([, route]) => JSON.stringify(route.Properties?.ApiId) === JSON.stringify({ Ref: adminApi }),
    );
    expect(routes.length).toBeGreaterThan(0);
    for (const [, route] of routes) expect(route.Properties?.AuthorizationType).toBe("AWS_IAM");
    template().hasResourceProperties("AWS::ApiGatewayV2::Route", { RouteKey: "ANY /api/v1/admin/{proxy+}" });
    template().hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      DefaultRouteSettings: { ThrottlingBurstLimit: 40, ThrottlingRateLimit: 20 },
    });
  });

  it("serves the customer API to shops: a public HTTP API (the function checks the API key) with throttling and access logs", () => {
    const resources = json().Resources;
    const customerApi = ofType(resources, "AWS::ApiGatewayV2::Api").find(
      ([, api]) => api.Properties?.Name === `${env}-CustomerApi`,
    );
    expect(customerApi).toBeDefined();
    const apiRef = JSON.stringify({ Ref: customerApi?.[0] });
    const routes = ofType(resources, "AWS::ApiGatewayV2::Route").filter(
      ([, route]) => JSON.stringify(route.Properties?.ApiId) === apiRef,
    );
    expect(
      routes.map(([, r]) => [r.Properties?.RouteKey, r.Properties?.AuthorizationType ?? "NONE"]),
    ).toEqual([["ANY /api/v1/{proxy+}", "NONE"]]);
    const stage = ofType(resources, "AWS::ApiGatewayV2::Stage").find(
      ([, st]) => JSON.stringify(st.Properties?.ApiId) === apiRef,
    )?.[1];
    expect(stage?.Properties?.DefaultRouteSettings).toEqual({
      ThrottlingBurstLimit: CUSTOMER_API_THROTTLE.burstLimit,
      ThrottlingRateLimit: CUSTOMER_API_THROTTLE.rateLimit,
    });
    const logs = stage?.Properties?.AccessLogSettings as { DestinationArn: unknown; Format: string };
    expect(JSON.parse(logs.Format)).toMatchObject({ status: "$context.status", path: "$context.path" });
    // The key is a header; no header is logged.
    expect(logs.Format).not.toContain("header");
    template().hasResourceProperties("AWS::Logs::LogGroup", {
      LogGroupName: `/aws/apigateway/${env}-CustomerApi`,
    });
    template().hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: `${env}-CustomerApi`,
      Environment: {
        Variables: Match.objectLike({
          ENV: env,
          MEILISEARCH_URL: { Ref: "MeilisearchUrl" },
          CLOUDFLARE_ACCOUNT_ID: { Ref: "CloudflareAccountId" },
          KV_NAMESPACE_ID: { Ref: "KvNamespaceId" },
        }),
      },
    });
    const fn = ofType(resources, "AWS::Lambda::Function").find(
      ([, f]) => f.Properties?.FunctionName === `${env}-CustomerApi`,
    )?.[1];
    // The secret map names each variable's secret (its ARN a reference, resolved at deploy time).
    const secrets = JSON.stringify(variablesOf(fn)[SECRET_ENV_MAP]);
    expect(secrets).toContain("MEILISEARCH_API_KEY");
    expect(secrets).toContain("MeilisearchCustomerApiKey");
    expect(secrets).toContain("CLOUDFLARE_API_TOKEN");
    expect(secrets).toContain("CloudflareKvReadToken");
    expect(secrets).not.toContain("AdminToken");
    template().hasOutput("CustomerApiUrl", {});
  });

  it("grants the customer role the settings table actions on the table only", () => {
    const role = ofType(json().Resources, "AWS::IAM::Policy").find(([id]) => id.startsWith("CustomerRole"));
    const table = ofType(json().Resources, "AWS::DynamoDB::Table")[0]?.[0];
    const dynamo = statementsOf(role?.[1]).filter((s) => JSON.stringify(s.Action).includes("dynamodb:"));
    expect(dynamo).toEqual([
      { Action: CUSTOMER_TABLE_ACTIONS, Effect: "Allow", Resource: { "Fn::GetAtt": [table, "Arn"] } },
    ]);
  });

  it("grants the admin role exactly the table actions DynamoSettingsTable uses, on the table only", () => {
    const admin = ofType(json().Resources, "AWS::IAM::Policy").find(([id]) => id.startsWith("AdminRole"));
    const statements = statementsOf(admin?.[1]);
    const table = ofType(json().Resources, "AWS::DynamoDB::Table")[0]?.[0];
    const dynamo = statements.filter((s) => JSON.stringify(s.Action).includes("dynamodb:"));
    expect(dynamo).toEqual([
      { Action: ADMIN_TABLE_ACTIONS, Effect: "Allow", Resource: { "Fn::GetAtt": [table, "Arn"] } },
    ]);
  });

  it("asks for the Cloudflare ids at deploy time while relevance.environments.json leaves them empty", () => {
    const params = json().Parameters ?? {};
    for (const p of ["CloudflareAccountId", "KvNamespaceId"]) {
      expect(params[p]?.AllowedPattern).toBe("^[0-9a-f]{32}$");
      expect(params[p]).not.toHaveProperty("Default");
    }
  });
});

describe("filled-in environments", () => {
  it("take the ids of relevance.environments.json as the parameters' defaults; prod in its own store account", () => {
    const shared = "a".repeat(32);
    const prodAccount = "b".repeat(32);
    const envs: SearchEnvironment[] = readSearchEnvironments().map((e, i) => ({
      ...e,
      kvNamespaceId: String(i).repeat(32),
      storeAccountId: e.name === "prod" ? prodAccount : shared,
    }));
    const filled = synthesize({ searchEnvironments: envs });
    expect(filled.json("prod-EcomSearch").Parameters?.CloudflareAccountId?.Default).toBe(prodAccount);
    expect(filled.json("prod-EcomSearch").Parameters?.KvNamespaceId?.Default).toBe("3".repeat(32));
    expect(filled.json("dev-EcomSearch").Parameters?.CloudflareAccountId?.Default).toBe(shared);
    expect(filled.stack("prod-EcomSearch").terminationProtection).toBe(true);
    expect(filled.stack("dev-EcomSearch").terminationProtection).toBe(false);
  });
});
