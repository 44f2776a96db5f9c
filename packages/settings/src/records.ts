import type { TableItem } from "./ports.ts";

// Sort keys of the single settings table.
export const INDEX_PREFIX = "INDEX#";
export const ACCOUNT_SK = "ACCOUNT";
export const API_KEY_SK = "APIKEY";
/** API keys are found by the SHA-256 of the key: the key itself is never stored. */
export const apiKeyPk = (keyHash: string): string => `APIKEY#${keyHash}`;
export const indexSk = (indexName: string): string => `${INDEX_PREFIX}${indexName}`;

export const INDEX_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Attributes of an index or alias settings record (snake_case, as stored). `relevance_trigger_config`
 * is internal: only the admin API and direct table edits set it.
 */
export interface IndexSettingsAttributes {
  type: "index" | "alias";
  /** Alias records: the underlying index (seed 2.4). */
  alias_of?: string;
  primary_key?: string;
  searchable_attributes?: string[];
  displayed_attributes?: string[];
  filterable_attributes?: string[];
  sortable_attributes?: string[];
  synonyms?: Record<string, string[]>;
  stop_words?: string[];
  /** When present, the KV copy goes under this key instead of `<account>-<index>` (seed 2.3). */
  shop_id?: string;
  relevance_trigger_config?: unknown;
  created_at: string;
  updated_at: string;
}

export function indexNameOf(sk: string): string | null {
  return sk.startsWith(INDEX_PREFIX) ? sk.slice(INDEX_PREFIX.length) : null;
}

/** The KV key of a settings record's copy: the shop ID where one applies, else `<account>-<index>`. */
export function settingsCopyKey(item: Pick<TableItem, "pk" | "sk" | "attributes">): string | null {
  const index = indexNameOf(item.sk);
  if (index === null) return null;
  const shop = item.attributes.shop_id;
  return typeof shop === "string" && shop !== "" ? shop : `${item.pk}-${index}`;
}

/** The JSON written to KV: the record's attributes plus its identity and version. */
export interface SettingsCopy extends Record<string, unknown> {
  system_account_id: string;
  index_name: string;
  version: number;
}

export function settingsCopy(item: TableItem): SettingsCopy {
  return {
    ...item.attributes,
    system_account_id: item.pk,
    index_name: indexNameOf(item.sk) ?? item.sk,
    version: item.version,
  };
}
