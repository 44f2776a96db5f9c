import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FEATURE_SET_V1 } from "@relevance/core";
import { afterAll, describe, expect, it } from "vitest";
import { type ChdbClickHouse, chdbClickHouse } from "./chdb.ts";
import { httpClickHouse } from "./clickhouse-http.ts";
import type { ClickHouseSql } from "./clickhouse-sql.ts";
import { ClickHouseOutcomeStore } from "./clickhouse-store.ts";
import { outcomeStoreContract } from "./contract/outcome-store.contract.ts";
import { uuidV7 } from "./query-uid.ts";
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

  it("add the shadow columns to a served_searches table made before them, keeping its rows", async () => {
    dbSeq += 1;
    const database = `relevance_t${dbSeq}`;
    await direct.exec(`CREATE DATABASE ${database}`);
    // The table as the first migration made it, with one row.
    await direct.exec(
      `CREATE TABLE ${database}.served_searches (
        account LowCardinality(String), index_name LowCardinality(String),
        index_uid LowCardinality(String), query_uid String, model_id LowCardinality(String),
        score Float64, features Array(Float64), query String, query_key String,
        hit_ids Array(String), estimated_total_hits UInt64, latency_ms Float64,
        served_at DateTime64(3, 'UTC'), user_hash Nullable(String)
      ) ENGINE = MergeTree ORDER BY (account, index_name, served_at, query_uid)`,
    );
    const servedAt = Date.UTC(2026, 0, 1);
    const row = {
      account: "a",
      index: "i",
      indexUid: "i",
      modelId: "m1",
      score: 4,
      features: FEATURE_SET_V1.map(() => 0),
      query: "q",
      queryKey: "q",
      hitIds: [],
      estimatedTotalHits: 0,
      latencyMs: 1,
      servedAt,
      userHash: null,
    };
    await direct.insert(`${database}.served_searches`, [
      {
        account: "a",
        index_name: "i",
        index_uid: "i",
        query_uid: uuidV7(servedAt, new Uint8Array(10)),
        model_id: "m1",
        score: 4,
        features: row.features,
        query: "q",
        query_key: "q",
        hit_ids: [],
        estimated_total_hits: 0,
        latency_ms: 1,
        served_at: "2026-01-01 00:00:00.000",
        user_hash: null,
      },
    ]);
    const store = new ClickHouseOutcomeStore(direct, { database, retentionDays: 3650 });
    await store.migrate();
    await new ClickHouseOutcomeStore(direct, { database, retentionDays: 3650 }).migrate();
    const shadowUid = uuidV7(servedAt + 1, new Uint8Array(10));
    await store.recordSearches([{ ...row, queryUid: shadowUid, shadowModelId: "m2", shadowScore: 7 }]);
    const scope = { account: "a", index: "i", since: 0, until: Date.UTC(2027, 0, 1) };
    const q = await store.quality({ ...scope, minImpressions: 1, maxQueries: 10 });
    expect(q.daily.reduce((n, d) => n + d.searches, 0)).toBe(2);
    expect(await store.shadowPairs({ ...scope, limit: 10 })).toEqual([
      { queryUid: shadowUid, servedAt, modelId: "m1", score: 4, shadowModelId: "m2", shadowScore: 7 },
    ]);
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
