// npm start's demo seeding never replaces a write someone made after it started: the operator may
// start as soon as demo.json appears, while the seeding is still adding documents and configuring the
// model. What the seeding creates it creates only when absent; a record someone else changed is
// theirs from then on. The operator's writes here are made between two seeding steps (afterStep).
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { modelKey } from "@relevance/core";
import type { Logger } from "@relevance/settings";
import { openDatabase } from "@relevance/settings/sqlite";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEMO_STEP_NAMES,
  type DemoReady,
  demoArtifact,
  demoModelId,
  inProcessCall,
  seedDemo,
  seedDemoCatalog,
} from "./demo.ts";
import { SqliteStepLog } from "./demo-step-log.ts";
import { configFrom, type LocalConfig } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN } from "./test-support.ts";

type Line = { level: string; message: string } & Record<string, unknown>;
const lines: Line[] = [];
const log: Logger = {
  info: (message, fields) => lines.push({ level: "info", message, ...fields }),
  warn: (message, fields) => lines.push({ level: "warn", message, ...fields }),
  error: (message, fields) => lines.push({ level: "error", message, ...fields }),
};

let stack: Stack | null = null;
let config: LocalConfig;
let dataDir: string;

async function start(): Promise<Stack> {
  config = configFrom({ PORT: "0", DATA_DIR: dataDir, ADMIN_TOKEN, MONITOR_TOKEN, DEMO: "0" });
  stack = await startStack(config, log);
  return stack;
}

afterEach(async () => {
  await stack?.stop();
  stack = null;
  lines.length = 0;
  rmSync(dataDir, { recursive: true, force: true });
});

async function http(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await (stack as Stack).app.request(path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: test responses are read field by field
  return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as any };
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const configPath = (account: string, index: string) =>
  `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-trigger-config`;

/** The operator, as the README has them: ACCOUNT and API_KEY (and SEARCH_API_KEY) from the data folder's demo.env. */
function operator() {
  const file = join(dataDir, "demo.env");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const vars = Object.fromEntries(
    [...readFileSync(file, "utf8").matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]),
  );
  const saved = JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8"));
  expect(vars).toEqual({
    ACCOUNT: saved.systemAccountId,
    API_KEY: saved.apiKey,
    SEARCH_API_KEY: saved.searchApiKey,
  });
  const account = vars.ACCOUNT as string;
  const key = { "x-api-key": vars.API_KEY as string };
  const expectOk = async (
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = key,
  ) => {
    const res = await http(method, path, body, headers);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res;
  };
  return { account, key, expectOk };
}

const configOf = async (account: string, index: string) =>
  (await http("GET", configPath(account, index), undefined, admin)).body.relevanceTriggerConfig;

