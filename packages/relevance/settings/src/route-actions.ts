// Every route of the search and customer APIs with the Meilisearch action a key needs for it, in
// one table: the customer app, the search proxy and their tests all read this one.

import type { RouteAction } from "./api-keys.ts";

export interface RouteActionRow {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Under `/api/v1`, with `:param` segments (Hono's syntax). */
  path: string;
  action: RouteAction;
  /** The path parameter that names the index the key must cover, if any. */
  index?: string;
}

/** The customer API's and search API's base path. */
export const ROUTE_BASE = "/api/v1";

const I = ":index";
const row = (method: RouteActionRow["method"], path: string, action: RouteAction): RouteActionRow =>
  path.includes(I) ? { method, path, action, index: "index" } : { method, path, action };

export const ROUTE_ACTIONS: readonly RouteActionRow[] = [
  // Search: what a page in a shop's browser calls (multi-search checks each query's index itself).
  row("POST", `/indexes/${I}/search`, "search"),
  row("GET", `/indexes/${I}/search`, "search"),
  row("POST", `/indexes/${I}/facet-search`, "search"),
  row("POST", `/indexes/${I}/events`, "search"),
  row("POST", "/multi-search", "search"),
  // Meilisearch's analytics events: a page reports clicks with its search key (the body's indexUid is checked).
  row("POST", "/events", "search"),
  row("GET", "/version", "version"),
  // Indexes.
  row("GET", "/indexes", "indexes.get"),
  row("POST", "/indexes", "indexes.create"),
  row("GET", `/indexes/${I}`, "indexes.get"),
  row("PATCH", `/indexes/${I}`, "indexes.update"),
  row("DELETE", `/indexes/${I}`, "indexes.delete"),
  // An alias is an index name that points at another index; re-pointing one swaps what it serves.
  { method: "PUT", path: "/aliases/:alias", action: "indexes.swap", index: "alias" },
  // Documents.
  row("GET", `/indexes/${I}/documents`, "documents.get"),
  row("POST", `/indexes/${I}/documents/fetch`, "documents.get"),
  row("GET", `/indexes/${I}/documents/:id`, "documents.get"),
  row("POST", `/indexes/${I}/documents`, "documents.add"),
  row("PUT", `/indexes/${I}/documents`, "documents.add"),
  row("DELETE", `/indexes/${I}/documents`, "documents.delete"),
  row("DELETE", `/indexes/${I}/documents/:id`, "documents.delete"),
  row("POST", `/indexes/${I}/documents/delete`, "documents.delete"),
  row("POST", `/indexes/${I}/documents/delete-batch`, "documents.delete"),
  // Settings.
  row("GET", `/indexes/${I}/settings`, "settings.get"),
  row("PATCH", `/indexes/${I}/settings`, "settings.update"),
  row("PUT", `/indexes/${I}/settings`, "settings.update"),
  row("DELETE", `/indexes/${I}/settings`, "settings.update"),
  row("GET", `/indexes/${I}/settings/:setting`, "settings.get"),
  row("PUT", `/indexes/${I}/settings/:setting`, "settings.update"),
  row("PATCH", `/indexes/${I}/settings/:setting`, "settings.update"),
  row("DELETE", `/indexes/${I}/settings/:setting`, "settings.update"),
  // Stats and tasks.
  row("GET", `/indexes/${I}/stats`, "stats.get"),
  row("GET", "/stats", "stats.get"),
  row("GET", "/tasks", "tasks.get"),
  row("GET", "/tasks/:uid", "tasks.get"),
  // Keys, and the account's CORS origins (who may call the API from a browser: as sensitive as keys).
  row("GET", "/keys", "keys.get"),
  row("POST", "/keys", "keys.create"),
  row("GET", "/keys/:key", "keys.get"),
  row("PATCH", "/keys/:key", "keys.update"),
  row("DELETE", "/keys/:key", "keys.delete"),
  row("GET", "/account", "keys.get"),
  row("PATCH", "/account", "keys.update"),
];

/** What a request needs: the action, and the index it touches (null when it names none). */
export interface NeededGrant {
  row: RouteActionRow;
  action: RouteAction;
  index: string | null;
}

const segments = (path: string) => path.split("/").filter((s) => s !== "");

/**
 * The row of `method` + `path` (a request path, `/api/v1/...`), or null when no row matches (the
 * router then answers 404 or 405). A literal segment wins over a parameter (`documents/delete` is
 * not the document `delete`).
 */
export function neededGrant(method: string, path: string): NeededGrant | null {
  if (!path.startsWith(`${ROUTE_BASE}/`)) return null;
  const parts = segments(path.slice(ROUTE_BASE.length));
  let best: { row: RouteActionRow; params: Record<string, string>; literals: number } | null = null;
  for (const candidate of ROUTE_ACTIONS) {
    if (candidate.method !== method) continue;
    const pattern = segments(candidate.path);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    let matches = true;
    for (const [i, p] of pattern.entries()) {
      const part = parts[i] as string;
      if (p.startsWith(":")) params[p.slice(1)] = safeDecode(part);
      else if (p === part) literals++;
      else {
        matches = false;
        break;
      }
    }
    if (matches && (best === null || literals > best.literals)) best = { row: candidate, params, literals };
  }
  if (best === null) return null;
  const index = best.row.index === undefined ? null : (best.params[best.row.index] ?? null);
  return { row: best.row, action: best.row.action, index };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * Which of the account's CORS origin lists applies to a route: `read` (search, events and every
 * GET but the keys and the account: what a shop's page may call) or `write` (everything else).
 */
export const corsClassOf = (needed: Pick<NeededGrant, "action" | "row">): "read" | "write" =>
  needed.action === "search" || (needed.row.method === "GET" && !needed.action.startsWith("keys."))
    ? "read"
    : "write";

/** Meilisearch's 403 message for a key that may not do this (`invalid_api_key`), saying what it lacks. */
export function keyRefusalMessage(action: string, index: string | null, refusal: "action" | "index"): string {
  const what =
    refusal === "action" ? `the action \`${action}\`` : `the index \`${index}\` (for \`${action}\`)`;
  return `The provided API key is invalid: it does not allow ${what}.`;
}

/** The 403 message (`origin_not_allowed`) for a browser's request from an origin the account does not allow. */
export function originRefusalMessage(origin: string, kind: "read" | "write"): string {
  return `the origin ${JSON.stringify(origin.slice(0, 300))} may not call this route from a browser: add it to the account's cors.${kind}Origins (PATCH /api/v1/account)`;
}
