import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deliveryLogContract } from "@shared/notify/delivery-log-contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChdbRunStore } from "./chdb.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import { ClickHouseDeliveryLog } from "./delivery-log-clickhouse.ts";

// Real chDB on this file's own data folder. A "reopen" closes the store and opens a new one on the
// same folder, as the next process would.
const dir = mkdtempSync(join(tmpdir(), "svcmon-delivery-log-"));
let store: ClickHouseRunStore;

async function reopenStore(): Promise<ClickHouseRunStore> {
  await store.close();
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  return store;
}

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

deliveryLogContract("ClickHouse (chDB)", async () => ({
  log: ClickHouseDeliveryLog.fromStore(store),
  reopen: async () => ClickHouseDeliveryLog.fromStore(await reopenStore()),
}));

describe("ClickHouseDeliveryLog", () => {
  it("stores attempts in svc.notification_attempts, kept 90 days after the attempt", async () => {
    const log = ClickHouseDeliveryLog.fromStore(store);
    await log.record({
      notificationId: "table-check",
      channel: "hook",
      attempt: 1,
      at: new Date().toISOString(),
      ok: false,
      error: "hook: HTTP 503",
      durationMs: 5,
    });
    const rs = await store.client.query({
      query:
        "SELECT channel, attempt, ok, error FROM svc.notification_attempts WHERE notification_id = 'table-check'",
      format: "JSONEachRow",
    });
    expect(await rs.json()).toEqual([{ channel: "hook", attempt: 1, ok: false, error: "hook: HTTP 503" }]);
    const ddl = await store.client.query({
      query: "SHOW CREATE TABLE svc.notification_attempts",
      format: "JSONEachRow",
    });
    const [{ statement }] = (await ddl.json()) as [{ statement: string }];
    expect(statement).toContain("TTL toDateTime(at) + toIntervalDay(90)");
    expect(statement).toContain("ORDER BY (notification_id, at, attempt, channel)");
  });

  it("refuses an attempt it cannot store faithfully, writing nothing", async () => {
    const log = ClickHouseDeliveryLog.fromStore(store);
    const good = {
      notificationId: "refused",
      channel: "hook",
      attempt: 1,
      at: new Date().toISOString(),
      ok: true,
      durationMs: 1,
    };
    await expect(log.record({ ...good, at: "yesterday" })).rejects.toThrow(/at must be an ISO 8601 time/);
    await expect(log.record({ ...good, attempt: -1 })).rejects.toThrow(/attempt must be an integer/);
    await expect(log.record({ ...good, durationMs: 1.5 })).rejects.toThrow(/durationMs must be an integer/);
    await expect(log.record({ ...good, notificationId: "" })).rejects.toThrow(/notificationId/);
    expect(await log.attempts("refused")).toEqual([]);
  });
});
