import { CORS_SK, corsCopyKey } from "./account-cors.ts";
import { grantAttributes, grantOf } from "./api-keys.ts";
import type { TableItem } from "./ports.ts";

// Sort keys of the single settings table.
export const INDEX_PREFIX = "INDEX#";
export const ACCOUNT_SK = "ACCOUNT";
export const API_KEY_SK = "APIKEY";
/** API keys are found by the SHA-256 of the key: the key itself is never stored. */
export const apiKeyPk = (keyHash: string): string => `APIKEY#${keyHash}`;
export const indexSk = (indexName: string): string => `${INDEX_PREFIX}${indexName}`;

/**
 * The rule for index, alias and primary-key names, in one place: the customer API, the search proxy
 * (a name that breaks it is not found), the CLI flags and the OpenAPI documents all use this.
 */
export const INDEX_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** INDEX_NAME in words, as error messages and API descriptions say it. */
export const INDEX_NAME_RULE = "1 to 64 characters of A-Z, a-z, 0-9, _ and -";

/**
 * Attributes of an index or alias settings record (snake_case, as stored). `relevance_trigger_config`
 * is internal: only the admin API and direct table edits set it.
 */
export interface IndexSettingsAttributes {
  type: "index" | "alias";
  /** Alias records: the underlying index. */
  alias_of?: string;
  primary_key?: string;
  searchable_attributes?: string[];
  displayed_attributes?: string[];
  filterable_attributes?: string[];
  sortable_attributes?: string[];
  synonyms?: Record<string, string[]>;
  stop_words?: string[];
  /** As the customer API takes it (camelCase inside, Meilisearch's shape), possibly partial. */
  typo_tolerance?: {
    enabled?: boolean;
    minWordSizeForTypos?: { oneTypo?: number; twoTypos?: number };
    disableOnWords?: string[];
    disableOnAttributes?: string[];
  };
  ranking_rules?: string[];
  /** When present, the KV copy goes under this key instead of `<account>-<index>`. */
  shop_id?: string;
  relevance_trigger_config?: unknown;
  created_at: string;
  updated_at: string;
}

export function indexNameOf(sk: string): string | null {
  return sk.startsWith(INDEX_PREFIX) ? sk.slice(INDEX_PREFIX.length) : null;
}

/** The KV key of an API key's copy, by the SHA-256 of the key: the edge authenticates searches with it. */
export const apiKeyCopyKey = (keyHash: string): string => `apikey:${keyHash}`;

/**
 * The KV key of an item's copy, or null for items that are not copied (accounts). Settings records:
 * the shop ID where one applies, else `<account>-<index>`. API keys: `apikey:<sha256 of the key>`.
 * An account's CORS origins: `cors:<account>`.
 */
export function settingsCopyKey(item: Pick<TableItem, "pk" | "sk" | "attributes">): string | null {
  if (item.sk === API_KEY_SK && item.pk.startsWith("APIKEY#"))
    return apiKeyCopyKey(item.pk.slice("APIKEY#".length));
  if (item.sk === CORS_SK) return corsCopyKey(item.pk);
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

/**
 * What the edge needs to know about an API key: whose it is, and what it may do (actions, indexes,
 * expires_at: api-keys.ts), so that the Worker checks a key without the table.
 */
export interface ApiKeyCopy extends Record<string, unknown> {
  system_account_id: string;
  version: number;
}

/** The JSON written to KV for an item (see settingsCopyKey for which items are copied). */
export function copyOf(item: TableItem): SettingsCopy | ApiKeyCopy | Record<string, unknown> {
  if (item.sk === API_KEY_SK) {
    return {
      system_account_id: String(item.attributes.system_account_id),
      ...grantAttributes(grantOf(item.attributes)),
      version: item.version,
    };
  }
  if (item.sk === CORS_SK) {
    return { ...item.attributes, system_account_id: item.pk, version: item.version };
  }
  return settingsCopy(item);
}

export function settingsCopy(item: TableItem): SettingsCopy {
  return {
    ...item.attributes,
    system_account_id: item.pk,
    index_name: indexNameOf(item.sk) ?? item.sk,
    version: item.version,
  };
}

const encoder = new TextEncoder();

/** SHA-256 of an API key, lower-case hex (Web Crypto: the same on Node, Lambda and Workers). */
export async function apiKeyHash(apiKey: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(apiKey)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
