// ecom_settings_exporter: the settings table's DynamoDB stream (NEW_AND_OLD_IMAGES) to Workers KV.
// Deployed with an event source mapping that has FunctionResponseTypes: ["ReportBatchItemFailures"]
// (see ../README.md).

import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type IndexManager, syncIndexSettings } from "@relevance/search";
import { MeilisearchIndexManager } from "@relevance/search/meilisearch";
import {
  type Change,
  type ExportOutcome,
  exportChange,
  type Kv,
  type Logger,
  type RetryPolicy,
  type SettingsTable,
  settingsCopyKey,
} from "@relevance/settings";
import { CloudflareRestKv } from "@relevance/settings/cloudflare-rest";
import { changeFromStreamRecord, DynamoSettingsTable } from "@relevance/settings/dynamodb";
import { errorMessage } from "@shared/kernel";
import { jsonLogger } from "@shared/kernel/json-logger";
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";

export interface ExporterHandlerOptions {
  kv: Kv;
  log: Logger;
  /**
   * The search engine (Meilisearch in production): each index record's settings are applied to its
   * engine index after the KV copy, and a removed record deletes the engine index. Absent: KV only.
   */
  indexManager?: IndexManager;
  /**
   * The settings table the stream comes from: with it, the engine gets each version once and never
   * an older one after a newer (a customer PATCH writes the engine itself; syncIndexSettings).
   * Absent: every change is applied in stream order.
   */
  table?: Pick<SettingsTable, "get">;
  /** How long to wait for the engine's settings task. Default 10 s. */
  engineTaskTimeoutMs?: number;
  /** Milliseconds; for the lag reported with each applied change. Default Date.now. */
  now?: () => number;
  /** exportChange's retries of one change before the batch stops at it (default: exporter's). */
  retry?: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
}

export type ExporterHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

/** Stops the batch at `record`: Lambda checkpoints everything before it and retries from it. */
function stopAt(record: DynamoDBRecord): DynamoDBBatchResponse {
  const sequence = record.dynamodb?.SequenceNumber;
  // Without a sequence number Lambda could not tell where to resume: fail the whole batch instead.
  if (sequence === undefined || sequence === "") throw new Error("stream record without SequenceNumber");
  return { batchItemFailures: [{ itemIdentifier: sequence }] };
}

const message = errorMessage;

/**
 * The handler: every record of the batch, in order, through exportChange (which retries on its
 * own). At the first record that still fails it logs an error and returns that record's
 * SequenceNumber as the only batch item failure, so nothing after it is applied out of order; Lambda
 * retries the batch from there and, after the mapping's MaximumRetryAttempts, sends the record's
 * stream coordinates to the on-failure destination (the Lambda form of a "parked" change) and moves
 * on. Exports write full images, so a retried or duplicated record is harmless.
 */
