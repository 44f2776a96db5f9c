/**
 * The RunStore contract over the ClickHouse adapters: the embedded chDB engine, and a ClickHouse
 * server over HTTP (openHttpRunStore, the Lambdas' store), here a local HTTP bridge to the same chDB
 * data folder (test-support/chdb-http-bridge.ts). The in-memory adapter runs it in @monitor/core.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunStoreAdapter, runStoreContract } from "@monitor/core/contract/run-store";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createChdbClient, openChdbRunStore } from "./chdb.ts";
import { type ClickHouseRunStore, openHttpRunStore } from "./clickhouse-run-store.ts";
import { type ChdbHttpBridge, startChdbHttpBridge } from "./test-support/chdb-http-bridge.ts";

// One chDB data folder for this file (one engine per folder per process), shared by both adapters.
const dir = mkdtempSync(join(tmpdir(), "svcmon-runstore-contract-"));
const admin = createChdbClient(dir);
let chdb: ClickHouseRunStore;
let bridge: ChdbHttpBridge;
let http: ClickHouseRunStore;

const TABLES = [
  "svc.collector_runs",
  "svc.collector_series",
  "svc.collector_failed_runs",
  "svc.cloud_accounts",
  "svc.account_first_active",
  "svc.run_starts",
];
async function truncate(): Promise<void> {
  for (const t of TABLES) await admin.command({ query: `TRUNCATE TABLE ${t}` });
}

beforeAll(async () => {
  chdb = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await chdb.migrate();
  bridge = await startChdbHttpBridge(dir);
  http = openHttpRunStore({ url: bridge.url, timeoutMs: 10_000 });
});

afterAll(async () => {
  await http.close();
  await bridge.close();
  await chdb.close();
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
});

const ADAPTERS: RunStoreAdapter[] = [
  {
    name: "ClickHouse (embedded chDB)",
    async open() {
      await truncate();
      return chdb;
    },
  },
  {
    name: "ClickHouse over HTTP (openHttpRunStore, through a bridge to chDB)",
    async open() {
      await truncate();
      return http;
    },
  },
];

for (const adapter of ADAPTERS) runStoreContract(adapter);

it("the HTTP adapter's statements reached the bridge (not the embedded client)", () => {
  expect(bridge.queries.some((q) => /INSERT INTO svc\.collector_runs/.test(q))).toBe(true);
  expect(bridge.queries.some((q) => /FROM svc\.collector_series/.test(q))).toBe(true);
});
