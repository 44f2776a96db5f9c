// Keys named __proto__, constructor or prototype in any body are refused with a 422 naming their
// path, never dropped silently (JSON.parse makes "__proto__" an own key, which a copy or a schema
// library would turn into a prototype change or lose), and nothing is written.
import { describe, expect, it } from "vitest";
import { adminHeaders, makeHarness } from "./test-support/harness.ts";

describe("forbidden keys", () => {
  it("every JSON route refuses them with 422 naming the path, and writes nothing", async () => {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const customer = { "x-api-key": apiKey };
    const before = h.dump();
    const cases: [string, string, Record<string, string>, string, string][] = [
      [
        "POST",
        "/api/v1/admin/accounts",
        adminHeaders,
        '{"name":"x","__proto__":{"admin":true}}',
        "__proto__",
      ],
      [
        "PUT",
        h.configPath(account, "products"),
        adminHeaders,
        '{"relevanceTriggerConfig":{"modelId":"m","titleField":null,"tagsField":null,"constructor":1}}',
        "relevanceTriggerConfig.constructor",
      ],
      ["POST", "/api/v1/indexes", customer, '{"name":"books","prototype":null}', "prototype"],
      [
        "PATCH",
        "/api/v1/indexes/products/settings",
        customer,
        '{"synonyms":{"tv":["television"],"__proto__":["polluted"]}}',
        "synonyms.__proto__",
      ],
      [
        "PATCH",
        "/api/v1/indexes/products/settings",
        customer,
        '{"synonyms":{"constructor":["x"]}}',
        "synonyms.constructor",
      ],
      ["PUT", "/api/v1/aliases/shop", customer, '{"index":"products","__proto__":{}}', "__proto__"],
    ];
    for (const [method, path, headers, text, at] of cases) {
      const res = await h.call(method, path, text, headers);
      expect(res.status, text).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.details).toContainEqual({
        path: at,
        message: expect.stringContaining("not allowed"),
      });
    }
    expect(h.dump()).toEqual(before);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it("a documents upload with one anywhere in a document is refused whole, naming the place", async () => {
    const h = makeHarness();
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    const before = h.dump();
    const res = await h.customer(
      apiKey,
      "POST",
      "/api/v1/indexes/products/documents",
      '[{"id":"a"},{"id":"b","variants":[{"sku":"1","__proto__":{"x":1}}]},{"id":"c","constructor":"y"}]',
    );
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: "[1].variants[0].__proto__", message: 'the key "__proto__" is not allowed' },
      { path: "[2].constructor", message: 'the key "constructor" is not allowed' },
    ]);
    expect(h.dump()).toEqual(before);
  });

  it("a path naming a huge key is shortened in the answer, keeping the key at its end", async () => {
    const h = makeHarness();
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    const long = "k".repeat(100_000);
    const res = await h.customer(
      apiKey,
      "PATCH",
      "/api/v1/indexes/products/settings",
      `{"synonyms":{"${long}":{"a":{"__proto__":1},"b":{"__proto__":1}}}}`,
    );
    expect(res.status).toBe(422);
    expect(res.text.length).toBeLessThan(2000);
    for (const d of res.body.error.details) expect(d.path).toMatch(/^synonyms\.k+…k+\.[ab]\.__proto__$/);
  });
});
