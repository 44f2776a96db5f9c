// {env}-CustomerApi end to end as deployed, with what cannot run here replaced by local stand-ins:
// DynamoDB is dynalite (the real AWS SDK against a DynamoDB API server), Workers KV is the LOCAL
// DOUBLE of Cloudflare's REST API, Meilisearch is the LOCAL DOUBLE of its HTTP API, and the settings
// table's stream is a pump that diffs the table and feeds each change, as a NEW_AND_OLD_IMAGES stream
// record, to the exporter's own logic (the KV copy and the engine's settings).

import type { AddressInfo } from "node:net";
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import { serve } from "@hono/node-server";
import { createAdminApp, LAMBDA_MAX_RESPONSE_BYTES } from "@relevance/admin";
import { officialClientCalls } from "@relevance/admin/test-support/official-client";
import { type SyncOutcome, syncIndexSettings } from "@relevance/search";
import { MeilisearchIndexManager } from "@relevance/search/meilisearch";
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "@relevance/search/meilisearch/test-support";
import { type Change, exportChange, type Logger } from "@relevance/settings";
import { CloudflareRestKv } from "@relevance/settings/cloudflare-rest";
import { changeFromStreamRecord, DynamoSettingsTable } from "@relevance/settings/dynamodb";
import {
  CloudflareApiDouble,
  DOUBLE_ACCOUNT,
  DOUBLE_TOKEN,
} from "@relevance/settings/test-support/cloudflare-api-double";
import { type DynaliteServer, startDynalite } from "@relevance/settings/test-support/dynalite";
import { undocumentedRoutes } from "@shared/http";
import { apiGatewayEvent } from "@shared/http/test-support/api-gateway-event";
import type { LambdaEvent } from "hono/aws-lambda";
import { Meilisearch } from "meilisearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCustomerApi, customerApiDocument } from "./app.ts";
import { createHandler, customerEnvProblems, depsFromEnv, handler } from "./handler.ts";

const ADMIN_TOKEN = "admin-token-for-the-customer-lambda-test";
const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

let dynalite: DynaliteServer;
let tableName: string;
let table: DynamoSettingsTable;
let meili: MeilisearchDouble;
const cloudflare = new CloudflareApiDouble();
let namespace: string;
let env: Record<string, string>;

beforeAll(async () => {
  [dynalite, meili] = await Promise.all([startDynalite(), startMeilisearchDouble(), cloudflare.start()]).then(
    ([d, m]) => [d, m] as const,
  );
  tableName = await dynalite.createSettingsTable();
  table = new DynamoSettingsTable({ client: dynalite.client, tableName });
  namespace = cloudflare.newNamespace();
  env = {
    ENV: "prod",
    CLOUDFLARE_ACCOUNT_ID: DOUBLE_ACCOUNT,
    KV_NAMESPACE_ID: namespace,
    CLOUDFLARE_API_TOKEN: DOUBLE_TOKEN,
    MEILISEARCH_URL: meili.url,
    MEILISEARCH_API_KEY: MASTER_KEY,
  };
}, 60_000);

afterAll(async () => {
  await Promise.all([meili?.close(), cloudflare.stop(), dynalite?.close()]);
});

const kv = () =>
  new CloudflareRestKv({
    accountId: DOUBLE_ACCOUNT,
    namespaceId: namespace,
    apiToken: DOUBLE_TOKEN,
    baseUrl: cloudflare.baseUrl,
  });

/** The deployed function's dependencies, with the test's DynamoDB and KV endpoints. */
const deps = (extra: Record<string, string> = {}) =>
  depsFromEnv({ ...env, ...extra }, { table, kv: kv(), log: silent });

/**
 * DynamoDB Streams, imitated: each read scans the table, compares every item with the last scan and
 * returns each difference as the change a stream record with both images gives the exporter.
 */
