import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClickHouseCollectorRegistry, type ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import type { Collector, RunStore } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollectorHandler } from "./collector.ts";
import { COLLECTORS_MODULE } from "./collectors.ts";
import { memoryLogger } from "./test-support.ts";

const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-collector-"));
let store: ClickHouseRunStore;

beforeAll(async () => {
  store = openChdbRunStore(join(dir, "chdb"));
  await store.migrate();
  const now = Date.now();
  await store.upsertAccount({
    account_id: "111111111111",
    account_name: "prod",
    svc_status: "active",
    updated_at: now,
  });
  await store.upsertAccount({
    account_id: "222222222222",
    account_name: "data",
    svc_status: "active",
    updated_at: now,
  });
  await store.upsertAccount({
    account_id: "333333333333",
    account_name: "new",
    svc_status: "pending_setup",
    updated_at: now,
  });
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A collector double: reports fixed counts, or fails for one account (as a refused role would). */
function collectorDouble(name: string, failFor?: string): Collector {
  return {
    name,
    async run(ctx) {
      if (ctx.account.account_id === failFor)
        throw new Error(`AccessDenied: not authorized to assume ${ctx.account.account_id}`);
      return { status: "succeeded", events_produced: 3, rows_inserted: 2 };
    },
  };
}

async function runsOf(
  collector: string,
): Promise<{ account: string; region: string; status: string; error: string }[]> {
  const rs = await store.client.query({
    query: `SELECT cloud_account_id AS account, cloud_region AS region, status, error FROM svc.collector_runs
            WHERE collector = {c:String} ORDER BY account, region`,
    query_params: { c: collector },
    format: "JSONEachRow",
  });
  return rs.json();
}

const handlerFor = (collectors: readonly Collector[], collector: string, storeOverride?: RunStore) =>
  createCollectorHandler({
    store: storeOverride ?? store,
    registry: ClickHouseCollectorRegistry.fromStore(store),
    collectors,
    settings: { collector, regions: ["us-east-1", "eu-west-1"], runTimeoutMs: 10_000 },
    log: memoryLogger(),
  });

describe("svcmon-collector on the embedded chDB store", () => {
  it("runs its collector over every active account × region and records one run each", async () => {
    const summary = await handlerFor([collectorDouble("config_ec2")], "config_ec2")();
    expect(summary).toEqual({
      collector: "config_ec2",
      succeeded: 4,
      failed: 0,
      partial: 0,
      skipped: 0,
      lost: 0,
    });
    expect(await runsOf("config_ec2")).toEqual([
      { account: "111111111111", region: "eu-west-1", status: "succeeded", error: "" },
      { account: "111111111111", region: "us-east-1", status: "succeeded", error: "" },
      { account: "222222222222", region: "eu-west-1", status: "succeeded", error: "" },
      { account: "222222222222", region: "us-east-1", status: "succeeded", error: "" },
    ]); // Each run's start was recorded under its run record's run_id: all paired, none left open.
    const rs = await store.client.query({
      query: `SELECT count() AS n FROM svc.run_starts WHERE collector = 'config_ec2'
                AND run_id IN (SELECT run_id FROM svc.collector_runs WHERE collector = 'config_ec2')`,
      format: "JSONEachRow",
    });
    expect(Number((await rs.json<{ n: unknown }>())[0]?.n)).toBe(4);
    expect((await store.openStarts(0)).filter((o) => o.collector === "config_ec2")).toEqual([]);
  });

  it("records a failing account's runs as failed and still completes the tick", async () => {
    const summary = await handlerFor([collectorDouble("config_ebs", "222222222222")], "config_ebs")();
    expect(summary).toMatchObject({ succeeded: 2, failed: 2 });
    const failed = (await runsOf("config_ebs")).filter((r) => r.status === "failed");
    expect(failed.map((r) => r.error)).toEqual([
      "Error: AccessDenied: not authorized to assume 222222222222",
      "Error: AccessDenied: not authorized to assume 222222222222",
    ]);
  });

  it("refuses a collector this build does not have, pointing at the factory when none is wired", async () => {
    await expect(handlerFor([], "config_network")()).rejects.toThrow(
      `collector config_network is not in this build (no collectors are wired yet: ${COLLECTORS_MODULE})`,
    );
    await expect(handlerFor([collectorDouble("config_ec2")], "config_network")()).rejects.toThrow(
      "collector config_network is not in this build (available: config_ec2)",
    );
  });

  it("fails the invocation when run records cannot be written", async () => {
    // A fault-injecting wrapper of the real store: every insert is refused.
    const refusing = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === "insertRuns") return async () => Promise.reject(new Error("insert refused"));
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    await expect(handlerFor([collectorDouble("config_vpc")], "config_vpc", refusing)()).rejects.toThrow(
      "4 run record(s) of config_vpc could not be written",
    );
  });
});
