import { AuthThrottle } from "@shared/http";
import { describe, expect, it } from "vitest";
import type { DocumentStore } from "./ports.ts";
import { ADMIN_TOKEN, makeHarness, STACK } from "./test-support/harness.ts";

const configBody = { relevanceTriggerConfig: { modelId: "m", titleField: null, tagsField: null } };

/** Every customer route with a body that would succeed for the owner. */
const customerRoutes = (index: string): [string, string, unknown][] => [
  ["GET", `/api/v1/indexes/${index}`, undefined],
  ["DELETE", `/api/v1/indexes/${index}`, undefined],
  ["POST", `/api/v1/indexes/${index}/documents`, [{ id: "1" }]],
  ["GET", `/api/v1/indexes/${index}/documents`, undefined],
  ["GET", `/api/v1/indexes/${index}/settings`, undefined],
  ["PATCH", `/api/v1/indexes/${index}/settings`, { stopWords: ["the"] }],
];

describe("credentials", () => {
  it("admin routes answer 401 without, with a wrong or a malformed Authorization header", async () => {
    const h = makeHarness();
    const { systemAccountId: account } = await h.account();
    const routes: [string, string, unknown][] = [
      ["POST", "/api/v1/admin/accounts", { name: "x" }],
      ["GET", h.configPath(account, "products"), undefined],
      ["PUT", h.configPath(account, "products"), configBody],
    ];
    const variants: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong-token-0123456789" },
      { authorization: `Bearer ${ADMIN_TOKEN}x` },
      { authorization: ADMIN_TOKEN },
      { authorization: `Basic ${ADMIN_TOKEN}` },
      { "x-api-key": ADMIN_TOKEN },
    ];
    for (const [method, path, body] of routes) {
      for (const headers of variants) {
        const res = await h.call(method, path, body, headers);
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.body.error.code).toBe("unauthorized");
      }
    }
    // A customer's API key is not an admin credential.
    const { apiKey } = await h.account("other");
    expect(
      (await h.call("POST", "/api/v1/admin/accounts", { name: "x" }, { authorization: `Bearer ${apiKey}` }))
        .status,
    ).toBe(401);
    expect(
      (
        await h.call(
          "POST",
          "/api/v1/admin/accounts",
          { name: "x" },
          { authorization: `bearer ${ADMIN_TOKEN}` },
        )
      ).status,
    ).toBe(201);
  });

  it("customer routes answer 401 without or with a wrong x-api-key", async () => {
    // 45 wrong keys from one client: more than the throttle allows, which throttle.test.ts covers.
    const h = makeHarness({
      authThrottle: new AuthThrottle({ maxFailuresPerAddress: 1000, maxFailuresPerPrefix: 1000 }),
    });
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    const routes: [string, string, unknown][] = [
      ["GET", "/api/v1/indexes", undefined],
      ["POST", "/api/v1/indexes", { name: "new" }],
      ["PUT", "/api/v1/aliases/shop", { index: "products" }],
      ...customerRoutes("products"),
    ];
    for (const [method, path, body] of routes) {
      const variants: Record<string, string>[] = [
        {},
        { "x-api-key": "" },
        { "x-api-key": `${apiKey}x` },
        { "x-api-key": `rk_${"A".repeat(43)}` },
        { authorization: `Bearer ${ADMIN_TOKEN}` },
      ];
      for (const headers of variants) {
        const res = await h.call(method, path, body, headers);
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.body.error.code).toBe("unauthorized");
      }
    }
    expect((await h.customer(apiKey, "GET", "/api/v1/indexes/products")).status).toBe(200);
  });
});

describe("isolation between accounts", () => {
  it("another account's index answers 404 on every customer route, exactly like a missing one", async () => {
    const h = makeHarness();
    const owner = await h.account("owner");
    const other = await h.account("other");
    await h.index(owner.apiKey, "products");
    await h.customer(owner.apiKey, "POST", "/api/v1/indexes/products/documents", [{ id: "1" }]);
    const before = await h.table.get(owner.systemAccountId, "INDEX#products");

    for (const [method, path, body] of customerRoutes("products")) {
      const foreign = await h.customer(other.apiKey, method, path, body);
      const missing = await h.customer(other.apiKey, method, path.replace("products", "nothere"), body);
      expect(foreign.status, `${method} ${path}`).toBe(404);
      expect(foreign.body).toEqual(missing.body);
    }
    // Aliases cannot point at another account's index either.
    expect(
      (await h.customer(other.apiKey, "PUT", "/api/v1/aliases/shop", { index: "products" })).status,
    ).toBe(404);
    expect((await h.customer(other.apiKey, "GET", "/api/v1/indexes")).body).toEqual({
      results: [],
      offset: 0,
      limit: 20,
      total: 0,
    });
    // The other account creating the same name gets its own record.
    expect((await h.customer(other.apiKey, "POST", "/api/v1/indexes", { name: "products" })).status).toBe(
      201,
    );

    expect(await h.table.get(owner.systemAccountId, "INDEX#products")).toEqual(before);
    expect(await h.documents.count(owner.systemAccountId, "products")).toBe(1);
  });
});

describe("error bodies", () => {
  it("carry no stack traces and share one shape", async () => {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const replies = [
      await h.call("GET", "/api/v1/indexes"),
      await h.admin("PUT", h.configPath(account, "products"), "{"),
      await h.admin("PUT", h.configPath(account, "products"), { relevanceTriggerConfig: { modelId: 1 } }),
      await h.admin("GET", h.configPath(account, "nope")),
      await h.customer(apiKey, "POST", "/api/v1/indexes", "{"),
      await h.customer(apiKey, "PATCH", "/api/v1/indexes/products/settings", {
        relevanceTriggerConfig: null,
      }),
      await h.customer(apiKey, "POST", "/api/v1/indexes", { name: "products" }),
      await h.call("GET", "/api/v1/no-such-route"),
    ];
    for (const res of replies) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.text).not.toMatch(STACK);
      expect(Object.keys(res.body)).toEqual(["error"]);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
      );
    }
  });

  it("a route that throws answers the generic 500 and logs the cause", async () => {
    const broken: DocumentStore = {
      upsert: async () => {
        throw new Error("disk on fire at /var/lib/documents.db");
      },
      count: async () => {
        throw new TypeError("cannot read properties of undefined (reading 'n')");
      },
      list: async () => [],
      listJson: async function* () {},
      deleteIndex: async () => {},
      revision: async () => 0,
    };
    const h = makeHarness({ documents: broken });
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    for (const [method, path, body] of [
      ["POST", "/api/v1/indexes/products/documents", [{ id: "1" }]],
      ["GET", "/api/v1/indexes/products", undefined],
    ] as const) {
      const res = await h.customer(apiKey, method, path, body);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: "internal", message: "internal error" } });
      expect(res.text).not.toMatch(/disk|reading|TypeError|documents\.db/);
    }
    const errors = h.lines.filter((l) => l.level === "error");
    expect(errors).toHaveLength(2);
    // An upload reads the index's count (its per-index bound) before it writes: that read fails first.
    expect(errors[0]?.fields).toMatchObject({
      method: "POST",
      path: "/api/v1/indexes/products/documents",
      error: "cannot read properties of undefined (reading 'n')",
    });
    expect(String(errors[1]?.fields?.stack)).toMatch(STACK);
  });
});
