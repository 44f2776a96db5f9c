// ecom_settings_exporter: the settings table's DynamoDB stream (NEW_AND_OLD_IMAGES) to Workers KV.
// Deployed with an event source mapping that has FunctionResponseTypes: ["ReportBatchItemFailures"]
// (see ../README.md).
import {
  type Change,
  type ExportOutcome,
  exportChange,
  type Kv,
  type Logger,
  type RetryPolicy,
  settingsCopyKey,
} from "@relevance/settings";
import { CloudflareRestKv } from "@relevance/settings/cloudflare-rest";
import { changeFromStreamRecord } from "@relevance/settings/dynamodb";
import { jsonLogger } from "@relevance/settings/json-logger";
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";

export interface ExporterHandlerOptions {
  kv: Kv;
  log: Logger;
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

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

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

let deployed: ExporterHandler | undefined;

/** The Lambda entry point (`handler.handler` in the esbuild bundle). Built on first use, then reused. */
export const handler: ExporterHandler = async (event) => {
  deployed ??= createHandler({ kv: kvFromEnv(process.env), log: jsonLogger("ecom_settings_exporter") });
  return deployed(event);
};
