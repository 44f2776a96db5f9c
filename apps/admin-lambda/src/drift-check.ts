// {env}-RelevanceDriftCheck: the drift check (@relevance/outcomes runDriftCheck) on a schedule
// (EventBridge, hourly: infra/src/search-stack.ts). The same backends as the admin function: the
// outcome ClickHouse (CLICKHOUSE_URL…), the models in Workers KV over Cloudflare's REST API (their
// training profiles), and the DynamoDB settings table, whose conditional writes hold each alert's
// rows and claims. Alerts go to the channels of ALERT_CONFIG_JSON and ALERT_WEBHOOK_URL
// (docs/notifications.md); DRIFT_PSI_THRESHOLD sets the threshold. docs/deploy.md.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { modelKey } from "@relevance/core";
import { driftCheckEnv, TableDriftAlertStore } from "@relevance/outcomes";
import { type DriftCheckDeps, type DriftCheckResult, runDriftCheck } from "@relevance/outcomes/drift-check";
import { CloudflareRestKv } from "@relevance/settings/cloudflare-rest";
import { DynamoSettingsTable } from "@relevance/settings/dynamodb";
import { lambdaStageProblem, missingEnv } from "@shared/http";
import { jsonLogger } from "@shared/kernel/json-logger";
import { type ChannelConfig, channelsFromEnv, createChannels, parseChannelsConfig } from "@shared/notify";
import { outcomesFromEnv } from "./handler.ts";

const COMPONENT = "RelevanceDriftCheck";
const REQUIRED = ["ENV", "CLOUDFLARE_ACCOUNT_ID", "KV_NAMESPACE_ID", "CLOUDFLARE_API_TOKEN"] as const;
export const ALERT_CONFIG_JSON = "ALERT_CONFIG_JSON";

/** The channels of ALERT_CONFIG_JSON (a channels config's text), then ALERT_WEBHOOK_URL; throws naming the field. */
export function channelConfigsFromEnv(env: Record<string, string | undefined>): ChannelConfig[] {
  const text = env[ALERT_CONFIG_JSON]?.trim() ?? "";
  let fromConfig: ChannelConfig[] = [];
  if (text !== "") {
    const parsed = parseChannelsConfig(text, env);
    if (!parsed.ok)
      throw new Error(
        `${COMPONENT}: ${parsed.errors.map((e) => `${ALERT_CONFIG_JSON}${e.path === "" ? "" : `.${e.path}`}: ${e.message}`).join("; ")}`,
      );
    fromConfig = parsed.value.channels;
  }
  const all = channelsFromEnv(env, fromConfig);
  if (!all.ok)
    throw new Error(`${COMPONENT}: ${all.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  return all.value;
}

/** The check's dependencies from the function's environment, or null without an outcome store. */
export function driftCheckDepsFromEnv(
  env: Record<string, string | undefined>,
  claimant: string,
): DriftCheckDeps | null {
  const missing = missingEnv(env, REQUIRED);
  if (missing.length > 0) throw new Error(`${COMPONENT}: missing environment ${missing.join(", ")}`);
  const stageProblem = lambdaStageProblem(env);
  if (stageProblem !== null) throw new Error(`${COMPONENT}: ${stageProblem}`);
  const drift = driftCheckEnv(env);
  if (!drift.ok) throw new Error(`${COMPONENT}: ${drift.error}`);
  const { outcomes } = outcomesFromEnv(env);
  if (outcomes === undefined) return null;
  const kv = new CloudflareRestKv({
    accountId: env.CLOUDFLARE_ACCOUNT_ID as string,
    namespaceId: env.KV_NAMESPACE_ID as string,
    apiToken: env.CLOUDFLARE_API_TOKEN as string,
  });
  const table = new DynamoSettingsTable({
    client: new DynamoDBClient({}),
    tableName: `${env.ENV}-EcomIndexSettingsTable`,
  });
  return {
    outcomes,
    alerts: new TableDriftAlertStore(table),
    artifactText: (id) => kv.get(modelKey(id)),
    channels: createChannels(channelConfigsFromEnv(env)),
    now: () => new Date(),
    threshold: drift.value.threshold,
    claimant,
    log: jsonLogger(COMPONENT),
  };
}

let deps: DriftCheckDeps | null | undefined;

/** The scheduled entry point: one check per invocation. A failure throws (EventBridge's retry, then the logs). */
export async function driftCheckHandler(
  _event: unknown,
  context: { awsRequestId?: string; logStreamName?: string } = {},
): Promise<Omit<DriftCheckResult, "transitions"> & { transitions: number }> {
  deps ??= driftCheckDepsFromEnv(process.env, `${COMPONENT}:${context.logStreamName ?? "local"}`);
  if (deps === null) {
    jsonLogger(COMPONENT).info("no outcome store (CLICKHOUSE_URL is empty): nothing to check");
    return {
      day: "",
      checked: 0,
      unprofiled: 0,
      transitions: 0,
      delivered: [],
      failed: [],
      claimedElsewhere: [],
    };
  }
  const result = await runDriftCheck(deps);
  const summary = { ...result, transitions: result.transitions.length };
  deps.log?.info("drift check done", summary);
  return summary;
}