function streamReader() {
  const seen = new Map<string, Record<string, unknown>>();
  let sequence = 100;
  return async (): Promise<Change[]> => {
    const scan = await dynalite.client.send(new ScanCommand({ TableName: tableName }));
    const now = new Map<string, Record<string, unknown>>();
    for (const item of scan.Items ?? []) now.set(`${item.pk?.S}|${item.sk?.S}`, item);
    const changed = [...new Set([...seen.keys(), ...now.keys()])].filter(
      (key) => JSON.stringify(seen.get(key)) !== JSON.stringify(now.get(key)),
    );
    const changes = changed.map((key) => {
      const [pk, sk] = key.split("|") as [string, string];
      const before = seen.get(key);
      const after = now.get(key);
      return changeFromStreamRecord({
        eventID: `e${++sequence}`,
        eventName: before === undefined ? "INSERT" : after === undefined ? "REMOVE" : "MODIFY",
        eventSource: "aws:dynamodb",
        dynamodb: {
          Keys: { pk: { S: pk }, sk: { S: sk } },
          ...(after === undefined ? {} : { NewImage: after as never }),
          ...(before === undefined ? {} : { OldImage: before as never }),
          SequenceNumber: String(sequence).padStart(21, "1"),
          StreamViewType: "NEW_AND_OLD_IMAGES",
        },
      });
    });
    seen.clear();
    for (const [key, item] of now) seen.set(key, item);
    return changes;
  };
}

/** The exporter's logic for one change, as deployed: the KV copy, then the engine's settings. */
async function exportToKvAndEngine(change: Change): Promise<SyncOutcome> {
  await exportChange(change, { kv: kv(), log: silent });
  const manager = new MeilisearchIndexManager({ url: meili.url, apiKey: MASTER_KEY });
  return syncIndexSettings(change, manager, { taskTimeoutMs: 5000, table });
}

/** The stream, delivered at once: every change since the last run through the exporter's logic. */
function streamPump() {
  const read = streamReader();
  return async () => {
    for (const change of await read()) {
      const synced = await exportToKvAndEngine(change);
      expect(synced.status).not.toBe("failed");
    }
  };
}

/** An API Gateway HTTP API (payload format 2.0) event for the public API's `ANY /{proxy+}` route. */
function event(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): LambdaEvent {
  return apiGatewayEvent({ method, path, body, headers, sourceIp: "198.51.100.7" });
}

