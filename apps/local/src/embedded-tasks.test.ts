// The embedded stack's writes are tasks of its index manager, as in Meilisearch: each write answers
// once its task has ended, and GET /api/v1/tasks/{uid} reads the task back (docs/api.md).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN } from "./test-support.ts";

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
let stack: Stack;
let dataDir: string;

async function http(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await stack.app.request(path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: test responses are read field by field
  return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as any };
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const account = async (name: string) => {
  const created = await http("POST", "/api/v1/admin/accounts", { name }, admin);
  return { "x-api-key": created.body.apiKey as string };
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "embedded-tasks-"));
  const config = configFrom({ PORT: "0", DATA_DIR: dataDir, ADMIN_TOKEN, MONITOR_TOKEN, DEMO: "0" });
  stack = await startStack(config, quiet);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("tasks of the embedded stack", () => {
  it("answers a write with its ended task, and GET /api/v1/tasks/{uid} reads it back for its own account only", async () => {
    const key = await account("Tasks");
    const created = await http("POST", "/api/v1/indexes", { name: "shoes", primaryKey: "id" }, key);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "succeeded", type: "index", taskUid: expect.any(Number) });

    const written = await http("POST", "/api/v1/indexes/shoes/documents", [{ id: 1, title: "Red" }], key);
    expect(written.status).toBe(202);
    expect(written.body.task).toMatchObject({ status: "succeeded", type: "documentAdditionOrUpdate" });

    const task = await http("GET", `/api/v1/tasks/${written.body.taskUid}`, undefined, key);
    expect(task.status).toBe(200);
    expect(task.body).toMatchObject({
      uid: written.body.taskUid,
      indexUid: "shoes",
      status: "succeeded",
      type: "documentAdditionOrUpdate",
      details: { receivedDocuments: 1, indexedDocuments: 1 },
    });

    const other = await account("Other");
    const hidden = await http("GET", `/api/v1/tasks/${written.body.taskUid}`, undefined, other);
    expect(hidden).toMatchObject({ status: 404, body: { error: { code: "task_not_found" } } });
    const missing = await http("GET", "/api/v1/tasks/999999999", undefined, key);
    expect(missing).toMatchObject({ status: 404, body: { error: { code: "task_not_found" } } });
    // The task list shows the account's own tasks only.
    const listed = await http("GET", "/api/v1/tasks", undefined, key);
    expect(listed.status).toBe(200);
    expect((listed.body as { results: { uid: number }[] }).results.map((t) => t.uid)).toContain(
      written.body.taskUid,
    );
    const theirs = await http("GET", "/api/v1/tasks", undefined, other);
    expect((theirs.body as { total: number }).total).toBe(0);
  });
});
