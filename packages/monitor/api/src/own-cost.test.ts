/**
 * The service's own cost end to end on real chDB: a hierarchy build, two billing periods of cost
 * reports, the `own_cost` block (store and status route), re-attribution after a new build.
 */

import { ClickHouseHierarchyStore, type ClickHouseRunStore } from "@monitor/clickhouse";
import { addDays, DEFAULT_HIERARCHY_RULES, monthStart, utcDay } from "@monitor/core";
import { ClickHouseCostStore, type CurLine, fileSource, ownCostForStatus, writeCurFile } from "@monitor/cost";
import { hierarchyRows } from "@monitor/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, makeApp, openTempStore } from "./test-support.ts";

const NOW = Date.now();
const TODAY = utcDay(NOW);
const ACC = "333333333333";
const PAYER = "999999999999";
const REGION = "us-east-1";
const LAMBDA = `arn:aws:lambda:us-east-1:${ACC}:function:svcmon-collector`;
const DLQ = `arn:aws:sqs:us-east-1:${ACC}:svcmon-dlq`;

let store: ClickHouseRunStore;
let dir: string;
let cleanup: () => Promise<void>;
let cost: ClickHouseCostStore;
let hierarchy: ClickHouseHierarchyStore;
const errors: unknown[] = [];

/** Per day: svc resources 1 + 2 + 4, a team's instance 8, an untagged service queue 16, tax 0.5. */
function day(d: string): CurLine[] {
  const base = {
    billing_period: monthStart(d),
    payer_account_id: PAYER,
    usage_account_id: ACC,
    line_item_type: "Usage",
    usage_start: `${d}T00:00:00Z`,
    product_code: "AmazonEC2",
    currency: "USD",
  };
  return [
    // tagged in the report
    { ...base, resource_id: "i-svc", unblended_cost: 1, tags: { "svc:purpose": "svc-infrastructure" } },
    // tagged in the report only; the collectors never see Lambda functions
    {
      ...base,
      product_code: "AWSLambda",
      resource_id: LAMBDA,
      unblended_cost: 2,
      tags: { "svc:purpose": "svc-infrastructure" },
    },
    // untagged in the report (tag not activated for billing), tagged on the resource: the hierarchy knows
    { ...base, resource_id: "i-db", unblended_cost: 4, tags: {} },
    { ...base, resource_id: "i-web", unblended_cost: 8, tags: { team: "web" } },
    { ...base, product_code: "AWSQueueService", resource_id: DLQ, unblended_cost: 16, tags: {} },
    { ...base, line_item_type: "Tax", resource_id: "", unblended_cost: 0.5, tags: {} },
  ];
}

async function build(resources: { id: string; tags: Record<string, string> }[]): Promise<void> {
  const rows = hierarchyRows(
    resources.map((r) => ({
      cloud_account_id: ACC,
      cloud_region: REGION,
      resource_type: "ec2_instance",
      resource_id: r.id,
      arn: "",
      tags: r.tags,
    })),
    DEFAULT_HIERARCHY_RULES,
  );
  await hierarchy.writeBuild(ACC, REGION, Date.now(), rows);
}

beforeAll(async () => {
  const t = await openTempStore("svcmon-own-cost-");
  store = t.store;
  dir = t.dir;
  cleanup = t.cleanup;
  hierarchy = ClickHouseHierarchyStore.fromStore(store);
  cost = ClickHouseCostStore.fromStore(store, {
    rules: DEFAULT_HIERARCHY_RULES,
    onError: (e) => errors.push(e),
  });
  await build([
    { id: "i-svc", tags: { "svc:purpose": "svc-infrastructure" } },
    { id: "i-db", tags: { "svc:purpose": "svc-infrastructure", Name: "svcmon-clickhouse-1" } },
    { id: "i-web", tags: { team: "web" } },
    { id: "i-bastion", tags: { Name: "svcmon-bastion", team: "platform" } },
  ]);
  // 40 days through today, one report per billing period (a month boundary lies inside).
  const days = Array.from({ length: 41 }, (_, i) => addDays(TODAY, i - 40));
  const byPeriod = new Map<string, CurLine[]>();
  for (const d of days) byPeriod.set(monthStart(d), [...(byPeriod.get(monthStart(d)) ?? []), ...day(d)]);
  for (const [period, lines] of byPeriod) {
    const path = `${dir}/cur-${period}.csv.gz`;
    await writeCurFile(store.client, path, "legacy-csv", lines);
    await cost.ingest([fileSource(path)]);
  }
}, 60_000);

afterAll(async () => {
  await cleanup?.();
});

const dayOfMonth = Number(TODAY.slice(8, 10));

