// The procedures against a cloud environment: an environments file whose `dev` entry points at a LOCAL
// DOUBLE of the Cloudflare Workers KV REST API and at dynalite (DynamoDB), both served by this test
// process; the real `relevance` bin runs in a child process with the credentials in its environment.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoSettingsTable } from "@relevance/settings/dynamodb";
import {
  CloudflareApiDouble,
  DOUBLE_ACCOUNT,
  DOUBLE_TOKEN,
} from "@relevance/settings/test-support/cloudflare-api-double";
import { type DynaliteServer, startDynalite } from "@relevance/settings/test-support/dynalite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportArtifact, oneLine, relevance as run } from "./test-support.ts";

const ACCOUNT = "acct_0123456789ab";
const DAY = 24 * 60 * 60 * 1000;
const id = (v: number) => `${ACCOUNT}:products:v${v}`;

const double = new CloudflareApiDouble();
let dynalite: DynaliteServer;
let table: DynamoSettingsTable;
let namespace: string;
let work: string;
let credentials: Record<string, string>;

beforeAll(async () => {
  await double.start();
  dynalite = await startDynalite();
  const tableName = await dynalite.createSettingsTable();
  table = new DynamoSettingsTable({ client: dynalite.client, tableName });
  namespace = double.newNamespace();
  work = mkdtempSync(join(tmpdir(), "relevance-cloud-"));
  const environments = {
    local: { kind: "local" },
    dev: {
      kind: "cloud",
      kvNamespaceId: namespace,
      storeAccountId: DOUBLE_ACCOUNT,
      settingsTable: tableName,
      awsRegion: "us-east-1",
      // No admin API or search in this test: the commands used here need neither.
      adminBaseUrl: "http://127.0.0.1:9",
      searchBaseUrl: "http://127.0.0.1:9",
      cloudflareApiBaseUrl: double.baseUrl,
      dynamodbEndpoint: dynalite.endpoint,
    },
  };
  writeFileSync(join(work, "environments.json"), JSON.stringify(environments));
  credentials = {
    RELEVANCE_ENVIRONMENTS: join(work, "environments.json"),
    CLOUDFLARE_API_TOKEN: DOUBLE_TOKEN,
    AWS_ACCESS_KEY_ID: "dummy",
    AWS_SECRET_ACCESS_KEY: "dummy",
  };
  for (const v of [1, 2]) await exportArtifact(work, id(v), `v${v}.json`, { title: "title", tags: "null" });
  const at = "2026-11-21T12:00:00.000Z";
  await table.put(
    ACCOUNT,
    "INDEX#products",
    { type: "index", created_at: at, updated_at: at },
    { mustNotExist: true },
  );
}, 60_000);

afterAll(async () => {
  await double.stop();
  await dynalite?.close();
});

const relevance = (args: string[], extra: Record<string, string> = {}) =>
  run(work, args, { ...credentials, ...extra });
/** Moves the record's history of `modelId` (the time it stopped naming it) back by `ms`. */
async function backdate(modelId: string, ms: number) {
  const item = await table.get(ACCOUNT, "INDEX#products");
  if (item === null) throw new Error("no record");
  const history = { ...(item.attributes.relevance_model_history as Record<string, string>) };
  history[modelId] = new Date(Date.parse(history[modelId] as string) - ms).toISOString();
  await table.put(
    ACCOUNT,
    "INDEX#products",
    { ...item.attributes, relevance_model_history: history },
    { expectedVersion: item.version },
  );
}
const kvKeys = () => [...(double.namespaces.get(namespace)?.keys() ?? [])].sort();
const dev = ["--env", "dev"];
const edit = (v: number) => [
  "config",
  "edit-table",
  ...dev,
  "--account",
  ACCOUNT,
  "--index",
  "products",
  "--model-id",
  id(v),
  "--title-field",
  "title",
  "--tags-field",
  "null",
];

