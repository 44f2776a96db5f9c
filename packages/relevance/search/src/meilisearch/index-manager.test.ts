import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexManagerContract } from "../contract/index-manager.contract.ts";
import { IndexManagerError } from "../index-manager.ts";
import { MeilisearchIndexManager } from "./index-manager.ts";
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "./test-support/meilisearch-double.ts";

let double: MeilisearchDouble;
beforeAll(async () => {
  double = await startMeilisearchDouble(1000);
});
afterAll(() => double.close());

indexManagerContract("Meilisearch adapter against the local double", async () => {
  return new MeilisearchIndexManager({ url: double.url, apiKey: MASTER_KEY });
});

// The same suite against a real Meilisearch, registered only where one is configured
// (MEILI_URL=https://… MEILI_KEY=… npm test -- index-manager): none installs on these machines.
const MEILI_URL = process.env.MEILI_URL;
const MEILI_KEY = process.env.MEILI_KEY;
if (MEILI_URL !== undefined && MEILI_KEY !== undefined) {
  indexManagerContract(
    "Meilisearch adapter against a real Meilisearch at MEILI_URL",
    async () => new MeilisearchIndexManager({ url: MEILI_URL, apiKey: MEILI_KEY }),
  );
}

const refusal = async (promise: Promise<unknown>): Promise<IndexManagerError> => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(IndexManagerError);
  return error as IndexManagerError;
};

describe("MeilisearchIndexManager", () => {
  it("sends the key as a bearer token and reports Meilisearch's auth errors as refused", async () => {
    const noKey = new MeilisearchIndexManager({ url: double.url, apiKey: "" });
    const missing = await refusal(noKey.listIndexes());
    expect(missing).toMatchObject({
      failure: "refused",
      status: 401,
      error: { code: "missing_authorization_header", type: "auth" },
    });
    const wrong = new MeilisearchIndexManager({ url: double.url, apiKey: "wrong" });
    const invalid = await refusal(wrong.createIndex("acct_1-products"));
    expect(invalid).toMatchObject({
      failure: "refused",
      status: 403,
      error: {
        code: "invalid_api_key",
        type: "auth",
        message: "The provided API key is invalid.",
        link: "https://docs.meilisearch.com/errors#invalid_api_key",
      },
    });
    await new MeilisearchIndexManager({ url: double.url, apiKey: MASTER_KEY }).listIndexes();
    expect(double.indexRequests.at(-1)?.authorization).toBe(`Bearer ${MASTER_KEY}`);
  });

  it("does not follow a redirect (the key would go with it)", async () => {
    const manager = new MeilisearchIndexManager({ url: double.url, apiKey: MASTER_KEY });
    const error = await refusal(manager.getIndex("acct_1-moved"));
    expect(error).toMatchObject({ failure: "unavailable", status: 308 });
    expect(double.indexRequests.some((r) => r.path.startsWith("/stolen/"))).toBe(false);
  });

  it("gives up on a request after timeoutMs", async () => {
    const manager = new MeilisearchIndexManager({ url: double.url, apiKey: MASTER_KEY, timeoutMs: 50 });
    const error = await refusal(manager.getIndex("acct_1-slow"));
    expect(error).toMatchObject({ failure: "timeout", error: { code: "request_timeout" } });
  });

  it("gives up waiting for a task after timeoutMs with task_timeout; the task goes on", async () => {
    const manager = new MeilisearchIndexManager({ url: double.url, apiKey: MASTER_KEY });
    const { taskUid } = await manager.createIndex("acct_1-slow");
    const error = await refusal(manager.waitForTask(taskUid, { timeoutMs: 50, intervalMs: 10 }));
    expect(error).toMatchObject({ failure: "timeout", error: { code: "task_timeout" } });
    expect((await manager.waitForTask(taskUid, { timeoutMs: 10_000 })).status).toBe("succeeded");
    await manager.waitForTask((await manager.deleteIndex("acct_1-slow")).taskUid, { timeoutMs: 10_000 });
  });

  it("reports a write Meilisearch cannot store (a full disk) as refused with its no_space_left_on_device", async () => {
    const manager = new MeilisearchIndexManager({ url: double.url, apiKey: MASTER_KEY });
    const error = await refusal(manager.addDocuments("acct_1-full", [{ id: 1 }]));
    expect(error).toMatchObject({
      failure: "refused",
      status: 500,
      error: { code: "no_space_left_on_device", type: "system" },
    });
  });

  it("reports an unreachable Meilisearch as unavailable", async () => {
    const closed = await startMeilisearchDouble();
    await closed.close();
    const manager = new MeilisearchIndexManager({ url: closed.url, apiKey: MASTER_KEY });
    const error = await refusal(manager.listIndexes());
    expect(error).toMatchObject({ failure: "unavailable", error: { code: "unavailable" } });
  });
});

describe("the double's documented answers", () => {
  const call = (method: string, path: string, body?: unknown, key: string | null = MASTER_KEY) =>
    fetch(`${double.url}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it("answers health without a key, version with one, and 202 summarized tasks for writes", async () => {
    expect(await (await call("GET", "/health", undefined, null)).json()).toEqual({ status: "available" });
    const version = await call("GET", "/version");
    expect(await version.json()).toMatchObject({ pkgVersion: expect.any(String) });
    const created = await call("POST", "/indexes", { uid: "acct_9-raw", primaryKey: "id" });
    expect(created.status).toBe(202);
    const summary = (await created.json()) as Record<string, unknown>;
    expect(Object.keys(summary).sort()).toEqual(["enqueuedAt", "indexUid", "status", "taskUid", "type"]);
    const missing = await call("GET", "/indexes/acct_9-none");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      message: "Index `acct_9-none` not found.",
      code: "index_not_found",
      type: "invalid_request",
      link: "https://docs.meilisearch.com/errors#index_not_found",
    });
    const task = await call("GET", "/tasks/999999");
    expect(task.status).toBe(404);
    expect(((await task.json()) as { code: string }).code).toBe("task_not_found");
  });
});
