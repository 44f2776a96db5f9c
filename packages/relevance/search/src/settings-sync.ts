// Index settings from the settings table's change stream to the search engine: the same stream that
// feeds ecom_settings_exporter (KV copies) applies each index's settings to Meilisearch through the
// IndexManager port, so a direct table edit changes search results in production as it does in npm
// start. Whole settings every time, so a replayed or duplicated change is harmless.
//
// One write per version (docs/settings.md, "Engine settings: one write per version"): a customer
// PATCH has already put its settings into the engine by the time its change arrives here, and a
// delayed change must never put back an older version over a newer one. So, given the table, a
// change whose record the table has since replaced is `superseded` (the newer record's own change
// follows in the stream), and one whose settings the engine already holds is `unchanged`: neither
// writes. What is left to write is what the engine does not have yet (a direct table edit, a
// customer write that did not reach the engine).
import type { Change, SettingsTable, TableItem } from "@relevance/settings";
import { indexNameOf, settingsCopy } from "@relevance/settings";
import { type IndexManager, IndexManagerError, type IndexSettings, indexUidOf } from "./index-manager.ts";
import { settingsView } from "./settings-copy.ts";

export type SyncOutcome =
  /** Not an index record (an account, an API key) or an alias (no engine index of its own). */
  | { status: "ignored" }
  | { status: "applied"; uid: string; taskUid: number }
  /** The table holds a newer version of the record (or none): its own change writes the engine. */
  | { status: "superseded"; uid: string; version: number; current: number | null }
  /** The engine already holds exactly these settings (the customer API wrote them): nothing to write. */
  | { status: "unchanged"; uid: string; version: number }
  | { status: "deleted"; uid: string }
  /** The engine refused or failed: the caller retries the change (and parks it after its retries). */
  | { status: "failed"; uid: string; error: string };

/** The engine settings of a settings record, as search reads them from its KV copy; null for an alias. */
export function engineSettingsOf(item: TableItem): IndexSettings | null {
  const view = settingsView(settingsCopy(item));
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

export interface SyncOptions {
  /** How long to wait for the engine's task. Default 10 s. */
  taskTimeoutMs?: number;
  /**
   * The settings table the change came from: its current record is the version check. Without it
   * every change is written, in stream order (a stream alone never goes back in time).
   */
  table?: Pick<SettingsTable, "get">;
}

/** Structural equality of two settings values (plain data: arrays, objects, strings, numbers, booleans). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameValue(v, b[i]));
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/** An empty searchable list and `["*"]` both mean every string field (engines answer either). */
const comparable = (settings: IndexSettings): IndexSettings =>
  settings.searchableAttributes.length === 0 ? { ...settings, searchableAttributes: ["*"] } : settings;

/** Whether the engine's index already has these settings (false when it has no such index). */
async function engineHolds(manager: IndexManager, uid: string, settings: IndexSettings): Promise<boolean> {
  try {
    return sameValue(comparable(await manager.getSettings(uid)), comparable(settings));
  } catch (error) {
    if (error instanceof IndexManagerError && error.error.code === "index_not_found") return false;
    throw error;
  }
}

/**
 * Applies one change to the engine: an index record's settings (waiting for the task), or the
 * deletion of its index when the record is removed (an index that is already gone is fine).
 */
export async function syncIndexSettings(
  change: Change,
  manager: IndexManager,
  options: SyncOptions = {},
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
    const version = change.newItem.version;
    if (options.table !== undefined) {
      const current = await options.table.get(change.pk, change.sk);
      if (current === null || current.version > version) {
        return { status: "superseded", uid, version, current: current?.version ?? null };
      }
      if (await engineHolds(manager, uid, settings)) return { status: "unchanged", uid, version };
    }
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
