// API keys and the account's CORS origins: one case per bound of docs/limits.md (their rows live in
// @relevance/admin's key-limits.ts). Node only: the Worker serves search, not key management.

import { ADMIN_LIMITS } from "@relevance/admin";
import type { HostileCase, HostileContext, HostileRequest } from "./catalogue.ts";
import { limitOf } from "./catalogue.ts";

const K = (field: string, unit: Parameters<typeof limitOf>[3]) =>
  limitOf(ADMIN_LIMITS, "customer", field, unit);
const node = ["node"] as const;
const invalid = (path: string) => ({ status: 422, code: "validation_failed", path });

const post =
  (path: string, method = "POST") =>
  (body: (ctx: HostileContext) => unknown, times = 1) =>
  (ctx: HostileContext): HostileRequest[] =>
    Array.from({ length: times }, () => ({
      method,
      path,
      headers: { "content-type": "application/json", "x-api-key": ctx.apiKey },
      body: JSON.stringify(body(ctx)),
    }));
const newKey = post("/api/v1/keys");
const patchAccount = post("/api/v1/account", "PATCH");
const key = (fields: Record<string, unknown>) => () => ({
  actions: ["search"],
  indexes: ["*"],
  expiresAt: null,
  ...fields,
});

export const KEY_CASES: HostileCase[] = [
  {
    id: "keys-name",
    proves: "limit: a key's name",
    surfaces: node,
    requests: newKey(key({ name: "n".repeat(K("keys.name", "characters") + 1) })),
    expect: invalid("name"),
  },
  {
    id: "keys-description",
    proves: "limit: a key's description",
    surfaces: node,
    requests: newKey(key({ description: "d".repeat(K("keys.description", "characters") + 1) })),
    expect: invalid("description"),
  },
  {
    id: "keys-indexes-count",
    proves: "limit: index patterns of a key",
    surfaces: node,
    requests: newKey(
      key({ indexes: Array.from({ length: K("keys.indexes", "items") + 1 }, (_, i) => `i${i}`) }),
    ),
    expect: invalid("indexes"),
  },
  {
    id: "keys-index-pattern",
    proves: "limit: one index pattern of a key",
    surfaces: node,
    requests: newKey(key({ indexes: [`${"a".repeat(K("keys.indexes[]", "characters"))}*`] })),
    expect: invalid("indexes[0]"),
  },
  {
    id: "keys-actions-count",
    proves: "limit: actions of a key",
    surfaces: node,
    requests: newKey(
      key({ actions: Array.from({ length: K("keys.actions", "items") + 1 }, () => "search") }),
    ),
    expect: invalid("actions"),
  },
  {
    id: "keys-page-limit",
    proves: "limit: keys per GET /keys page",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "GET",
        path: `/api/v1/keys?limit=${K("keys.limit", "items") + 1}`,
        headers: { "x-api-key": ctx.apiKey },
      },
    ],
    expect: invalid("limit"),
  },
  {
    id: "keys-per-account",
    proves: "limit: API keys per account (the last creation beyond it)",
    surfaces: node,
    // Enough creations to reach the bound from the two default keys, then one more.
    requests: newKey(key({ name: "hostile" }), K("keys", "items") - 1),
    expect: invalid("keys"),
  },
  {
    id: "cors-origins-count",
    proves: "limit: origins in each of the account's CORS lists",
    surfaces: node,
    requests: patchAccount(() => ({
      cors: {
        readOrigins: Array.from(
          { length: K("cors.readOrigins", "items") + 1 },
          (_, i) => `https://s${i}.example`,
        ),
      },
    })),
    expect: invalid("cors.readOrigins"),
  },
  {
    id: "cors-origin-length",
    proves: "limit: one origin of the account's CORS lists",
    surfaces: node,
    requests: patchAccount(() => ({
      cors: { writeOrigins: [`https://${"a".repeat(K("cors.readOrigins[]", "characters"))}.example`] },
    })),
    expect: invalid("cors.writeOrigins[0]"),
  },
];
