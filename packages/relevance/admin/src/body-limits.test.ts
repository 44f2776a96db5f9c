// Every route with a body has a size limit, checked before the body is parsed: from Content-Length
// before reading, or while reading a body without one. Beyond it: a JSON 413 naming the limit,
// nothing written, and the next request served as usual.

import { describe, expect, it } from "vitest";
import { SETTING_ROUTES } from "./customer/setting-routes.ts";
import { adminHeaders, type Harness, makeHarness } from "./test-support/harness.ts";

const SMALL = { jsonBodyBytes: 2000, documentsBodyBytes: 6000 };

/** A JSON body of exactly `bytes` bytes: a string padded to fill it. */
const bodyOf = (bytes: number) => JSON.stringify({ pad: "x".repeat(bytes - 10) });

/** A body that never ends, in 1 KiB chunks, with no Content-Length; `pulled` says how much was read. */
function endless() {
  const chunk = new TextEncoder().encode(`[${" ".repeat(1022)}`);
  const state = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { stream, state };
}

async function writeRoutes(h: Harness) {
  const { systemAccountId: account, apiKey } = await h.account();
  await h.index(apiKey, "products");
  const customer = { "x-api-key": apiKey };
  return {
    account,
    apiKey,
    routes: [
      ["POST", "/api/v1/admin/accounts", adminHeaders, SMALL.jsonBodyBytes],
      ["PUT", h.configPath(account, "products"), adminHeaders, SMALL.jsonBodyBytes],
      [
        "PUT",
        `/api/v1/admin/accounts/${account}/indexes/products/relevance-recording-config`,
        adminHeaders,
        SMALL.jsonBodyBytes,
      ],
      [
        "PUT",
        `/api/v1/admin/accounts/${account}/indexes/products/relevance-shadow-config`,
        adminHeaders,
        SMALL.jsonBodyBytes,
      ],
      [
        "PUT",
        `/api/v1/admin/accounts/${account}/indexes/products/relevance-canary-config`,
        adminHeaders,
        SMALL.jsonBodyBytes,
      ],
      ["POST", "/api/v1/indexes", customer, SMALL.jsonBodyBytes],
      ["PATCH", "/api/v1/indexes/products/settings", customer, SMALL.jsonBodyBytes],
      ["PUT", "/api/v1/aliases/shop", customer, SMALL.jsonBodyBytes],
      ["POST", "/api/v1/indexes/products/documents", customer, SMALL.documentsBodyBytes],
      ["POST", "/api/v1/keys", customer, SMALL.jsonBodyBytes],
      ["PATCH", "/api/v1/keys/00000000-0000-4000-8000-000000000000", customer, SMALL.jsonBodyBytes],
      ["PATCH", "/api/v1/account", customer, SMALL.jsonBodyBytes],
      ["POST", `/api/v1/admin/accounts/${account}/keys`, adminHeaders, SMALL.jsonBodyBytes],
      [
        "PATCH",
        `/api/v1/admin/accounts/${account}/keys/00000000-0000-4000-8000-000000000000`,
        adminHeaders,
        SMALL.jsonBodyBytes,
      ],
      ["PATCH", `/api/v1/admin/accounts/${account}`, adminHeaders, SMALL.jsonBodyBytes],
      ["PUT", "/api/v1/indexes/products/documents", customer, SMALL.documentsBodyBytes],
      ["POST", "/api/v1/indexes/products/documents/fetch", customer, SMALL.jsonBodyBytes],
      ["POST", "/api/v1/indexes/products/documents/delete-batch", customer, SMALL.jsonBodyBytes],
      ["POST", "/api/v1/indexes/products/documents/delete", customer, SMALL.jsonBodyBytes],
      ...Object.entries(SETTING_ROUTES).map(
        ([setting, { method }]) =>
          [
            method.toUpperCase() as "PUT" | "PATCH",
            `/api/v1/indexes/products/settings/${setting}`,
            customer,
            SMALL.jsonBodyBytes,
          ] as const,
      ),
    ] as const,
  };
}

