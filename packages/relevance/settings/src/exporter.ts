import { formatIssues, validateStoredRelevanceTriggerConfig } from "@relevance/core";
import { errorMessage } from "@shared/kernel";
import type { Change, Kv, Logger } from "./ports.ts";
import { copyOf, settingsCopyKey } from "./records.ts";

export type ExportOutcome =
  | { status: "written"; key: string }
  | { status: "deleted"; key: string }
  | { status: "ignored" }
  | { status: "failed"; key: string; error: string };

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 50, maxDelayMs: 2000 };

export interface ExporterDeps {
  kv: Kv;
  log: Logger;
  retry?: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * ecom_settings_exporter's logic for one change: copy an index or alias settings record to KV
 * under `<system_account_id>-<index_name>` (or its shop ID), or remove the copy when the record is
 * deleted. API keys are copied under `apikey:<sha256>` (only the owning account: the edge needs it to
 * authenticate searches); accounts are not exported. Writing a full image is idempotent,
 * so a change delivered twice is harmless; callers deliver changes in order.
 */
export async function exportChange(change: Change, deps: ExporterDeps): Promise<ExportOutcome> {
  const { kv, log } = deps;
  const retry = deps.retry ?? DEFAULT_RETRY;
  const sleep = deps.sleep ?? defaultSleep;
  const item = change.newItem ?? change.oldItem;
  const key = item === null ? null : settingsCopyKey(item);
  if (item === null || key === null) return { status: "ignored" };

  // A key change (shop ID added or removed) leaves the old copy behind unless it is deleted.
  const oldKey = change.oldItem === null ? null : settingsCopyKey(change.oldItem);
  const fields = { pk: change.pk, sk: change.sk, key, sequence: change.sequence };

  if (change.newItem !== null) {
    const config = change.newItem.attributes.relevance_trigger_config;
    if (config !== undefined) {
      const valid = validateStoredRelevanceTriggerConfig(config, undefined, change.newItem.pk);
      if (!valid.ok) {
        // A direct table edit can store anything (another account's model too); the copy stays
        // faithful and the proxy will not score.
        log.error("settings record has a malformed relevance_trigger_config; exported as is", {
          ...fields,
          problem: formatIssues(valid.errors),
        });
      }
    }
  }

  let lastError = "";
  for (let attempt = 1; attempt <= retry.attempts; attempt++) {
    try {
      if (change.newItem === null) {
        await kv.delete(key);
        return { status: "deleted", key };
      }
      await kv.put(key, JSON.stringify(copyOf(change.newItem)));
      if (oldKey !== null && oldKey !== key) await kv.delete(oldKey);
      return { status: "written", key };
    } catch (error) {
      lastError = errorMessage(error);
      if (attempt < retry.attempts) {
        const delay = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
        log.warn("settings export failed; retrying", {
          ...fields,
          attempt,
          delayMs: delay,
          error: lastError,
        });
        await sleep(delay);
      }
    }
  }
  return { status: "failed", key, error: lastError };
}