/** A new account through the admin app on the same table (in production: the admin Lambda). */
async function newAccount(): Promise<{ account: string; apiKey: string; searchApiKey: string }> {
  const admin = createAdminApp({
    table,
    kv: kv(),
    adminToken: ADMIN_TOKEN,
    log: silent,
    now: () => new Date(),
  });
  const res = await admin.request("/api/v1/admin/accounts", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Shop" }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { systemAccountId: string; apiKey: string; searchApiKey: string };
  return { account: body.systemAccountId, apiKey: body.apiKey, searchApiKey: body.searchApiKey };
}

describe("customer API on Lambda (DynamoDB, Meilisearch, Workers KV)", () => {
  it("creates an index, loads documents, changes synonyms through the stream, and the search finds them", async () => {
    const pump = streamPump();
    const { account, apiKey } = await newAccount();
    const call = createHandler(deps());
    const as = (method: string, path: string, body?: unknown) =>
      call(event(method, path, body, { "x-api-key": apiKey })).then((res) => ({
        status: res.statusCode,
        body: JSON.parse(res.body ?? "null"),
      }));
    const waitFor = async (taskUid: number) => {
      for (let i = 0; i < 200; i++) {
        const task = await as("GET", `/api/v1/tasks/${taskUid}`);
        expect(task.status).toBe(200);
        if (task.body.status === "succeeded" || task.body.status === "failed") return task.body;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error(`task ${taskUid} did not finish`);
    };

    const created = await as("POST", "/api/v1/indexes", { name: "catalog" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "catalog", type: "index", indexUid: "catalog" });
    expect(await waitFor(created.body.taskUid)).toMatchObject({ status: "succeeded", type: "indexCreation" });

    const docs = [
      { id: "1", title: "Oak dining chair" },
      { id: "2", title: "Walnut sofa" },
      { id: "3", title: "Garden bench" },
    ];
    const added = await as("POST", "/api/v1/indexes/catalog/documents", docs);
    expect(added.status).toBe(202);
    expect(added.body).toMatchObject({ received: 3, accepted: 3, type: "documentAdditionOrUpdate" });
    await waitFor(added.body.taskUid);
    // Read back from Meilisearch: the function keeps no documents of its own.
    const page = await as("GET", "/api/v1/indexes/catalog/documents?limit=10");
    expect(page.body).toMatchObject({ total: 3, offset: 0, limit: 10 });
    expect(page.body.results).toEqual(docs);
    expect((await as("GET", "/api/v1/indexes/catalog/stats")).body).toEqual({
      numberOfDocuments: 3,
      isIndexing: false,
      fieldDistribution: { id: 3, title: 3 },
    });

    // The stream copies the account's key and the index's settings to KV: search works.
    await pump();
    const search = (q: string) => as("POST", "/api/v1/indexes/catalog/search", { q });
    const before = await search("couch");
    expect(before.status).toBe(200);
    expect(before.body.hits).toEqual([]);

    const patched = await as("PATCH", "/api/v1/indexes/catalog/settings", { synonyms: { couch: ["sofa"] } });
    expect(patched.status).toBe(200);
    expect(patched.body.synonyms).toEqual({ couch: ["sofa"] });
    await waitFor(patched.body.taskUid);
    await pump();
    const after = await search("couch");
    expect(after.body.hits.map((hit: { id: string }) => hit.id)).toEqual(["2"]);
    const meiliSettings = await new MeilisearchIndexManager({
      url: meili.url,
      apiKey: MASTER_KEY,
    }).getSettings(`${account}-catalog`);
    expect(meiliSettings.synonyms).toEqual({ couch: ["sofa"] });
  });

  it("writes each settings version to Meilisearch once, and a delayed stream batch never puts back an older one", async () => {
    const read = streamReader();
    const { account, apiKey } = await newAccount();
    const call = createHandler(deps());
    const as = (method: string, path: string, body?: unknown) =>
      call(event(method, path, body, { "x-api-key": apiKey })).then((res) => ({
        status: res.statusCode,
        body: JSON.parse(res.body ?? "null"),
      }));
    const manager = new MeilisearchIndexManager({ url: meili.url, apiKey: MASTER_KEY });
    const uid = `${account}-rugs`;
    const settingsWrites = () =>
      meili.indexRequests.filter((r) => r.method === "PATCH" && r.path === `/indexes/${uid}/settings`).length;
    const created = await as("POST", "/api/v1/indexes", { name: "rugs" });
    expect(created.status).toBe(201);
    await manager.waitForTask(created.body.taskUid, { timeoutMs: 5000 });
    for (const change of await read()) expect((await exportToKvAndEngine(change)).status).not.toBe("failed");

    const first = await as("PATCH", "/api/v1/indexes/rugs/settings", { synonyms: { rug: ["carpet"] } });
    expect(first.status).toBe(200);
    await manager.waitForTask(first.body.taskUid, { timeoutMs: 5000 });
    // The first PATCH's stream batch, held back (a slow or retried batch) until after the second PATCH.
    const delayed = await read();
    const second = await as("PATCH", "/api/v1/indexes/rugs/settings", { synonyms: { rug: ["mat"] } });
    expect(second.status).toBe(200);
    await manager.waitForTask(second.body.taskUid, { timeoutMs: 5000 });
    const current = await table.get(account, "INDEX#rugs");
    const routeWrites = settingsWrites();
    expect(routeWrites).toBeGreaterThanOrEqual(2);

    const late = [];
    for (const change of delayed) late.push(await exportToKvAndEngine(change));
    expect(late).toEqual([
      { status: "superseded", uid, version: (current?.version ?? 0) - 1, current: current?.version },
    ]);
    expect((await manager.getSettings(uid)).synonyms).toEqual({ rug: ["mat"] });

    const onTime = [];
    for (const change of await read()) onTime.push(await exportToKvAndEngine(change));
    expect(onTime).toEqual([{ status: "unchanged", uid, version: current?.version }]);
    // The route's write was the only one: the stream wrote no settings to Meilisearch.
    expect(settingsWrites()).toBe(routeWrites);
    expect((await manager.getSettings(uid)).synonyms).toEqual({ rug: ["mat"] });
  });

  it("refuses the internal relevance config in a settings PATCH with 422 and changes nothing", async () => {
    const { account, apiKey } = await newAccount();
    const call = createHandler(deps());
    const headers = { "x-api-key": apiKey };
    expect((await call(event("POST", "/api/v1/indexes", { name: "shoes" }, headers))).statusCode).toBe(201);
    const before = await table.get(account, "INDEX#shoes");
    for (const key of ["relevanceTriggerConfig", "relevance_trigger_config"]) {
      const res = await call(
        event(
          "PATCH",
          "/api/v1/indexes/shoes/settings",
          { [key]: { modelId: "x" }, stopWords: ["a"] },
          headers,
        ),
      );
      expect(res.statusCode).toBe(422);
      expect(JSON.parse(res.body ?? "").error.details).toEqual([
        { path: key, message: "is an internal setting" },
      ]);
    }
    expect(await table.get(account, "INDEX#shoes")).toEqual(before);
  });

  it("keys on DynamoDB: a search key searches and is refused writes, a created key is revoked through the stream, CORS preflights are answered", async () => {
    const pump = streamPump();
    const { apiKey, searchApiKey } = await newAccount();
    const call = createHandler(deps());
    const as = (key: string, method: string, path: string, body?: unknown, headers = {}) =>
      call(event(method, path, body, { "x-api-key": key, ...headers })).then((res) => ({
        status: res.statusCode,
        headers: res.headers ?? {},
        body: res.body ? JSON.parse(res.body) : null,
      }));
    expect((await as(apiKey, "POST", "/api/v1/indexes", { name: "lamps" })).status).toBe(201);
    await pump();
    expect((await as(searchApiKey, "POST", "/api/v1/indexes/lamps/search", { q: "" })).status).toBe(200);
    const write = await as(searchApiKey, "POST", "/api/v1/indexes/lamps/documents", [{ id: "1" }]);
    expect(write.status).toBe(403);
    expect(write.body.code).toBe("invalid_api_key");
    expect((await as(searchApiKey, "DELETE", "/api/v1/indexes/lamps")).status).toBe(403);

    const created = await as(apiKey, "POST", "/api/v1/keys", {
      actions: ["search"],
      indexes: ["lamps"],
      expiresAt: null,
    });
    expect(created.status).toBe(201);
    expect((await as(apiKey, "GET", "/api/v1/keys")).body.total).toBe(3);
    await pump();
    expect((await as(created.body.key, "POST", "/api/v1/indexes/lamps/search", { q: "" })).status).toBe(200);
    expect((await as(apiKey, "DELETE", `/api/v1/keys/${created.body.uid}`)).status).toBe(204);
    await pump();
    expect((await as(created.body.key, "POST", "/api/v1/indexes/lamps/search", { q: "" })).status).toBe(401);

    const preflight = await call(
      event("OPTIONS", "/api/v1/indexes/lamps/search", undefined, {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
      }),
    );
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers?.["access-control-allow-origin"]).toBe("https://shop.example");
    const page = await as(
      searchApiKey,
      "POST",
      "/api/v1/indexes/lamps/search",
      { q: "" },
      { origin: "https://shop.example" },
    );
    expect(page.status).toBe(200);
    expect(page.headers["access-control-allow-origin"]).toBe("https://shop.example");
  });

  it("answers 401 without a key, the JSON 404 on unknown routes, and a public OpenAPI document without admin routes", async () => {
    const call = createHandler(deps());
    const denied = await call(event("GET", "/api/v1/indexes"));
    expect(denied.statusCode).toBe(401);
    const unknown = await call(event("GET", "/api/v1/admin/accounts"));
    expect(unknown.statusCode).toBe(404);
    expect(JSON.parse(unknown.body ?? "").error.code).toBe("not_found");
    const doc = JSON.parse((await call(event("GET", "/api/v1/openapi.json"))).body ?? "");
    const paths = Object.keys(doc.paths);
    expect(paths).toContain("/api/v1/indexes/{index}/search");
    expect(paths).toContain("/api/v1/tasks/{uid}");
    expect(paths.filter((p) => p.startsWith("/api/v1/admin"))).toEqual([]);
    expect(doc["x-limits"].some((row: { area: string }) => row.area === "admin")).toBe(false);
  });

  it("documents every route it serves in its OpenAPI document, and serves every route documented there", () => {
    const d = deps();
    expect(undocumentedRoutes(createCustomerApi(d), [customerApiDocument(d.customer) as never])).toEqual({
      undocumented: [],
      unserved: [],
    });
  });

  it("refuses an upload over the Lambda's 5 MiB default before reading it", async () => {
    const { apiKey } = await newAccount();
    const call = createHandler(deps());
    const big = JSON.stringify([{ id: "1", text: "x".repeat(5 * 1024 * 1024) }]);
    const res = await call(event("POST", "/api/v1/indexes/any/documents", big, { "x-api-key": apiKey }));
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(res.body ?? "").error.details[0]).toMatchObject({ path: "body" });
  });

  it("answers 503 naming every missing variable when deployed without its configuration", async () => {
    expect(customerEnvProblems({ ...env, MEILISEARCH_URL: "", ENV: "qa" }).map((p) => p.name)).toEqual([
      "MEILISEARCH_URL",
      "ENV",
    ]);
    const saved = { ...process.env };
    try {
      for (const name of Object.keys(env)) delete process.env[name];
      const res = await handler(event("GET", "/api/v1/health"), {} as never);
      expect(res.statusCode).toBe(503);
      const body = JSON.parse(res.body ?? "");
      expect(body.error.code).toBe("service_misconfigured");
      expect(body.error.details.map((d: { path: string }) => d.path)).toEqual([
        "ENV",
        "CLOUDFLARE_ACCOUNT_ID",
        "KV_NAMESPACE_ID",
        "CLOUDFLARE_API_TOKEN",
        "MEILISEARCH_URL",
        "MEILISEARCH_API_KEY",
      ]);
    } finally {
      process.env = saved;
    }
  });

  it("bounds a documents page under Lambda's 6 MB response", () => {
    expect(deps().customer.maxResponseBytes).toBe(LAMBDA_MAX_RESPONSE_BYTES);
    expect(LAMBDA_MAX_RESPONSE_BYTES).toBeLessThan(6 * 1024 * 1024);
  });
});