describe("body limits", () => {
  it("every write route answers a body one byte over its limit with a JSON 413 naming the limit, and writes nothing", async () => {
    const h = makeHarness({ limits: SMALL });
    const { routes } = await writeRoutes(h);
    const before = h.dump();
    for (const [method, path, headers, limit] of routes) {
      const res = await h.call(method, path, bodyOf(limit + 1), headers);
      expect(res.status, `${method} ${path}`).toBe(413);
      expect(res.body).toEqual({
        error: {
          code: "payload_too_large",
          message: expect.stringContaining(`limit of ${limit} bytes`),
          details: [{ path: "body", message: `must be at most ${limit} bytes` }],
        },
      });
      // At the limit the body is read and judged on its content (here: an unknown field).
      const atLimit = await h.call(method, path, bodyOf(limit), headers);
      expect(atLimit.status, `${method} ${path} at the limit`).toBeGreaterThanOrEqual(400);
      expect(atLimit.status).not.toBe(413);
    }
    expect(h.dump()).toEqual(before);
  });

  it("every route the OpenAPI document gives a body is one of the routes above (no write route without a limit)", async () => {
    const h = makeHarness();
    const doc = (await h.call("GET", "/api/v1/openapi.json")).body;
    const withBody = Object.entries(doc.paths as Record<string, Record<string, { requestBody?: unknown }>>)
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => typeof op === "object" && op !== null && "requestBody" in op)
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    expect(withBody).toEqual(
      [
        "POST /api/v1/admin/accounts",
        "PUT /api/v1/admin/accounts/{id}/indexes/{index}/relevance-trigger-config",
        "PUT /api/v1/admin/accounts/{id}/indexes/{index}/relevance-recording-config",
        "PUT /api/v1/admin/accounts/{id}/indexes/{index}/relevance-shadow-config",
        "PUT /api/v1/admin/accounts/{id}/indexes/{index}/relevance-canary-config",
        "POST /api/v1/indexes",
        "PATCH /api/v1/indexes/{name}/settings",
        "PUT /api/v1/aliases/{alias}",
        "POST /api/v1/indexes/{name}/documents",
        "POST /api/v1/keys",
        "PATCH /api/v1/keys/{key}",
        "PATCH /api/v1/account",
        "POST /api/v1/admin/accounts/{id}/keys",
        "PATCH /api/v1/admin/accounts/{id}/keys/{key}",
        "PATCH /api/v1/admin/accounts/{id}",
        "PUT /api/v1/indexes/{name}/documents",
        "POST /api/v1/indexes/{name}/documents/fetch",
        "POST /api/v1/indexes/{name}/documents/delete-batch",
        "POST /api/v1/indexes/{name}/documents/delete",
        ...Object.entries(SETTING_ROUTES).map(
          ([setting, { method }]) => `${method.toUpperCase()} /api/v1/indexes/{name}/settings/${setting}`,
        ),
      ].sort(),
    );
  });

  it("refuses a declared Content-Length over the default 1 MiB and 20 MiB before reading a byte", async () => {
    const h = makeHarness();
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    for (const [path, headers, declared] of [
      ["/api/v1/admin/accounts", adminHeaders, 1024 * 1024 + 1],
      ["/api/v1/indexes", { "x-api-key": apiKey }, 1024 * 1024 + 1],
      ["/api/v1/indexes/products/documents", { "x-api-key": apiKey }, 20 * 1024 * 1024 + 1],
    ] as const) {
      const { stream, state } = endless();
      const res = await h.app.request(path, {
        method: "POST",
        headers: { ...headers, "content-length": String(declared) },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(res.status, path).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
      // Only what the stream queues up on its own before anyone reads it.
      expect(state.pulled, path).toBeLessThanOrEqual(1024);
    }
  });

  it("stops reading a body without Content-Length at the limit, so an endless upload costs no more than the limit", async () => {
    const h = makeHarness({ limits: SMALL });
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    for (const [path, limit] of [
      ["/api/v1/indexes/products/settings", SMALL.jsonBodyBytes],
      ["/api/v1/indexes/products/documents", SMALL.documentsBodyBytes],
    ] as const) {
      const { stream, state } = endless();
      const res = await h.app.request(path, {
        method: path.endsWith("settings") ? "PATCH" : "POST",
        headers: { "x-api-key": apiKey },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(res.status, path).toBe(413);
      expect(state.pulled, path).toBeLessThanOrEqual(limit + 2 * 1024);
    }
    // The next request is served as usual.
    const next = await h.customer(apiKey, "PATCH", "/api/v1/indexes/products/settings", {
      stopWords: ["the"],
    });
    expect(next.status).toBe(200);
  });

  it("an unauthenticated client gets 401 before its body is read", async () => {
    const h = makeHarness({ limits: SMALL });
    const { stream, state } = endless();
    const res = await h.app.request("/api/v1/indexes", {
      method: "POST",
      headers: { "x-api-key": "rk_wrong" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(401);
    expect(state.pulled).toBeLessThanOrEqual(1024);
  });

  it("a limit that is not a positive whole number of bytes fails the start, naming the option", () => {
    expect(() => makeHarness({ limits: { jsonBodyBytes: 0 } })).toThrow(
      "limits.jsonBodyBytes must be a positive whole number of bytes, got 0",
    );
    expect(() => makeHarness({ limits: { documentsBodyBytes: 1.5 } })).toThrow(/limits.documentsBodyBytes/);
  });
});
