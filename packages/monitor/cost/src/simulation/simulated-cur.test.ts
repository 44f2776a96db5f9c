/** The simulated cost reports of `npm start`, written and ingested through real chDB. */

import { DEMO_ACCOUNTS, DEMO_REGIONS, SimulatedCloud } from "@monitor/aws/simulation";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { openTempStore } from "@monitor/clickhouse/test-support/temp-store";
import { addDays, DEFAULT_HIERARCHY_RULES, utcDay } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClickHouseCostStore } from "../cost-store.ts";
import { simulatedCurDay, writeSimulatedCurReports } from "./simulated-cur.ts";

const NOW = Date.now();
let store: ClickHouseRunStore;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const t = await openTempStore("svcmon-simulated-cur-");
  store = t.store;
  dir = t.dir;
  cleanup = t.cleanup;
}, 60_000);

afterAll(async () => {
  await cleanup?.();
});

describe("simulated cost reports", () => {
  const opts = () => ({
    client: store.client,
    cloud: new SimulatedCloud(),
    accounts: DEMO_ACCOUNTS,
    regions: DEMO_REGIONS,
    dir: `${dir}/cur`,
    now: NOW,
  });

  it("a day is deterministic and carries tax, the service's tagged and untagged resources", () => {
    const day = addDays(utcDay(NOW), -3);
    const a = simulatedCurDay(opts(), day, 1);
    expect(simulatedCurDay(opts(), day, 1)).toEqual(a);
    expect(a.filter((l) => l.line_item_type === "Tax")).toHaveLength(DEMO_ACCOUNTS.length);
    const svc = a.filter((l) => l.tags?.["svc:purpose"] === "svc-infrastructure");
    expect(svc.some((l) => l.resource_id.includes(":function:svcmon-"))).toBe(true);
    expect(svc.some((l) => l.resource_id.startsWith("i-"))).toBe(true);
    expect(a.some((l) => l.resource_id.endsWith(":svcmon-events-dlq") && !l.tags?.["svc:purpose"])).toBe(
      true,
    );
    expect(a.every((l) => l.payer_account_id === DEMO_ACCOUNTS[0]?.account_id)).toBe(true);
  });

  it("written and ingested, they give an own cost at once, and a restart ingests them again idempotently", async () => {
    const cost = ClickHouseCostStore.fromStore(store, { rules: DEFAULT_HIERARCHY_RULES });
    for (let round = 0; round < 2; round++) {
      const deliveries = await writeSimulatedCurReports(opts());
      expect(deliveries.length).toBeGreaterThanOrEqual(2);
      for (const d of deliveries) await cost.ingest(d);
    }
    const r = await cost.ownCost(NOW);
    expect(r.currency).toBe("USD");
    expect(r.last_30_days_total).toBeGreaterThan(0);
    expect(r.daily.every((d) => d.cost > 0)).toBe(true);
    expect(r.outside_any_node.by_reason.map((x) => x.reason)).toContain("Tax");
    expect(r.untagged_service_resources.map((u) => u.resource_id)).toEqual(
      expect.arrayContaining([expect.stringMatching(/:svcmon-events-dlq$/)]),
    );
    const [n] = await (
      await store.client.query({
        query: "SELECT count() AS lines, uniqExact(source_file) AS files FROM svc.cost_line_items",
        format: "JSONEachRow",
      })
    ).json<{ lines: number; files: number }>();
    const perDay = simulatedCurDay(opts(), addDays(utcDay(NOW), -1), 1).length;
    // 36 days (the 35 before today, and today); the first of a month adds a support fee per account
    expect(Number(n?.lines)).toBeGreaterThanOrEqual(36 * perDay - DEMO_ACCOUNTS.length);
    expect(Number(n?.lines)).toBeLessThanOrEqual(36 * perDay + 2 * DEMO_ACCOUNTS.length);
  });
});
