// The hostile-input suite over `npm start`'s real process (docs/limits.md): every case of the
// catalogue that Node serves, each checked for its status and JSON error, and each followed by a
// normal search that must still answer. The Worker replays the search cases in workerd
// (apps/edge-worker/src/hostile.test.ts); `npm run bench -- hostile` measures the same catalogue.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Answer, HOSTILE_CASES, type HostileContext, judge, sendHttp } from "@testing/hostile";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, MONITOR_TOKEN, type RunningStack, spawnStack } from "./test-support.ts";

let stack: RunningStack;
let ctx: HostileContext;

const PRODUCTS = [
  { id: "p1", title: "Rustic Marble Chair", tags: ["home", "chair"], price: 120 },
  { id: "p2", title: "Ergonomic Wooden Chair", tags: ["office"], price: 80 },
  { id: "p3", title: "Small Granite Table", tags: ["home"], price: 300 },
];

async function normalSearch(): Promise<{ status: number; hits: number }> {
  const r = await call(
    stack.url,
    "POST",
    `/api/v1/indexes/${ctx.index}/search`,
    { q: "chair" },
    {
      "x-api-key": ctx.apiKey,
    },
  );
  return { status: r.status, hits: Array.isArray(r.body?.hits) ? r.body.hits.length : -1 };
}

beforeAll(async () => {
  stack = await spawnStack({ DATA_DIR: mkdtempSync(join(tmpdir(), "hostile-")) });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const account = await call(stack.url, "POST", "/api/v1/admin/accounts", { name: "Hostile" }, admin);
  ctx = {
    apiKey: account.body.apiKey,
    adminToken: ADMIN_TOKEN,
    monitorToken: MONITOR_TOKEN,
    account: account.body.systemAccountId,
    index: "products",
  };
  const key = { "x-api-key": ctx.apiKey };
  expect((await call(stack.url, "POST", "/api/v1/indexes", { name: ctx.index }, key)).status).toBe(201);
  expect(
    (await call(stack.url, "POST", `/api/v1/indexes/${ctx.index}/documents`, PRODUCTS, key)).status,
  ).toBe(202);
  expect(
    (
      await call(
        stack.url,
        "PATCH",
        `/api/v1/indexes/${ctx.index}/settings`,
        { filterableAttributes: ["category", "price"] },
        key,
      )
    ).status,
  ).toBe(200);
  // The index's settings reach search through the exporter: wait for the first normal answer and
  // for category to be filterable there.
  const filterable = async () =>
    (
      await call(
        stack.url,
        "POST",
        `/api/v1/indexes/${ctx.index}/search`,
        { q: "", filter: "category = x" },
        key,
      )
    ).status === 200;
  const deadline = Date.now() + 10_000;
  while (((await normalSearch()).hits !== 2 || !(await filterable())) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
}, 60_000);

afterAll(async () => {
  await stack?.kill("SIGTERM");
});

describe("hostile requests against npm start", () => {
  it("starts from a normal search that finds the two chairs", async () => {
    expect(await normalSearch()).toEqual({ status: 200, hits: 2 });
  });

  for (const c of HOSTILE_CASES.filter((x) => x.surfaces.includes("node"))) {
    it(`${c.id}: ${c.proves}`, async () => {
      let answer: Answer | undefined;
      for (const req of c.requests(ctx)) answer = await sendHttp(stack.url, req);
      expect(judge(c, answer as Answer)).toBeNull();
      expect(await normalSearch()).toEqual({ status: 200, hits: 2 });
    });
  }
});
