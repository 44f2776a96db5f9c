import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ChdbClickHouse, chdbClickHouse } from "./chdb.ts";
import { httpClickHouse } from "./clickhouse-http.ts";
import type { ClickHouseSql } from "./clickhouse-sql.ts";
import { ClickHouseOutcomeStore } from "./clickhouse-store.ts";
import { outcomeStoreContract } from "./contract/outcome-store.contract.ts";
import {
  type ClickHouseHttpChdbDouble,
  startClickHouseHttpChdb,
} from "./test-support/clickhouse-http-chdb.ts";

// One chDB folder per process: the direct adapter and the HTTP double share it, each store in a
// database of its own.
const dir = mkdtempSync(join(tmpdir(), "outcomes-ch-"));
const direct: ChdbClickHouse = chdbClickHouse(dir);
let double: ClickHouseHttpChdbDouble | null = null;
let dbSeq = 0;

afterAll(async () => {
  await double?.close();
  direct.close();
  rmSync(dir, { recursive: true, force: true });
});

// The cases' times are fixed dates: the longest retention keeps the TTL from deleting them as the
// calendar moves on (it is wall-clock time).
async function fresh(sql: ClickHouseSql, retentionDays = 3650): Promise<ClickHouseOutcomeStore> {
  dbSeq += 1;
  const store = new ClickHouseOutcomeStore(sql, { database: `relevance_t${dbSeq}`, retentionDays });
  await store.migrate();
  return store;
}

outcomeStoreContract({ name: "ClickHouse on chDB", open: () => fresh(direct) });

outcomeStoreContract({
  name: "ClickHouse over HTTP (to the chDB double)",
  setup: async () => {
    double = await startClickHouseHttpChdb(dir, { user: "relevance", password: "p'w\\\"d" });
  },
  open: async () => {
    if (double === null) throw new Error("double not started");
    return fresh(
      httpClickHouse({ url: double.url, user: "relevance", password: "p'w\\\"d", timeoutMs: 10_000 }),
    );
  },
});

describe("ClickHouseOutcomeStore migrations", () => {
  it("are idempotent and keep rows", async () => {
    const store = await fresh(direct);
    await store.recordEvents([
      {
        account: "a",
        index: "i",
        queryUid: null,
        eventType: "click",
        eventName: "x",
        objectId: null,
        objectName: null,
        position: null,
        userHash: "u",
        receivedAt: Date.UTC(2026, 0, 1),
      },
    ]);
    const again = new ClickHouseOutcomeStore(direct, { database: store.database, retentionDays: 3650 });
    await again.migrate();
    await again.migrate();
    const q = await again.quality({
      account: "a",
      index: "i",
      since: 0,
      until: Date.UTC(2027, 0, 1),
      minImpressions: 1,
      maxQueries: 10,
    });
    expect(q.events.unattributed).toBe(1);
  });

  it("set the TTL from the retention and change it when the retention changes", async () => {
    const store = await fresh(direct, 30);
    expect(await store.tableTtlDays("served_searches")).toBe(30);
    expect(await store.tableTtlDays("outcome_events")).toBe(30);
    const longer = new ClickHouseOutcomeStore(direct, { database: store.database, retentionDays: 400 });
    await longer.migrate();
    expect(await longer.tableTtlDays("served_searches")).toBe(400);
    expect(await longer.tableTtlDays("outcome_events")).toBe(400);
  });

  it("refuse a retention outside 1..3650 days and a database name that is not an identifier", () => {
    expect(() => new ClickHouseOutcomeStore(direct, { retentionDays: 0 })).toThrow(/OUTCOME_RETENTION_DAYS/);
    expect(() => new ClickHouseOutcomeStore(direct, { retentionDays: 3651 })).toThrow(
      /OUTCOME_RETENTION_DAYS/,
    );
    expect(() => new ClickHouseOutcomeStore(direct, { database: "x`; DROP" })).toThrow(/identifier/);
  });
});