describe("customer API driven by the official meilisearch client", () => {
  it("creates an index, adds documents and waits for the task, reads them, updates settings and searches", async () => {
    const { apiKey } = await newAccount();
    const pump = streamPump();
    const server = serve({ fetch: createCustomerApi(deps()).fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = new Meilisearch({ host: `http://127.0.0.1:${port}/api/v1`, apiKey });
      await client.createIndex("furniture", { primaryKey: "sku" }).waitTask({ interval: 5 });
      const index = client.index("furniture");
      const added = await index
        .addDocuments([
          { sku: "a", title: "Oak table" },
          { sku: "b", title: "Pine shelf" },
        ])
        .waitTask({ interval: 5 });
      expect(added.status).toBe("succeeded");
      const documents = await index.getDocuments({ limit: 10 });
      expect(documents.total).toBe(2);
      const settings = await index
        .updateSettings({ synonyms: { desk: ["table"] } })
        .waitTask({ interval: 5 });
      expect(settings.status).toBe("succeeded");
      await pump();
      const result = await index.search("desk");
      expect(result.hits.map((hit) => hit.sku)).toEqual(["a"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("makes the client's management calls through Meilisearch: documents, settings one at a time, tasks and stats", async () => {
    const { apiKey } = await newAccount();
    const server = serve({ fetch: createCustomerApi(deps()).fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = new Meilisearch({ host: `http://127.0.0.1:${port}/api/v1`, apiKey });
      await officialClientCalls(client, "management", 5);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