describe("own cost: the svc-infrastructure node", () => {
  it("last 30 complete days daily, month to date, the charges outside any node", async () => {
    const r = await cost.ownCost(NOW);
    expect(r.node).toBe("svc-infrastructure");
    expect(r.currency).toBe("USD");
    // i-svc (report tag) + the Lambda (report tag, never inventoried) + i-db (hierarchy) = 7 a day
    expect(r.daily).toHaveLength(30);
    expect(r.daily[0]).toEqual({ day: addDays(TODAY, -30), cost: 7 });
    expect(r.daily[29]).toEqual({ day: addDays(TODAY, -1), cost: 7 });
    expect(r.last_30_days_total).toBe(210);
    expect(r.month_to_date).toBe(7 * dayOfMonth);
    expect(r.outside_any_node).toEqual({
      currency: "USD",
      month_to_date: 0.5 * dayOfMonth,
      last_30_days_total: 15,
      by_reason: [{ reason: "Tax", month_to_date: 0.5 * dayOfMonth, last_30_days_total: 15 }],
    });
    expect(r.as_of).not.toBeNull();
    expect(r.data_through).toBe(TODAY);
  });

  it("lists the service's resources that lack the tag, from the inventory and from the reports", async () => {
    const r = await cost.ownCost(NOW);
    expect(r.untagged_service_resources).toEqual([
      {
        cloud_account_id: ACC,
        cloud_region: "",
        resource_id: DLQ,
        resource_type: "",
        reason: "ARN name svcmon-dlq starts with svcmon-",
        source: "cost_report",
      },
      {
        cloud_account_id: ACC,
        cloud_region: REGION,
        resource_id: "i-bastion",
        resource_type: "ec2_instance",
        reason: "Name tag svcmon-bastion starts with svcmon-",
        source: "inventory",
      },
    ]);
  });

  it("cost per hierarchy node per day", async () => {
    const d = addDays(TODAY, -1);
    const rows = await cost.costPerNodePerDay(d, d);
    expect(rows.map((r) => [r.node, r.outside_reason, r.cost, r.lines])).toEqual([
      ["", "Tax", 0.5, 1],
      ["svc-infrastructure", "", 7, 3],
      ["teams/web", "", 8, 1],
      [`unassigned/${ACC}`, "", 16, 1],
    ]);
  });

  it("a new hierarchy build counts after re-attribution (coalesced, in the background)", async () => {
    await build([
      { id: "i-svc", tags: { "svc:purpose": "svc-infrastructure" } },
      { id: "i-db", tags: { "svc:purpose": "svc-infrastructure" } },
      { id: "i-web", tags: { team: "web", "svc:purpose": "svc-infrastructure" } },
    ]);
    expect((await cost.ownCost(NOW)).daily[29]?.cost).toBe(7);
    cost.requestReattribution();
    cost.requestReattribution();
    cost.requestReattribution();
    await cost.idle();
    expect(errors).toEqual([]);
    const r = await cost.ownCost(NOW);
    expect(r.daily[29]?.cost).toBe(15);
    // Re-attribution covers this month and the previous one; days before that keep their attribution.
    const prevMonth = addDays(monthStart(TODAY), -1);
    const old = r.daily.filter((x) => x.day < monthStart(prevMonth));
    expect(old.every((x) => x.cost === 7)).toBe(true);
    expect(r.untagged_service_resources.map((u) => u.resource_id)).toEqual([DLQ]);
  });
});

describe("own_cost in the status body", () => {
  it("GET /api/system/status carries own_cost when the app has a provider, and not otherwise", async () => {
    const withCost = makeApp({ store, ownCost: (now) => cost.ownCost(now) });
    const r = await call(withCost, "GET", "/api/system/status");
    expect(r.status).toBe(200);
    expect(r.body.own_cost).toMatchObject({
      node: "svc-infrastructure",
      currency: "USD",
      month_to_date: 15 * dayOfMonth,
    });
    expect(r.body.own_cost.daily).toHaveLength(30);
    const without = await call(makeApp({ store }), "GET", "/api/system/status");
    expect(without.status).toBe(200);
    expect("own_cost" in without.body).toBe(false);
  });

  it("a failing or hanging read gives own_cost null and why, never a failed status", async () => {
    expect(await ownCostForStatus(() => Promise.reject(new Error("boom")), NOW, 100)).toEqual({
      own_cost: null,
      own_cost_error: "own cost could not be read: boom",
    });
    expect(await ownCostForStatus(() => new Promise(() => {}), NOW, 30)).toEqual({
      own_cost: null,
      own_cost_error: "own cost did not answer within 30 ms",
    });
    expect(await ownCostForStatus(undefined, NOW, 30)).toEqual({});
  });
});
