// CORS on the customer API: preflights answered before authentication, every answer readable by
// the page, and the account's origins enforced after authentication, before any write.
import { CORS_ALLOW_HEADERS } from "@shared/http";
import { describe, expect, it } from "vitest";
import { MAX_CORS_ORIGINS } from "./key-limits.ts";
import { makeHarness } from "./test-support/harness.ts";

const SHOP = "https://shop.example";
const OTHER = "https://elsewhere.example";

describe("CORS on the customer API", () => {
  it("answers a preflight 204 without a key, reading nothing, with the origin, methods, headers and max-age", async () => {
    const h = makeHarness();
    const reads: string[] = [];
    const get = h.table.get.bind(h.table);
    h.table.get = async (pk, sk) => {
      reads.push(`${pk}/${sk}`);
      return get(pk, sk);
    };
    const res = await h.call("OPTIONS", "/api/v1/indexes/products/documents", undefined, {
      origin: SHOP,
      "access-control-request-method": "POST",
      "access-control-request-headers": "x-api-key, content-type, x-meilisearch-client",
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(res.headers.get("access-control-allow-methods")).toContain("DELETE");
    const allowed = res.headers.get("access-control-allow-headers")?.split(", ");
    for (const header of [
      "x-api-key",
      "authorization",
      "content-type",
      "x-meilisearch-client",
      "x-ms-user-id",
    ])
      expect(allowed).toContain(header);
    expect(allowed).toEqual(CORS_ALLOW_HEADERS);
    expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
    expect(reads).toEqual([]);
  });

  it("errors carry Access-Control-Allow-Origin, so a page can read a 401, 403 or 404", async () => {
    const h = makeHarness();
    const { apiKey, searchApiKey } = await h.account();
    const noKey = await h.call("GET", "/api/v1/indexes", undefined, { origin: SHOP });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("access-control-allow-origin")).toBe(SHOP);
    const forbidden = await h.call(
      "POST",
      "/api/v1/indexes",
      { name: "p" },
      { origin: SHOP, "x-api-key": searchApiKey },
    );
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("access-control-allow-origin")).toBe(SHOP);
    const missing = await h.call("GET", "/api/v1/indexes/none", undefined, {
      origin: SHOP,
      "x-api-key": apiKey,
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("access-control-allow-origin")).toBe(SHOP);
    // The admin API is for operators: no CORS there.
    const admin = await h.call("OPTIONS", "/api/v1/admin/accounts", undefined, {
      origin: SHOP,
      "access-control-request-method": "POST",
    });
    expect(admin.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("by default any origin may read and none may write (403 origin_not_allowed, nothing written); the account's lists change that", async () => {
    const h = makeHarness();
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    const read = await h.call("GET", "/api/v1/indexes/products", undefined, {
      origin: OTHER,
      "x-api-key": apiKey,
    });
    expect(read.status).toBe(200);
    const before = h.dump();
    const write = await h.call(
      "POST",
      "/api/v1/indexes",
      { name: "blog" },
      { origin: SHOP, "x-api-key": apiKey },
    );
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe("origin_not_allowed");
    expect(h.dump()).toEqual(before);
    // Without an Origin (a server, the CLI) the origin lists do not apply.
    expect((await h.customer(apiKey, "POST", "/api/v1/indexes", { name: "blog" })).status).toBe(201);

    expect((await h.customer(apiKey, "GET", "/api/v1/account")).body).toEqual({
      systemAccountId: expect.any(String),
      cors: { readOrigins: ["*"], writeOrigins: [] },
    });
    const patched = await h.customer(apiKey, "PATCH", "/api/v1/account", {
      cors: { readOrigins: [SHOP], writeOrigins: [SHOP] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.cors).toEqual({ readOrigins: [SHOP], writeOrigins: [SHOP] });
    expect(
      (await h.call("POST", "/api/v1/indexes", { name: "news" }, { origin: SHOP, "x-api-key": apiKey }))
        .status,
    ).toBe(201);
    const elsewhere = await h.call("GET", "/api/v1/indexes", undefined, {
      origin: OTHER,
      "x-api-key": apiKey,
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error.code).toBe("origin_not_allowed");
  });

  it("origin lists are bounded and must be origins: 422 naming the field, nothing written", async () => {
    const h = makeHarness();
    const { apiKey, systemAccountId } = await h.account();
    const before = h.dump();
    const cases: [unknown, string][] = [
      [
        { readOrigins: Array.from({ length: MAX_CORS_ORIGINS + 1 }, (_, i) => `https://s${i}.example`) },
        "cors.readOrigins",
      ],
      [{ writeOrigins: [`https://${"a".repeat(250)}.example`] }, "cors.writeOrigins[0]"],
      [{ writeOrigins: ["https://shop.example/path"] }, "cors.writeOrigins[0]"],
      [{ readOrigins: ["https://Shop.example"] }, "cors.readOrigins[0]"],
    ];
    for (const [cors, field] of cases) {
      const res = await h.customer(apiKey, "PATCH", "/api/v1/account", { cors });
      expect(res.status, field).toBe(422);
      expect(res.body.error.details[0].path, field).toBe(field);
      const admin = await h.admin("PATCH", `/api/v1/admin/accounts/${systemAccountId}`, { cors });
      expect(admin.status, field).toBe(422);
    }
    expect(h.dump()).toEqual(before);
  });

  it("the account's CORS item is exported to KV for the edge", async () => {
    const h = makeHarness();
    const { apiKey, systemAccountId } = await h.account();
    await h.customer(apiKey, "PATCH", "/api/v1/account", { cors: { writeOrigins: [SHOP] } });
    await h.drain();
    expect(JSON.parse((await h.kv.get(`cors:${systemAccountId}`)) as string)).toMatchObject({
      read_origins: ["*"],
      write_origins: [SHOP],
    });
  });
});
