// The origins whose pages may call an account's API from a browser. Preflights carry no key, so
// they are answered for any origin; the actual request, once its key names the account, is refused
// (403 origin_not_allowed) when its Origin is not in the list of its route's class.

/** The account's CORS item: `<accountId>` / `CORS`; copied to KV as `cors:<accountId>` for the edge. */
export const CORS_SK = "CORS";
export const corsCopyKey = (accountId: string): string => `cors:${accountId}`;

export interface AccountCors {
  /** Origins allowed on search, events and read-only routes; `*` is any origin. */
  readOrigins: readonly string[];
  /** Origins allowed on every other route (writes, keys, the account's own settings). */
  writeOrigins: readonly string[];
}

/** Without a CORS item: any page may search and read, none may write. */
export const DEFAULT_CORS: AccountCors = { readOrigins: ["*"], writeOrigins: [] };

const strings = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : null;

/** The CORS config of a CORS item's attributes (or of its KV copy); null (no item) is the default. */
export function corsOf(attributes: Record<string, unknown> | null): AccountCors {
  if (attributes === null) return DEFAULT_CORS;
  return {
    readOrigins: strings(attributes.read_origins) ?? DEFAULT_CORS.readOrigins,
    writeOrigins: strings(attributes.write_origins) ?? DEFAULT_CORS.writeOrigins,
  };
}

export function corsAttributes(cors: AccountCors): Record<string, unknown> {
  return { read_origins: [...cors.readOrigins], write_origins: [...cors.writeOrigins] };
}

/**
 * An origin as browsers send it: `scheme://host[:port]`, lower case, no path. What the account's
 * lists hold (besides `*`), so the comparison is exact.
 */
export const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^\*$/;

/** Whether a request from `origin` may use a route of class `kind`. */
export function originAllowed(cors: AccountCors, kind: "read" | "write", origin: string): boolean {
  const list = kind === "read" ? cors.readOrigins : cors.writeOrigins;
  const wanted = origin.toLowerCase();
  return list.some((allowed) => allowed === "*" || allowed === wanted);
}
