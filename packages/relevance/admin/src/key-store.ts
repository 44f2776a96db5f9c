/**
 * An account's API keys in the settings table: a key record per key (`<account>` / `KEY#<uid>`:
 * what GET /keys lists) and the lookup item authentication reads (`APIKEY#<sha256>` / `APIKEY`,
 * copied to KV for the edge). A key's actions, indexes and expiry never change, so the lookup item
 * is written once and deleted on revocation; PATCH touches the record only.
 */
import {
  ACCOUNT_SK,
  type AccountCors,
  API_KEY_SK,
  type ApiKeyGrant,
  apiKeyHash,
  apiKeyPk,
  CORS_SK,
  corsAttributes,
  corsOf,
  grantAttributes,
  KEY_PREFIX,
  keySk,
  type SettingsTable,
  type TableItem,
} from "@relevance/settings";
import { ApiError, conflict, invalid, notFound } from "@shared/http";
import type { z } from "zod";
import { newApiKey, type RandomBytes } from "./crypto.ts";
import { MAX_KEYS_PER_ACCOUNT } from "./key-limits.ts";
import type { CreateKey, UpdateKey } from "./key-schemas.ts";

/** Characters of a key shown in lists, to tell keys apart (`rk_` and five of the random part). */
export const KEY_PREFIX_CHARS = 8;

export const DEFAULT_SEARCH_KEY = {
  name: "Default Search API Key",
  description: "Use it to search from the frontend",
  actions: ["search"],
  indexes: ["*"],
  expiresAt: null,
} as const;
export const DEFAULT_ADMIN_KEY = {
  name: "Default Admin API Key",
  description:
    "Use it for anything that is not a search operation. Caution! Do not expose it on a public frontend",
  actions: ["*"],
  indexes: ["*"],
  expiresAt: null,
} as const;