describe("the demo seeding and an operator who starts before it has finished", () => {
  it("leaves the configs, the alias and the settings the operator changed once the catalog existed", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "demo-operator-"));
    await start();
    let account = "";
    const demo = (await seedDemo(stack as Stack, config, log, {
      afterStep: async (step) => {
        if (step !== "alias") return;
        const op = operator();
        account = op.account;
        // The README's rollout by hand: v2 uploaded and switched on for products.
        const v2 = `${account}:products:v2`;
        const artifact = JSON.parse(demoArtifact(account));
        await (stack as Stack).kv.put(modelKey(v2), JSON.stringify({ ...artifact, modelId: v2 }));
        await op.expectOk(
          "PUT",
          configPath(account, "products"),
          { relevanceTriggerConfig: { modelId: v2, titleField: "title", tagsField: "tags" } },
          admin,
        );
        // Scoring off on catalog, and catalog re-pointed at an index of their own.
        await op.expectOk("PUT", configPath(account, "catalog"), { relevanceTriggerConfig: null }, admin);
        await op.expectOk("POST", "/api/v1/indexes", { name: "archive", primaryKey: "id" });
        await op.expectOk("PUT", "/api/v1/aliases/catalog", { index: "archive" });
        await op.expectOk("PATCH", "/api/v1/indexes/products/settings", {
          sortableAttributes: ["price", "title"],
        });
      },
    })) as DemoReady;

    expect(await configOf(account, "products")).toMatchObject({ modelId: `${account}:products:v2` });
    expect(await configOf(account, "catalog")).toBeNull();
    const key = { "x-api-key": demo.apiKey };
    expect((await http("GET", "/api/v1/indexes/catalog", undefined, key)).body.index).toBe("archive");
    const settings = await http("GET", "/api/v1/indexes/products/settings", undefined, key);
    expect(settings.body.sortableAttributes).toEqual(["price", "title"]);
    // The seeding still finished, and says what serves: the operator's v2.
    expect(demo.modelId).toBe(`${account}:products:v2`);
    expect(demo.relevanceScore).toBeTypeOf("number");
    expect(await (stack as Stack).kv.get(modelKey(demoModelId(account)))).not.toBeNull();
    const left = lines.filter((l) => l.message.startsWith("demo seeding: left")).map((l) => l.left);
    expect(left).toEqual(["the relevance config of products", "the relevance config of catalog"]);
    const db = openDatabase(join(dataDir, "settings.db"));
    expect(new SqliteStepLog(db).entries().map((e) => e.step)).toEqual(DEMO_STEP_NAMES);
    db.close();
  }, 90_000);

  it("leaves the settings and a product the operator wrote right after the index was created", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "demo-operator-"));
    await start();
    let account = "";
    const demo = (await seedDemo(stack as Stack, config, log, {
      afterStep: async (step) => {
        if (step !== "index") return;
        const op = operator();
        account = op.account;
        await op.expectOk("PATCH", "/api/v1/indexes/products/settings", { searchableAttributes: ["title"] });
        await op.expectOk("POST", "/api/v1/indexes/products/documents", [
          { id: "p00001", title: "The operator's own chair", category: "Home" },
        ]);
      },
    })) as DemoReady;

    const key = { "x-api-key": demo.apiKey };
    const settings = await http("GET", "/api/v1/indexes/products/settings", undefined, key);
    expect(settings.body.searchableAttributes).toEqual(["title"]);
    const docs = await http("GET", "/api/v1/indexes/products/documents?limit=2", undefined, key);
    expect(docs.body.total).toBe(10_000);
    expect(docs.body.results[0]).toEqual({
      id: "p00001",
      title: "The operator's own chair",
      category: "Home",
    });
    expect(docs.body.results[1].id).toBe("p00002");
    // products is the operator's now: its config is left to them; catalog is still the seeding's.
    expect(await configOf(account, "products")).toBeNull();
    expect(await configOf(account, "catalog")).toMatchObject({ modelId: demoModelId(account) });
    const search = await http(
      "POST",
      "/api/v1/indexes/catalog/search",
      { q: "chair", relevanceScore: true },
      key,
    );
    expect(search.body.relevanceScore).toBeTypeOf("number");
    expect(lines.filter((l) => l.message.startsWith("demo seeding: left")).map((l) => l.left)).toEqual([
      "the settings of products",
      "the relevance config of products",
    ]);
  }, 90_000);

  it("finishes its own write when a start stopped after making it but before recording it", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "demo-operator-"));
    await start();
    const killed = seedDemo(stack as Stack, config, log, {
      afterStep: (step) => {
        if (step === "config-products") throw new Error("killed");
      },
    });
    await expect(killed).rejects.toThrow("killed");
    // As if the start had stopped right after the settings and the config write, before recording
    // either: the steps are not recorded and the versions kept are those from before them.
    const db = openDatabase(join(dataDir, "settings.db"));
    db.prepare(
      "DELETE FROM demo_steps WHERE step IN ('index-settings', 'documents', 'alias', 'model-upload', 'config-products')",
    ).run();
    db.prepare("UPDATE demo_records SET version = 1").run();
    db.close();

    await stack?.stop();
    lines.length = 0;
    await start();
    const demo = (await seedDemo(stack as Stack, config, log)) as DemoReady;
    expect(demo.relevanceScore).toBeTypeOf("number");
    expect(demo.modelId).toBe(demoModelId(demo.systemAccountId));
    expect(lines.filter((l) => l.message.startsWith("demo seeding: left"))).toEqual([]);
  }, 90_000);

  it("takes what a version that kept no versions created, as it is, when it finishes that version's seeding", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "demo-operator-"));
    await start();
    const killed = seedDemo(stack as Stack, config, log, {
      afterStep: (step) => {
        if (step === "alias") throw new Error("killed");
      },
    });
    await expect(killed).rejects.toThrow("killed");
    const db = openDatabase(join(dataDir, "settings.db"));
    db.exec("DROP TABLE demo_records");
    db.close();

    await stack?.stop();
    lines.length = 0;
    await start();
    const demo = (await seedDemo(stack as Stack, config, log)) as DemoReady;
    expect(demo.relevanceScore).toBeTypeOf("number");
    expect(await configOf(demo.systemAccountId, "catalog")).toMatchObject({
      modelId: demoModelId(demo.systemAccountId),
    });
  }, 90_000);
});

describe("the training script's seeding of a fresh stack of its own (seedDemoCatalog)", () => {
  it("gives products its settings and documents and points catalog at it, through the API alone", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "demo-operator-"));
    await start();
    const demo = await seedDemoCatalog(inProcessCall(stack as Stack), ADMIN_TOKEN);
    const key = { "x-api-key": demo.apiKey };
    const settings = await http("GET", "/api/v1/indexes/products/settings", undefined, key);
    expect(settings.body).toMatchObject({
      searchableAttributes: ["title", "tags", "description"],
      filterableAttributes: ["category", "price"],
      sortableAttributes: ["price"],
    });
    expect((await http("GET", "/api/v1/indexes/products/documents?limit=1", undefined, key)).body.total).toBe(
      10_000,
    );
    expect((await http("GET", "/api/v1/indexes/catalog", undefined, key)).body.index).toBe("products");
  }, 90_000);
});
