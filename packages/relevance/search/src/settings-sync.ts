// Index settings from the settings table's change stream to the search engine: the same stream that
// feeds ecom_settings_exporter (KV copies) applies each index's settings to Meilisearch through the
// IndexManager port, so a customer PATCH or a direct table edit changes search results in production
// as it does in npm start. Whole settings every time, so a replayed or duplicated change is harmless.
import type { Change, TableItem } from "@relevance/settings";
import { indexNameOf, settingsCopy } from "@relevance/settings";
import { type IndexManager, IndexManagerError, type IndexSettings, indexUidOf } from "./index-manager.ts";
import { settingsViewOf } from "./settings-copy.ts";

export type SyncOutcome =
  /** Not an index record (an account, an API key) or an alias (no engine index of its own). */
  | { status: "ignored" }
  | { status: "applied"; uid: string; taskUid: number }
  | { status: "deleted"; uid: string }
  /** The engine refused or failed: the caller retries the change (and parks it after its retries). */
  | { status: "failed"; uid: string; error: string };

/** The engine settings of a settings record, as search reads them from its KV copy; null for an alias. */
export function engineSettingsOf(item: TableItem): IndexSettings | null {
  const view = settingsViewOf(settingsCopy(item));
  if (!view.ok)
    throw new Error(
      `the settings record is malformed: ${view.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
    );
  const v = view.value;
  if (v.type === "alias") return null;
  return {
    searchableAttributes: v.searchableAttributes,
    displayedAttributes: v.displayedAttributes,
    filterableAttributes: v.filterableAttributes,
    sortableAttributes: v.sortableAttributes,
    synonyms: v.synonyms,
    stopWords: v.stopWords,
    typoTolerance: v.typoTolerance,
    rankingRules: v.rankingRules,
  };
}

/**
 * Applies one change to the engine: an index record's settings (waiting for the task), or the
 * deletion of its index when the record is removed (an index that is already gone is fine).
 */
export async function syncIndexSettings(
  change: Change,
  manager: IndexManager,
  options: { taskTimeoutMs?: number } = {},
): Promise<SyncOutcome> {
  const index = indexNameOf(change.sk);
  if (index === null) return { status: "ignored" };
  const uid = indexUidOf(change.pk, index);
  const timeoutMs = options.taskTimeoutMs ?? 10_000;
  try {
    if (change.newItem === null) {
      const wasAlias = change.oldItem?.attributes.type === "alias";
      if (wasAlias) return { status: "ignored" };
      const task = await manager.waitForTask((await manager.deleteIndex(uid)).taskUid, {
        timeoutMs,
        accountId: change.pk,
      });
      if (task.status === "failed" && task.error?.code !== "index_not_found") {
        return { status: "failed", uid, error: task.error?.message ?? "the index deletion failed" };
      }
      return { status: "deleted", uid };
    }
    const settings = engineSettingsOf(change.newItem);
    if (settings === null) return { status: "ignored" };
    const task = await manager.waitForTask((await manager.updateSettings(uid, settings)).taskUid, {
      timeoutMs,
      accountId: change.pk,
    });
    if (task.status === "failed") {
      return { status: "failed", uid, error: task.error?.message ?? "the settings update failed" };
    }
    return { status: "applied", uid, taskUid: task.uid };
  } catch (error) {
    const text =
      error instanceof IndexManagerError ? `${error.failure}: ${error.message}` : (error as Error).message;
    return { status: "failed", uid, error: text };
  }
}