export function createHandler(options: ExporterHandlerOptions): ExporterHandler {
  const { log } = options;
  return async (event) => {
    for (const record of event.Records) {
      let change: Change;
      try {
        change = changeFromStreamRecord(record);
      } catch (error) {
        log.error("stream record cannot be exported; the batch stops here", {
          eventID: record.eventID,
          sequence: record.dynamodb?.SequenceNumber,
          error: message(error),
        });
        return stopAt(record);
      }

      let outcome: ExportOutcome;
      try {
        outcome = await exportChange(change, options);
      } catch (error) {
        // Not a KV failure (exportChange catches those): still stop here rather than skip the change.
        const item = change.newItem ?? change.oldItem;
        const key = (item === null ? null : settingsCopyKey(item)) ?? "";
        outcome = { status: "failed", key, error: message(error) };
      }
      const fields = { pk: change.pk, sk: change.sk, sequence: change.sequence };
      if (outcome.status === "failed") {
        log.error("settings export failed after retries; the batch stops here and Lambda retries it", {
          ...fields,
          key: outcome.key,
          error: outcome.error,
        });
        return stopAt(record);
      }
      if (outcome.status !== "ignored") {
        log.info(`settings copy ${outcome.status}`, {
          ...fields,
          key: outcome.key,
          kind: change.kind,
          version: (change.newItem ?? change.oldItem)?.version,
        });
      }
      if (options.indexManager !== undefined) {
        const synced = await syncIndexSettings(change, options.indexManager, {
          taskTimeoutMs: options.engineTaskTimeoutMs ?? 10_000,
          ...(options.table === undefined ? {} : { table: options.table }),
        });
        if (synced.status === "failed") {
          log.error(
            "index settings not applied to the search engine; the batch stops here and Lambda retries it",
            {
              ...fields,
              uid: synced.uid,
              error: synced.error,
            },
          );
          return stopAt(record);
        }
        if (synced.status === "superseded" || synced.status === "unchanged") {
          log.info(`index settings ${synced.status}: not written to the search engine`, {
            ...fields,
            uid: synced.uid,
            version: synced.version,
            ...(synced.status === "superseded" ? { currentVersion: synced.current } : {}),
          });
        } else if (synced.status !== "ignored") {
          // Lag: from the table write (the stream record's creation time) to the engine's finished task.
          const created = record.dynamodb?.ApproximateCreationDateTime;
          const now = (options.now ?? Date.now)();
          log.info(`index settings ${synced.status} in the search engine`, {
            ...fields,
            uid: synced.uid,
            ...(created === undefined ? {} : { lagMs: Math.max(0, now - created * 1000) }),
          });
        }
      }
    }
    return { batchItemFailures: [] };
  };
}

/** The Workers KV namespace of this environment through the Cloudflare REST API, from the environment. */
export function kvFromEnv(env: Record<string, string | undefined>): CloudflareRestKv {
  const names = ["CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_API_TOKEN", "KV_NAMESPACE_ID"] as const;
  const missing = names.filter((name) => (env[name] ?? "").trim() === "");
  if (missing.length > 0)
    throw new Error(`ecom_settings_exporter: missing environment ${missing.join(", ")}`);
  return new CloudflareRestKv({
    accountId: env.CLOUDFLARE_ACCOUNT_ID as string,
    apiToken: env.CLOUDFLARE_API_TOKEN as string,
    namespaceId: env.KV_NAMESPACE_ID as string,
  });
}

/**
 * The search engine the settings go to, when MEILISEARCH_URL is set (its key in MEILISEARCH_API_KEY,
 * from Secrets Manager); null leaves the exporter writing KV only.
 */
export function indexManagerFromEnv(env: Record<string, string | undefined>): IndexManager | null {
  const url = (env.MEILISEARCH_URL ?? "").trim();
  if (url === "") return null;
  const apiKey = (env.MEILISEARCH_API_KEY ?? "").trim();
  if (apiKey === "")
    throw new Error("ecom_settings_exporter: MEILISEARCH_URL is set but MEILISEARCH_API_KEY is missing");
  return new MeilisearchIndexManager({ url, apiKey });
}

/**
 * The settings table the stream belongs to, read for the version check before an engine write, when
 * SETTINGS_TABLE_NAME is set (the stack sets it); null writes every change in stream order.
 */
export function settingsTableFromEnv(env: Record<string, string | undefined>): SettingsTable | null {
  const tableName = (env.SETTINGS_TABLE_NAME ?? "").trim();
  if (tableName === "") return null;
  return new DynamoSettingsTable({ client: new DynamoDBClient({}), tableName });
}

let deployed: ExporterHandler | undefined;

/** The Lambda entry point (`handler.handler` in the esbuild bundle). Built on first use, then reused. */
export const handler: ExporterHandler = async (event) => {
  if (deployed === undefined) {
    const indexManager = indexManagerFromEnv(process.env);
    const table = indexManager === null ? null : settingsTableFromEnv(process.env);
    deployed = createHandler({
      kv: kvFromEnv(process.env),
      log: jsonLogger("ecom_settings_exporter"),
      ...(indexManager === null ? {} : { indexManager }),
      ...(table === null ? {} : { table }),
    });
  }
  return deployed(event);
};
