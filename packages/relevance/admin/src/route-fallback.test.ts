import { describe, expect, it } from "vitest";
import { createAdminApp } from "./admin-routes.ts";
import { adminHeaders, makeHarness } from "./test-support/harness.ts";

describe("unknown routes and wrong methods", () => {
  it("a path no route serves answers a JSON 404", async () => {
    const h = makeHarness();
    const { apiKey } = await h.account();
    for (const [path, headers] of [
      ["/nothing", {}],
      ["/api/v1/indexes/products/nothing", { "x-api-key": apiKey }],
      ["/api/v1/admin/nothing", adminHeaders],
    ] as const) {
      const res = await h.call("GET", path, undefined, headers);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: { code: "not_found", message: "no such route" } });
    }
  });

  it("a path served for other methods answers a JSON 405 with Allow", async () => {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    const customer = { "x-api-key": apiKey };
    for (const [method, path, headers, allow] of [
      ["PUT", "/api/v1/indexes/products", customer, "DELETE, GET, HEAD"],
      ["DELETE", "/api/v1/indexes", customer, "GET, HEAD, POST"],
      ["PATCH", "/api/v1/indexes/products/documents", customer, "DELETE, GET, HEAD, POST, PUT"],
      ["POST", "/api/v1/indexes/products/settings", customer, "DELETE, GET, HEAD, PATCH"],
      ["PATCH", "/api/v1/indexes/products/settings/stop-words", customer, "DELETE, GET, PUT"],
      ["GET", "/api/v1/aliases/shop", customer, "PUT"],
      ["GET", "/api/v1/admin/accounts", adminHeaders, "POST"],
      ["DELETE", h.configPath(account, "products"), adminHeaders, "GET, HEAD, PUT"],
      ["POST", "/api/v1/openapi.json", {}, "GET, HEAD"],
    ] as const) {
      const res = await h.call(method, path, undefined, headers);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
      expect(res.body.error.code).toBe("method_not_allowed");
      expect(res.body.error.message).toContain(method);
    }
  });

  it("the admin app alone (the Lambda's) answers 405 and 404 the same way", async () => {
    const h = makeHarness();
    const app = createAdminApp(h.deps);
    const wrong = await app.request("/api/v1/admin/accounts", { method: "GET", headers: adminHeaders });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    const missing = await app.request("/api/v1/indexes", { headers: adminHeaders });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: "no such route" } });
  });

  it("without credentials a customer path answers 401, not which methods exist", async () => {
    const h = makeHarness();
    const res = await h.call("PUT", "/api/v1/indexes/products");
    expect(res.status).toBe(401);
    expect(res.headers.get("allow")).toBeNull();
  });
});
