import type { InMemoryRunStore } from "@monitor/core";
import {
  InMemoryCollectorRegistry,
  MAX_ACCOUNT_ID_CHARS,
  MAX_ACCOUNT_NAME_CHARS,
  MAX_COLLECTOR_NAME_CHARS,
  MAX_REGION_CHARS,
  MAX_RUN_BATCH,
  MAX_RUN_ERROR_CHARS,
} from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, openMemoryStore, runAt, TOKEN } from "./test-support.ts";

// Real chDB on a temp folder of this file: "nothing written" is read back from the store itself.
let store: InMemoryRunStore;
let cleanup: () => Promise<void>;
const NOW = Math.floor(Date.now() / MIN) * MIN;

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-api-limits-");
  store = t.store;
  cleanup = t.cleanup;
});

afterAll(async () => {
  await cleanup();
});

const runsOf = async (collector: string) =>
  (await store.latestRunPerCollector()).filter((r) => r.collector === collector).length;

describe("POST /api/system/runs: a field beyond its bound is a 422 naming the field and the limit; nothing is stored", () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    [
      "collector",
      { collector: "x".repeat(MAX_COLLECTOR_NAME_CHARS + 1) },
      "[0].collector",
      `at most ${MAX_COLLECTOR_NAME_CHARS} characters`,
    ],
    [
      "cloud_account_id",
      { cloud_account_id: "1".repeat(MAX_ACCOUNT_ID_CHARS + 1) },
      "[0].cloud_account_id",
      `at most ${MAX_ACCOUNT_ID_CHARS} characters`,
    ],
    [
      "cloud_region",
      { cloud_region: "r".repeat(MAX_REGION_CHARS + 1) },
      "[0].cloud_region",
      `at most ${MAX_REGION_CHARS} characters`,
    ],
    [
      "error",
      { error: "e".repeat(MAX_RUN_ERROR_CHARS + 1) },
      "[0].error",
      `at most ${MAX_RUN_ERROR_CHARS} characters`,
    ],
    ["collector charset", { collector: "<script>" }, "[0].collector", "letters, digits"],
  ])("%s", async (_name, patch, path, message) => {
    const app = makeApp({ store });
    const collector = `lim_${_name.replace(/\W/g, "_")}`;
    const r = await call(app, "POST", "/api/system/runs", {
      body: [runAt(NOW, { collector, ...patch }), runAt(NOW, { collector })],
    });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.details).toContainEqual({ path, message: expect.stringContaining(message) });
    expect(await runsOf(collector)).toBe(0);
  });

  it(`a batch of ${MAX_RUN_BATCH + 1} records is refused whole`, async () => {
    const app = makeApp({ store });
    const batch = Array.from({ length: MAX_RUN_BATCH + 1 }, () => runAt(NOW, { collector: "lim_batch" }));
    const r = await call(app, "POST", "/api/system/runs", { body: batch });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([
      { path: "", message: `must hold at most ${MAX_RUN_BATCH} run records (got ${MAX_RUN_BATCH + 1})` },
    ]);
    expect(await runsOf("lim_batch")).toBe(0);
  });

  it("a __proto__, constructor or prototype key anywhere is a 422 naming its path", async () => {
    const app = makeApp({ store });
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const raw = `[${JSON.stringify(runAt(NOW, { collector: "lim_proto" })).replace(/}$/, `,"${key}":{"polluted":true}}`)}]`;
      const r = await call(app, "POST", "/api/system/runs", { raw });
      expect(r.status).toBe(422);
      expect(r.body.error.details).toEqual([
        { path: `[0].${key}`, message: `the key "${key}" is not allowed` },
      ]);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await runsOf("lim_proto")).toBe(0);
  });

  it("JSON nested deeper than 32 levels is a 422", async () => {
    const app = makeApp({ store });
    const raw = `${"[".repeat(40)}${"]".repeat(40)}`;
    const r = await call(app, "POST", "/api/system/runs", { raw });
    expect(r.status).toBe(422);
    expect(r.body.error.details[0].message).toContain("32 levels");
  });

  it("a body over the configured limit is refused from Content-Length before it is read", async () => {
    const app = makeApp({ store, maxBodyBytes: 100 });
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode("x".repeat(100)));
        if (pulled > 3) controller.close();
      },
    });
    const res = await app.request("/api/system/runs", {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        "content-length": "400",
      },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(1);
  });
});

