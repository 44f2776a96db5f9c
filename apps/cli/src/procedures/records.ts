// What the settings records of an account say about models: who names which model, and since when
// a record no longer names one (the 24 h grace period, docs/operations.md).
import {
  isPlainObject,
  type ModelIdParts,
  parseModelId,
  type RelevanceTriggerConfig,
  validateStoredRelevanceTriggerConfig,
} from "@relevance/core";
import { INDEX_PREFIX, indexNameOf, type SettingsTable, type TableItem } from "@relevance/settings";

/** Seed 3 and 8: an old model key is deleted only about 24 hours after the switch away from it. */
export const GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * `relevance_model_history` on a settings record: model id → ISO time the record stopped naming it.
 * Written in the same write as the config change by the admin PUT and by `config edit-table`.
 */
export const MODEL_HISTORY = "relevance_model_history";

export const recordName = (item: TableItem): string => indexNameOf(item.sk) ?? item.sk;

export const isAlias = (item: TableItem): boolean => item.attributes.type === "alias";

/** The model a record names, even through a malformed config (the proxy may not score, but it is named). */
export function namedModel(item: TableItem): string | null {
  const stored = item.attributes.relevance_trigger_config;
  if (!isPlainObject(stored)) return null;
  const id = stored.model_id;
  return typeof id === "string" && id !== "" ? id : null;
}

/** The record's config when it is well-formed and names a model of its own account, else null. */
export function storedConfig(item: TableItem): RelevanceTriggerConfig | null {
  const valid = validateStoredRelevanceTriggerConfig(
    item.attributes.relevance_trigger_config,
    undefined,
    item.pk,
  );
  return valid.ok ? valid.value : null;
}

export function modelHistory(item: TableItem): Record<string, string> {
  const history = item.attributes[MODEL_HISTORY];
  if (!isPlainObject(history)) return {};
  const out: Record<string, string> = {};
  for (const [id, at] of Object.entries(history)) if (typeof at === "string") out[id] = at;
  return out;
}

/**
 * The record's attributes after switching its config to `next` (null removes it), with the history
 * updated in the same write: the model it named before gets `at`, the model it names now leaves it.
 */
export function switchedAttributes(
  item: TableItem,
  next: RelevanceTriggerConfig | null,
  at: Date,
): Record<string, unknown> {
  const attributes: Record<string, unknown> = { ...item.attributes, updated_at: at.toISOString() };
  if (next === null) delete attributes.relevance_trigger_config;
  else
    attributes.relevance_trigger_config = {
      model_id: next.modelId,
      title_field: next.titleField,
      tags_field: next.tagsField,
    };
  const before = namedModel(item);
  const after = next?.modelId ?? null;
  if (before !== after) {
    const history: Record<string, unknown> = { ...modelHistory(item) };
    if (before !== null) history[before] = at.toISOString();
    if (after !== null) delete history[after];
    if (Object.keys(history).length > 0) attributes[MODEL_HISTORY] = history;
    else delete attributes[MODEL_HISTORY];
  }
  return attributes;
}

/** Every index and alias record of an account. */
export const accountRecords = (table: SettingsTable, account: string): Promise<TableItem[]> =>
  table.query(account, INDEX_PREFIX);

export interface ModelUse {
  /** Records whose config names the model. */
  namedBy: string[];
  /** Records that stopped naming it less than the grace period ago, with the time it ends. */
  recentlyBy: { record: string; since: string; until: string }[];
}

/** Who uses `modelId` at `now`: records naming it, and records within the grace period of it. */
export function modelUse(records: readonly TableItem[], modelId: string, now: Date): ModelUse {
  const namedBy: string[] = [];
  const recentlyBy: ModelUse["recentlyBy"] = [];
  for (const item of records) {
    if (namedModel(item) === modelId) namedBy.push(recordName(item));
    const since = modelHistory(item)[modelId];
    if (since === undefined) continue;
    const stopped = Date.parse(since);
    // An unreadable time counts as now: keep the model rather than delete it too early.
    const from = Number.isNaN(stopped) ? now.getTime() : stopped;
    if (now.getTime() - from < GRACE_MS) {
      recentlyBy.push({
        record: recordName(item),
        since,
        until: new Date(from + GRACE_MS).toISOString(),
      });
    }
  }
  return { namedBy, recentlyBy };
}

/** Versions of `<account>:<index>` that the records name or once named. */
export function versionsSeen(records: readonly TableItem[], account: string, index: string): number[] {
  const out: number[] = [];
  const add = (id: string | null) => {
    const parts = id === null ? null : parseModelId(id);
    if (parts !== null && parts.account === account && parts.index === index) out.push(parts.version);
  };
  for (const item of records) {
    add(namedModel(item));
    for (const id of Object.keys(modelHistory(item))) add(id);
  }
  return out;
}

/** Model ids under the KV keys `relevance_model:<account>:<index>:v<n>` (other keys ignored). */
export function versionKeys(keys: readonly string[], account: string, index: string): ModelIdParts[] {
  const out: ModelIdParts[] = [];
  for (const key of keys) {
    const parts = parseModelId(key.slice("relevance_model:".length));
    if (parts !== null && parts.account === account && parts.index === index) out.push(parts);
  }
  return out.sort((a, b) => a.version - b.version);
}

export const modelIdOf = (account: string, index: string, version: number): string =>
  `${account}:${index}:v${version}`;

export const versionPrefix = (account: string, index: string): string =>
  `relevance_model:${account}:${index}:v`;
