// The management calls of Meilisearch's official client against the embedded stack (npm start's
// composition): documents one at a time, partial updates, deletions, fields, per-setting routes,
// the settings reset, GET /tasks and GET /stats.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { officialClientCalls } from "@relevance/admin/test-support/official-client";
import type { Logger } from "@relevance/settings";
import { Meilisearch } from "meilisearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN } from "./test-support.ts";

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
let stack: Stack;

async function newAccount(): Promise<{ account: string; apiKey: string }> {
  const res = await fetch(`${stack.url}/api/v1/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Management calls" }),
  });
  const body = (await res.json()) as { systemAccountId: string; apiKey: string };
  return { account: body.systemAccountId, apiKey: body.apiKey };
}

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "management-"));
  stack = await startStack(
    configFrom({
      PORT: "0",
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      MONITOR_TOKEN: "test-monitor-token-0123456789",
      DEMO: "0",
    }),
    quiet,
  );
});

afterAll(async () => {
  await stack.stop();
});

describe("the official client's management calls on the embedded stack", () => {
  it("gets, merges and deletes documents, sets and resets settings one at a time, lists tasks and stats", async () => {
    const { apiKey } = await newAccount();
    const client = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey });
    await officialClientCalls(client, "furniture", 10);
  });

  it("shows an account only its own tasks and indexes", async () => {
    const first = await newAccount();
    const second = await newAccount();
    const mine = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey: first.apiKey });
    const theirs = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey: second.apiKey });
    await mine.createIndex("private", { primaryKey: "sku" }).waitTask({ interval: 10 });
    const listed = await theirs.tasks.getTasks();
    expect(listed.results.some((t) => t.indexUid === "private")).toBe(false);
    expect((await theirs.tasks.getTasks({ indexUids: ["private"] })).total).toBe(0);
    expect(Object.keys((await theirs.getStats()).indexes)).not.toContain("private");
    expect(Object.keys((await mine.getStats()).indexes)).toEqual(["private"]);
  });
});