describe("PUT /api/system/accounts/{account_id} and /collectors/{name}: bounded fields", () => {
  it("an account id, account name or collector name beyond its bound is a 422; nothing is written", async () => {
    const registry = new InMemoryCollectorRegistry();
    const app = makeApp({ store, registry });
    const longId = "1".repeat(MAX_ACCOUNT_ID_CHARS + 1);
    const a = await call(app, "PUT", `/api/system/accounts/${longId}`, {
      body: { account_name: "prod", svc_status: "active" },
    });
    expect(a.status).toBe(422);
    expect(a.body.error.details).toEqual([
      { path: "account_id", message: `must be at most ${MAX_ACCOUNT_ID_CHARS} characters` },
    ]);
    const n = await call(app, "PUT", "/api/system/accounts/lim-acct", {
      body: { account_name: "n".repeat(MAX_ACCOUNT_NAME_CHARS + 1), svc_status: "active" },
    });
    expect(n.status).toBe(422);
    expect(n.body.error.details).toEqual([
      { path: "account_name", message: `must be at most ${MAX_ACCOUNT_NAME_CHARS} characters` },
    ]);
    const ids = (await store.accountsLatest()).map((x) => x.account_id);
    expect(ids).not.toContain(longId);
    expect(ids).not.toContain("lim-acct");

    const longName = "c".repeat(MAX_COLLECTOR_NAME_CHARS + 1);
    const c = await call(app, "PUT", `/api/system/collectors/${longName}`, {
      body: { expected_interval_minutes: 5 },
    });
    expect(c.status).toBe(422);
    expect(c.body.error.details).toEqual([
      { path: "name", message: `must be at most ${MAX_COLLECTOR_NAME_CHARS} characters` },
    ]);
    const m = await call(app, "PUT", "/api/system/collectors/lim_c", {
      body: { expected_interval_minutes: 10_000_000 },
    });
    expect(m.status).toBe(422);
    expect(m.body.error.details[0].path).toBe("expected_interval_minutes");
    expect(await registry.get(longName)).toBeNull();
    expect(await registry.get("lim_c")).toBeNull();
  });

  it("a __proto__ key in an account body is a 422, not a copied property", async () => {
    const app = makeApp({ store });
    const r = await call(app, "PUT", "/api/system/accounts/lim-proto", {
      raw: '{"account_name":"p","svc_status":"active","__proto__":{"account_name":"x"}}',
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([
      { path: "__proto__", message: 'the key "__proto__" is not allowed' },
    ]);
  });
});

describe("unknown routes and wrong methods", () => {
  it("a wrong method on a known route is a JSON 405 with Allow", async () => {
    const app = makeApp({ store });
    const r = await app.request("/api/system/runs", {
      method: "PUT",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(await r.json()).toEqual({
      error: { code: "method_not_allowed", message: "PUT is not allowed here; use GET or HEAD or POST" },
    });
    const d = await app.request("/api/system/collectors/x", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(d.status).toBe(405);
    expect(d.headers.get("allow")).toBe("DELETE, PUT");
    const h = await app.request("/healthz", { method: "POST" });
    expect(h.status).toBe(405);
    expect(h.headers.get("allow")).toBe("GET, HEAD");
  });

  it("an unknown path is a JSON 404 (behind the token under /api/system)", async () => {
    const app = makeApp({ store });
    const open = await app.request("/nope");
    expect(open.status).toBe(404);
    expect(await open.json()).toEqual({ error: { code: "not_found", message: "no such route" } });
    expect((await app.request("/api/system/nope")).status).toBe(401);
    const r = await call(app, "GET", "/api/system/nope");
    expect(r).toEqual({ status: 404, body: { error: { code: "not_found", message: "no such route" } } });
  });
});
