import { describe, expect, it } from "vitest";
import { allowsAction, allowsIndex, grantOf, grantRefusal, isExpired } from "./api-keys.ts";
import { corsClassOf, neededGrant, ROUTE_ACTIONS } from "./route-actions.ts";

const grant = (actions: string[], indexes: string[] = ["*"], expiresAt: string | null = null) => ({
  uid: "u",
  actions,
  indexes,
  expiresAt,
});

describe("API key grants", () => {
  it("an APIKEY item without actions (a key made before scopes) may do everything on every index", () => {
    const legacy = grantOf({ system_account_id: "acct_000000000001", created_at: "2026-01-01T00:00:00Z" });
    expect(legacy).toEqual({ uid: null, actions: ["*"], indexes: ["*"], expiresAt: null });
    for (const row of ROUTE_ACTIONS) expect(allowsAction(legacy, row.action), row.path).toBe(true);
  });

  it("an action is allowed by itself, by its family's wildcard or by *, and by nothing else", () => {
    expect(allowsAction(grant(["documents.add"]), "documents.add")).toBe(true);
    expect(allowsAction(grant(["documents.*"]), "documents.delete")).toBe(true);
    expect(allowsAction(grant(["*"]), "keys.create")).toBe(true);
    expect(allowsAction(grant(["search"]), "documents.add")).toBe(false);
    expect(allowsAction(grant(["documents.*"]), "search")).toBe(false);
    expect(allowsAction(grant(["indexes.*"]), "documents.get")).toBe(false);
  });

  it("indexes are names, prefix* patterns or *", () => {
    expect(allowsIndex(grant([], ["products"]), "products")).toBe(true);
    expect(allowsIndex(grant([], ["products"]), "products2")).toBe(false);
    expect(allowsIndex(grant([], ["prod*"]), "products2")).toBe(true);
    expect(allowsIndex(grant([], ["prod*"]), "pro")).toBe(false);
    expect(allowsIndex(grant([], ["*"]), "anything")).toBe(true);
    expect(grantRefusal(grant(["search"], ["movies"]), "search", "products")).toBe("index");
    expect(grantRefusal(grant(["search"], ["movies"]), "documents.add", "movies")).toBe("action");
    expect(grantRefusal(grant(["search"], ["movies"]), "search", "movies")).toBeNull();
  });

  it("a key expires at its expiresAt instant, on the clock it is given; an unreadable date fails closed", () => {
    const at = Date.parse("2026-06-01T00:00:00Z");
    const g = grant(["*"], ["*"], "2026-06-01T00:00:00Z");
    expect(isExpired(g, at - 1)).toBe(false);
    expect(isExpired(g, at)).toBe(true);
    expect(isExpired(grant(["*"], ["*"], "not a date"), 0)).toBe(true);
    expect(isExpired(grant(["*"]), Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe("the route-action table", () => {
  it("names the action and the index of a request, literal segments before parameters", () => {
    expect(neededGrant("POST", "/api/v1/indexes/products/search")).toMatchObject({
      action: "search",
      index: "products",
    });
    expect(neededGrant("POST", "/api/v1/indexes/products/documents/delete")).toMatchObject({
      action: "documents.delete",
      index: "products",
    });
    expect(neededGrant("POST", "/api/v1/indexes/products/documents/fetch")?.action).toBe("documents.get");
    expect(neededGrant("GET", "/api/v1/indexes/products/documents/delete")?.action).toBe("documents.get");
    expect(neededGrant("PUT", "/api/v1/aliases/shop")).toMatchObject({
      action: "indexes.swap",
      index: "shop",
    });
    expect(neededGrant("POST", "/api/v1/multi-search")).toMatchObject({ action: "search", index: null });
    expect(neededGrant("DELETE", "/api/v1/keys/abc")?.action).toBe("keys.delete");
    expect(neededGrant("PATCH", "/api/v1/indexes/products/documents")).toBeNull();
    expect(neededGrant("GET", "/api/v1/admin/accounts")).toBeNull();
    expect(neededGrant("GET", "/healthz")).toBeNull();
  });

  it("has one row per method and path", () => {
    const seen = ROUTE_ACTIONS.map((r) => `${r.method} ${r.path}`);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("search, events and reads are the read class for CORS; writes, keys and the account are the write class", () => {
    const cls = (m: string, p: string) => {
      const needed = neededGrant(m, p);
      if (needed === null) throw new Error(`${m} ${p}`);
      return corsClassOf(needed);
    };
    expect(cls("POST", "/api/v1/indexes/p/search")).toBe("read");
    expect(cls("POST", "/api/v1/indexes/p/events")).toBe("read");
    expect(cls("POST", "/api/v1/multi-search")).toBe("read");
    expect(cls("GET", "/api/v1/indexes/p/documents")).toBe("read");
    expect(cls("POST", "/api/v1/indexes/p/documents")).toBe("write");
    expect(cls("GET", "/api/v1/keys")).toBe("write");
    expect(cls("GET", "/api/v1/account")).toBe("write");
  });
});
