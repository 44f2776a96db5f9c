// `relevance quality` end to end on `local`: the real `relevance` bin in a child process against
// the admin API served over HTTP in this process, on the local stack's SQLite files (DATA_DIR,
// PORT, ADMIN_TOKEN as an operator sets them), with the outcome store behind its port answering
// fixed aggregates.
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerType, serve } from "@hono/node-server";
import { createApiApp } from "@relevance/admin";
import { type OutcomeStore, QualityReportSchema } from "@relevance/outcomes";
import { fixedQualityStore, syntheticQualityInputs } from "@relevance/outcomes/test-support/quality-inputs";
import type { Logger } from "@relevance/settings";
import { openDatabase, SqliteDocumentStore, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { relevance } from "./test-support.ts";

const ADMIN_TOKEN = "admin-token-for-quality-tests-0123";
const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

interface Served {
  server: ServerType;
  env: Record<string, string>;
  account: string;
}

async function serveAdmin(outcomes: OutcomeStore | undefined): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), "relevance-quality-"));
  const settings = openDatabase(join(dataDir, "settings.db"));
  const kv = openDatabase(join(dataDir, "kv.db"));
  const app = createApiApp({
    table: new SqliteSettingsTable(settings),
    kv: new SqliteKv(kv),
    documents: new SqliteDocumentStore(openDatabase(":memory:")),
    adminToken: ADMIN_TOKEN,
    log: silent,
    now: () => new Date("2026-11-28T12:00:00.000Z"),
    ...(outcomes === undefined ? {} : { outcomes }),
  });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const post = async (path: string, body: unknown, headers: Record<string, string>) =>
    (await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }).then((r) => r.json())) as { systemAccountId: string; apiKey: string };
  const { systemAccountId: account, apiKey } = await post(
    "/api/v1/admin/accounts",
    { name: "Shop" },
    { authorization: `Bearer ${ADMIN_TOKEN}` },
  );
  await post("/api/v1/indexes", { name: "products" }, { "x-api-key": apiKey });
  return { server, account, env: { DATA_DIR: dataDir, PORT: String(port), ADMIN_TOKEN } };
}

describe("relevance quality against local", () => {
  let served: Served;
  let bare: Served;
  const inputs = syntheticQualityInputs({ modelId: "demo:v1", queries: 120 });
  inputs.bins.push({ modelId: "demo:v0", bin: 420, searches: 8, clicked: 2, converted: 0 });
  inputs.daily.push({ modelId: "demo:v0", day: "2026-11-27", bin: 4, searches: 8 });
  const fixed = fixedQualityStore({ ...inputs, events: { attributed: 40, unattributed: 3, duplicates: 2 } });

  beforeAll(async () => {
    served = await serveAdmin(fixed.store);
    bare = await serveAdmin(undefined);
  });
  afterAll(() => {
    served.server.close();
    bare.server.close();
  });
  const target = (s: Served) => ["--env", "local", "--account", s.account, "--index", "products"];

  it("prints per model the searches, the histogram, the calibration table, τ, ρ and the AUC, or too little data", async () => {
    const r = await relevance(tmpdir(), ["quality", ...target(served)], served.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toContain(
      `${served.account}/products: quality from 2026-11-21T12:00:00.000Z to 2026-11-28T12:00:00.000Z`,
    );
    expect(out).toContain("events: 40 attributed, 3 unattributed, 2 duplicates");
    expect(out).toContain("model demo:v1: 3003 searches");
    expect(out).toMatch(/\n {4}2026-11-01 +\d+ +(\d+ +){9}\d+\n/);
    expect(out).toContain("calibration by score decile");
    expect(out).toMatch(/\n +10 +9\.\d\d–10\.00 +\d+ +\d+\.\d\d +\d+\.\d% +\[\d+\.\d%, \d+\.\d%\]/);
    expect(out).toMatch(
      /Kendall τ-b \(mean score vs click-through\) = 0\.\d{3} {2}n = 120 queries {2}95 % interval \[0\.\d{3}, 0\.\d{3}\]/,
    );
    expect(out).toMatch(/Spearman ρ \(mean score vs click-through\) = 0\.\d{3} {2}n = 120 queries/);
    expect(out).toMatch(/AUC \(no-click searches\) = 0\.\d{3} {2}n = \d+ clicked, \d+ not/);
    // The second model has 8 searches and no query: each metric says what it lacks.
    expect(out).toContain("model demo:v0: 8 searches");
    expect(out).toContain("calibration: too little data (8 searches; calibration needs 100)");
    expect(out).toContain("Kendall τ-b (mean score vs click-through): too little data (0 queries");
    expect(out).toContain("AUC (no-click searches): too little data (2 searches with a click and 6 without");
  });

  it("--json prints the report as the route answers it, with the range and model asked for", async () => {
    const r = await relevance(
      tmpdir(),
      [
        "quality",
        ...target(served),
        "--since",
        "24h",
        "--model",
        "demo:v1",
        "--min-impressions",
        "9",
        "--json",
      ],
      served.env,
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, command: "quality", env: "local" });
    const report = QualityReportSchema.parse(out.report);
    expect(report).toMatchObject({
      since: "2026-11-27T12:00:00.000Z",
      modelId: "demo:v1",
      minImpressions: 9,
    });
    expect(report.models.map((m) => m.modelId)).toEqual(["demo:v1"]);
  });

  it("bad input and an environment that records nothing: one line on stderr, exit 1", async () => {
    const bad = await relevance(tmpdir(), ["quality", ...target(served), "--since", "400d"], served.env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(
      /^relevance quality: the admin API answered 422: .*since: must be at most 90 days before until\n$/,
    );
    const none = await relevance(tmpdir(), ["quality", ...target(bare)], bare.env);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /^relevance quality: .*recording_not_configured|no outcome store is configured/,
    );
  });
});