/** A UUID v4 from 16 random bytes (the deps' random source, so tests can fix it). */
export function newUuid(random: RandomBytes): string {
  const b = random(new Uint8Array(16));
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A key as GET /keys shows it (Meilisearch's fields, `keyPrefix` in place of `key`). */
export function keyView(item: TableItem): Record<string, unknown> {
  const a = item.attributes;
  return {
    uid: item.sk.slice(KEY_PREFIX.length),
    name: a.name ?? null,
    description: a.description ?? null,
    keyPrefix: a.key_prefix,
    actions: a.actions,
    indexes: a.indexes,
    expiresAt: a.expires_at ?? null,
    createdAt: a.created_at,
    updatedAt: a.updated_at,
  };
}

type CreateInput = z.output<typeof CreateKey>;

export interface KeyStoreDeps {
  table: SettingsTable;
  now: () => Date;
  random: RandomBytes;
}

/**
 * Creates a key: the record first (so a key that works is always listed and can be revoked), then
 * the lookup item. Refuses past MAX_KEYS_PER_ACCOUNT, an expiry not in the future, and a uid in use.
 */
export async function createKey(
  deps: KeyStoreDeps,
  accountId: string,
  input: CreateInput,
  { countChecked = true }: { countChecked?: boolean } = {},
): Promise<{ view: Record<string, unknown>; key: string }> {
  const { table, now, random } = deps;
  if (input.expiresAt !== null && Date.parse(input.expiresAt) <= now().getTime()) {
    throw invalid("the key is invalid", [{ path: "expiresAt", message: "must be in the future" }]);
  }
  if (countChecked) {
    const existing = await table.query(accountId, KEY_PREFIX);
    if (existing.length >= MAX_KEYS_PER_ACCOUNT) {
      throw invalid("the account has too many API keys", [
        {
          path: "keys",
          message: `an account has at most ${MAX_KEYS_PER_ACCOUNT} API keys (it has ${existing.length}); delete one first`,
        },
      ]);
    }
  }
  const uid = input.uid ?? newUuid(random);
  const key = newApiKey(random);
  const hash = await apiKeyHash(key);
  const at = now().toISOString();
  const grant: ApiKeyGrant = {
    uid,
    actions: input.actions,
    indexes: input.indexes,
    expiresAt: input.expiresAt === null ? null : new Date(input.expiresAt).toISOString(),
  };
  const record = await table.put(
    accountId,
    keySk(uid),
    {
      name: input.name ?? null,
      description: input.description ?? null,
      key_prefix: key.slice(0, KEY_PREFIX_CHARS),
      key_hash: hash,
      actions: grant.actions,
      indexes: grant.indexes,
      expires_at: grant.expiresAt,
      created_at: at,
      updated_at: at,
    },
    { mustNotExist: true },
  );
  if (!record.ok)
    throw new ApiError(
      409,
      "api_key_already_exists",
      `\`uid\` field value \`${uid}\` is already an existing API key.`,
    );
  const lookup = await table.put(
    apiKeyPk(hash),
    API_KEY_SK,
    { system_account_id: accountId, created_at: at, ...grantAttributes(grant) },
    { mustNotExist: true },
  );
  if (!lookup.ok) {
    await table.delete(accountId, keySk(uid), { always: true });
    throw new Error("could not store the API key");
  }
  return { view: { ...keyView(record.item), key }, key };
}

/** The account's key records, in uid order (Meilisearch orders by creation; uids are random). */
export async function listKeys(
  table: SettingsTable,
  accountId: string,
  page: { offset: number; limit: number },
): Promise<{ results: Record<string, unknown>[]; offset: number; limit: number; total: number }> {
  const items = await table.query(accountId, KEY_PREFIX);
  items.sort((a, b) => String(a.attributes.created_at).localeCompare(String(b.attributes.created_at)));
  return {
    results: items.slice(page.offset, page.offset + page.limit).map(keyView),
    offset: page.offset,
    limit: page.limit,
    total: items.length,
  };
}

/** The key record named by its uid or by the key itself (Meilisearch's `{uidOrKey}`); 404 otherwise. */
export async function findKey(table: SettingsTable, accountId: string, uidOrKey: string): Promise<TableItem> {
  const missing = () => new ApiError(404, "api_key_not_found", `API key \`${uidOrKey}\` not found.`);
  if (uidOrKey.length > 512) throw missing();
  let uid = uidOrKey;
  if (!/^[0-9a-f-]{36}$/.test(uidOrKey)) {
    const lookup = await table.get(apiKeyPk(await apiKeyHash(uidOrKey)), API_KEY_SK);
    if (lookup === null || lookup.attributes.system_account_id !== accountId) throw missing();
    if (typeof lookup.attributes.uid !== "string") throw missing();
    uid = lookup.attributes.uid;
  }
  const record = await table.get(accountId, keySk(uid));
  if (record === null) throw missing();
  return record;
}

export async function updateKey(
  deps: Pick<KeyStoreDeps, "table" | "now">,
  accountId: string,
  uidOrKey: string,
  patch: z.output<typeof UpdateKey>,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const record = await findKey(deps.table, accountId, uidOrKey);
    const attributes: Record<string, unknown> = {
      ...record.attributes,
      updated_at: deps.now().toISOString(),
    };
    if (patch.name !== undefined) attributes.name = patch.name;
    if (patch.description !== undefined) attributes.description = patch.description;
    const written = await deps.table.put(accountId, record.sk, attributes, {
      expectedVersion: record.version,
    });
    if (written.ok) return keyView(written.item);
  }
  throw conflict("the key kept changing concurrently; retry");
}

/** Revokes: the lookup item first (the key stops working, and its KV copy is deleted), then the record. */
export async function deleteKey(table: SettingsTable, accountId: string, uidOrKey: string): Promise<void> {
  const record = await findKey(table, accountId, uidOrKey);
  const hash = record.attributes.key_hash;
  if (typeof hash === "string") await table.delete(apiKeyPk(hash), API_KEY_SK, { always: true });
  await table.delete(accountId, record.sk, { always: true });
}

/** The account's CORS origins (the defaults without a CORS item). */
export async function readCors(table: SettingsTable, accountId: string): Promise<AccountCors> {
  const item = await table.get(accountId, CORS_SK);
  return corsOf(item?.attributes ?? null);
}

export async function writeCors(
  deps: Pick<KeyStoreDeps, "table" | "now">,
  accountId: string,
  patch: Partial<AccountCors>,
): Promise<AccountCors> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const item = await deps.table.get(accountId, CORS_SK);
    const cors = { ...corsOf(item?.attributes ?? null), ...patch };
    const written = await deps.table.put(
      accountId,
      CORS_SK,
      { ...corsAttributes(cors), updated_at: deps.now().toISOString() },
      item === null ? { mustNotExist: true } : { expectedVersion: item.version },
    );
    if (written.ok) return corsOf(written.item.attributes);
  }
  throw conflict("the account's CORS settings kept changing concurrently; retry");
}

/** 404 unless the account exists (the admin routes name accounts in the path). */
export async function requireAccount(table: SettingsTable, accountId: string): Promise<void> {
  if (!/^acct_[0-9a-f]{12}$/.test(accountId) || (await table.get(accountId, ACCOUNT_SK)) === null)
    throw notFound("account not found");
}