describe("relevance procedures against a cloud environment (Cloudflare KV REST double, dynalite)", () => {
  it("model upload puts through the Cloudflare API and reads back; model get verifies it", async () => {
    const up = await relevance(["model", "upload", ...dev, "--model-id", id(1), "--file", "v1.json"]);
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(`uploaded relevance_model:${id(1)} (13.4 KB), read back and compared`);
    const stored = double.namespaces.get(namespace)?.get(`relevance_model:${id(1)}`);
    expect(Buffer.from(stored ?? []).toString("utf8")).toMatch(/^\{"format":"relevance-model"/);
    const got = await relevance(["model", "get", ...dev, "--model-id", id(1), "--json"]);
    expect(JSON.parse(got.stdout)).toMatchObject({ ok: true, env: "dev", trees: 30 });
    const again = await relevance(["model", "upload", ...dev, "--model-id", id(1), "--file", "v1.json"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });

  it("shows progress on stderr while a large artifact is transferred", async () => {
    await exportArtifact(work, id(3), "v3.json", { title: "title", tags: "null" });
    // Whitespace keeps the JSON (and the artifact) valid while making the transfer long.
    writeFileSync(
      join(work, "big.json"),
      readFileSync(join(work, "v3.json"), "utf8") + " ".repeat(1_200_000),
    );
    const up = await relevance(["model", "upload", ...dev, "--model-id", id(3), "--file", "big.json"]);
    expect(up.code).toBe(0);
    expect(up.stderr).toBe(`uploading 1.2 MB to relevance_model:${id(3)}… done\n`);
    expect(up.stdout).toMatch(/uploaded relevance_model:.*:v3 \(1185\.\d KB\), read back and compared/);
    expect(double.namespaces.get(namespace)?.get(`relevance_model:${id(3)}`)?.length).toBeGreaterThan(
      1_200_000,
    );
    double.namespaces.get(namespace)?.delete(`relevance_model:${id(3)}`);
  });

  it("config edit-table writes the DynamoDB record; delete is refused while named and within 24 h, allowed after", async () => {
    const first = await relevance(edit(1));
    expect(first.code).toBe(0);
    expect(first.stderr).toBe("");
    const item = await table.get(ACCOUNT, "INDEX#products");
    expect(item?.attributes.relevance_trigger_config).toEqual({
      model_id: id(1),
      title_field: "title",
      tags_field: null,
    });
    expect(item?.version).toBe(2);

    const named = await relevance(["model", "delete", ...dev, "--model-id", id(1)]);
    expect(named.code).toBe(1);
    expect(named.stderr).toMatch(/refused: .* is named by products/);

    expect(
      (await relevance(["model", "upload", ...dev, "--model-id", id(2), "--file", "v2.json"])).code,
    ).toBe(0);
    expect((await relevance(edit(2))).code).toBe(0);
    const history = (await table.get(ACCOUNT, "INDEX#products"))?.attributes.relevance_model_history;
    expect(Object.keys(history as object)).toEqual([id(1)]);

    const recent = await relevance(["model", "delete", ...dev, "--model-id", id(1)]);
    expect(recent.code).toBe(1);
    expect(recent.stderr).toMatch(/products stopped naming .* less than 24 h ago/);
    expect(kvKeys()).toEqual([`relevance_model:${id(1)}`, `relevance_model:${id(2)}`]);

    // The clock override is for --env local only: against a real store it would skip the grace period.
    const tomorrow = { RELEVANCE_NOW: new Date(Date.now() + DAY + 60_000).toISOString() };
    for (const args of [
      ["prune", ...dev, "--account", ACCOUNT, "--index", "products", "--yes"],
      ["model", "delete", ...dev, "--model-id", id(1)],
    ]) {
      const refused = await relevance(args, tomorrow);
      expect(refused.code).toBe(1);
      expect(oneLine(refused)).toEqual([
        `relevance ${args[0] === "prune" ? "prune" : "model delete"}: RELEVANCE_NOW is refused for --env dev: it moves the clock of the 24 h grace period (prune, model delete), which is only for tests and rehearsals on --env local; unset RELEVANCE_NOW`,
      ]);
    }
    expect(kvKeys()).toEqual([`relevance_model:${id(1)}`, `relevance_model:${id(2)}`]);

    // The upload stamped v1 with its write time (Workers KV metadata), which prune reads back.
    const stamped = double.metadata.get(namespace)?.get(`relevance_model:${id(1)}`) as
      | { writtenAt: string }
      | undefined;
    const writtenAt = stamped?.writtenAt ?? "";
    expect(Date.now() - Date.parse(writtenAt)).toBeLessThan(DAY);
    const pruneArgs = ["prune", ...dev, "--account", ACCOUNT, "--index", "products"];
    // The switch away from v1 a day and an hour ago by the record's history, but v1 written today
    // by the store's record: too recent to be old.
    await backdate(id(1), DAY + 3_600_000);
    const written = await relevance(pruneArgs);
    expect(written.stdout).toContain(
      `keep relevance_model:${id(1)}: written ${writtenAt} (the store's record), less than 24 h ago`,
    );
    // Both a day and an hour old, but the store's clock (the API's Date) two hours behind this
    // machine's: measured on the store's clock, v1 is still in its grace period.
    double.metadata
      .get(namespace)
      ?.set(`relevance_model:${id(1)}`, { writtenAt: new Date(Date.now() - DAY - 3_600_000).toISOString() });
    double.clockOffsetMs = -2 * 3_600_000;
    const behind = await relevance(pruneArgs);
    expect(behind.stdout).toMatch(
      /^measuring the 24 h grace period at \S+, the store's clock: this machine's clock is \d+ s ahead of it\n/,
    );
    expect(behind.stdout).toContain(`keep relevance_model:${id(1)}: in the 24 h grace period until `);
    const early = await relevance(["model", "delete", ...dev, "--model-id", id(1)]);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/stopped naming .* less than 24 h ago/);
    double.clockOffsetMs = 0;
    const dry = await relevance(pruneArgs);
    expect(dry.stdout).toContain(`would delete relevance_model:${id(1)}`);
    const deleted = await relevance(["model", "delete", ...dev, "--model-id", id(1)]);
    expect(deleted.stderr).toBe("");
    expect(deleted.code).toBe(0);
    expect(kvKeys()).toEqual([`relevance_model:${id(2)}`]);
  });

  it("missing or wrong credentials, an unknown or unconfigured environment: one line, non-zero, nothing written", async () => {
    const before = kvKeys();
    const upload = ["model", "upload", ...dev, "--model-id", id(3), "--file", "v1.json"];
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        ["model", "get", "--env", "dev", "--model-id", id(2)],
        { CLOUDFLARE_API_TOKEN: "" },
        /CLOUDFLARE_API_TOKEN: is not set/,
      ],
      [
        ["model", "get", "--env", "dev", "--model-id", id(2)],
        { CLOUDFLARE_API_TOKEN: "wrong" },
        /403.*Authentication error/,
      ],
      [
        ["model", "get", "--env", "prod", "--model-id", id(2)],
        {},
        /environment "prod" is not in the environments file/,
      ],
      [
        ["model", "get", "--env", "dev", "--model-id", id(2)],
        { RELEVANCE_ENVIRONMENTS: join(work, "none.json") },
        /cannot read .*none\.json: no such file/,
      ],
      [upload, {}, /v1\.json carries modelId .*:v1, not .*:v3/],
    ];
    for (const [args, extra, message] of cases) {
      const r = await relevance(args, extra);
      expect(r.code, JSON.stringify(extra)).toBe(1);
      expect(oneLine(r)).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toContain("wrong");
    }
    expect(kvKeys()).toEqual(before);
  });
});
