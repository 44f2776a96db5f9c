// API keys with scopes, in Meilisearch's model: what a key may do (`actions`), on which indexes
// (`indexes`) and until when (`expiresAt`). The same rules serve the customer API (which reads the
// APIKEY item of the settings table) and the search proxy at the edge (which reads its KV copy).

/** The account's key records: `<accountId>` / `KEY#<uid>`; the key itself is never stored. */
export const KEY_PREFIX = "KEY#";
export const keySk = (uid: string): string => `${KEY_PREFIX}${uid}`;

/** Meilisearch's action names that this API knows (`*` is every action, `x.*` every `x.` action). */
export const API_KEY_ACTIONS = [
  "*",
  "search",
  "documents.*",
  "documents.add",
  "documents.get",
  "documents.delete",
  "indexes.*",
  "indexes.create",
  "indexes.get",
  "indexes.update",
  "indexes.delete",
  "indexes.swap",
  "tasks.*",
  "tasks.get",
  "settings.*",
  "settings.get",
  "settings.update",
  "stats.*",
  "stats.get",
  "keys.*",
  "keys.get",
  "keys.create",
  "keys.update",
  "keys.delete",
  "version",
] as const;
export type ApiKeyAction = (typeof API_KEY_ACTIONS)[number];
/** The actions a route may need: every action but the wildcards. */
export type RouteAction = Exclude<ApiKeyAction, "*" | `${string}.*`>;

/** What a key may do. An APIKEY item without `actions` (a key made before scopes) may do everything. */
export interface ApiKeyGrant {
  /** The key record's uid; null for a key made before key records (it is not listed). */
  uid: string | null;
  actions: readonly string[];
  indexes: readonly string[];
  /** RFC 3339, or null: never expires. */
  expiresAt: string | null;
}

const strings = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : null;

/** The grant of an APIKEY item's attributes (or of its KV copy, which has the same field names). */
export function grantOf(attributes: Record<string, unknown>): ApiKeyGrant {
  return {
    uid: typeof attributes.uid === "string" ? attributes.uid : null,
    actions: strings(attributes.actions) ?? ["*"],
    indexes: strings(attributes.indexes) ?? ["*"],
    expiresAt: typeof attributes.expires_at === "string" ? attributes.expires_at : null,
  };
}

/** The grant's attributes as the APIKEY item and its KV copy store them. */
export function grantAttributes(grant: ApiKeyGrant): Record<string, unknown> {
  return {
    uid: grant.uid,
    actions: [...grant.actions],
    indexes: [...grant.indexes],
    expires_at: grant.expiresAt,
  };
}

/** `*`, the action itself, or its family's wildcard (`documents.*` for `documents.add`). */
export function allowsAction(grant: Pick<ApiKeyGrant, "actions">, action: RouteAction): boolean {
  const dot = action.indexOf(".");
  const family = dot === -1 ? null : `${action.slice(0, dot)}.*`;
  return grant.actions.some((a) => a === "*" || a === action || a === family);
}

/** `*`, the index's name, or a `prefix*` pattern the name starts with (Meilisearch's index patterns). */
export function allowsIndex(grant: Pick<ApiKeyGrant, "indexes">, index: string): boolean {
  return grant.indexes.some(
    (pattern) =>
      pattern === "*" ||
      pattern === index ||
      (pattern.endsWith("*") && index.startsWith(pattern.slice(0, -1))),
  );
}

/** Expired at `nowMs` (a key that expires at an instant no longer works from that instant on). */
export function isExpired(grant: Pick<ApiKeyGrant, "expiresAt">, nowMs: number): boolean {
  if (grant.expiresAt === null) return false;
  const at = Date.parse(grant.expiresAt);
  // An unreadable date (a direct table edit) fails closed.
  return Number.isNaN(at) || at <= nowMs;
}

/** Why a grant refuses a request, or null when it allows it. */
export function grantRefusal(
  grant: ApiKeyGrant,
  action: RouteAction,
  index: string | null,
): "action" | "index" | null {
  if (!allowsAction(grant, action)) return "action";
  if (index !== null && !allowsIndex(grant, index)) return "index";
  return null;
}
