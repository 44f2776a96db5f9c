/**
 * The SQL form of the attribution rule (attribution-sql.ts) against its reference in @monitor/core
 * (costPerNodePerDay): one table of cases, both must answer the same. Real chDB.
 */

import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { openTempStore } from "@monitor/clickhouse/test-support/temp-store";
import { addDays, type CostLine, costPerNodePerDay, type HierarchyRules, resourceKey } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeDailyInsertSql, nodeForSql } from "./attribution-sql.ts";

const RULES: HierarchyRules = {
  rules: [
    { tag: "env", equals: "prod", node: "production/{account}" },
    { tag: "team", node: "teams/{value}" },
    { tag: "Cost Center", node: "cc/{value}/{account}/x" },
    { tag: "owner", node: "owners" },
  ],
  service: { name_prefixes: ["svcmon-"], stack_names: [] },
};
const ACC = "111111111111";
const PAYER = "999999999999";
// Builds must be recent: rows older than the tables' 90-day TTL are dropped at insert.
const chTime = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);
const T1 = chTime(Date.now() - 2 * 3_600_000);
const T2 = chTime(Date.now() - 3_600_000);

/** [name, line (day is set per case), ...] */
const CASES: [string, Partial<CostLine>][] = [
  ["known resource: the latest build's node", { resource_id: "i-known", tags: { user_team: "other" } }],
  ["known by ARN", { resource_id: "arn:aws:ec2:us-east-1:111111111111:instance/i-arn" }],
  ["a resource only an older build had", { resource_id: "i-gone" }],
  ["svc tag", { resource_id: "x-1", tags: { user_svc_purpose: "svc-infrastructure", user_team: "web" } }],
  ["svc tag with spaces", { resource_id: "x-2", tags: { user_svc_purpose: "  svc-infrastructure  " } }],
  [
    "svc tag, another value",
    { resource_id: "x-3", tags: { user_svc_purpose: "svc-infra", user_team: "web" } },
  ],
  ["equals rule", { resource_id: "x-4", tags: { user_env: "prod", user_team: "web" } }],
  ["equals rule, other value", { resource_id: "x-5", tags: { user_env: "dev", user_team: " web " } }],
  ["value with / and %", { resource_id: "x-6", tags: { user_team: "data/50%" } }],
  ["blank value is absent", { resource_id: "x-7", tags: { user_team: "   ", user_cost_center: "cc 7" } }],
  ["template without placeholder", { resource_id: "x-8", tags: { user_owner: "me" } }],
  ["account with a slash", { resource_id: "x-9", usage_account_id: "a/b" }],
  ["untagged unknown resource", { resource_id: "x-10" }],
  ["Tax", { line_item_type: "Tax", resource_id: "", tags: {} }],
  ["Fee with a resource", { line_item_type: "Fee", resource_id: "x-11" }],
  ["Savings Plan upfront fee", { line_item_type: "SavingsPlanUpfrontFee", resource_id: "" }],
  ["Support", { product_code: "AWSSupportBusiness", resource_id: "" }],
  ["no resource, no tags", { resource_id: "", tags: {} }],
  ["no resource, tagged", { resource_id: "", tags: { user_team: "web" } }],
  ["a credit", { line_item_type: "Credit", resource_id: "x-12", cost: -2.5 }],
  ["another currency", { resource_id: "i-known", currency: "EUR" }],
];

let store: ClickHouseRunStore;
let cleanup: () => Promise<void>;

async function exec(query: string, params: Record<string, unknown> = {}): Promise<void> {
  await store.client.command({ query, query_params: params });
}
async function rows<T>(query: string): Promise<T[]> {
  const rs = await store.client.query({ query, format: "JSONEachRow" });
  return rs.json<T>();
}

beforeAll(async () => {
  const t = await openTempStore("svcmon-attribution-sql-");
  store = t.store;
  cleanup = t.cleanup;
  // Two builds of one account/region: only the latest (T2) counts.
  await exec(`INSERT INTO svc.hierarchy_builds VALUES
    ('${ACC}', 'us-east-1', '${T1}', 1), ('${ACC}', 'us-east-1', '${T2}', 2)`);
  await exec(`INSERT INTO svc.resource_hierarchy
    (cloud_account_id, cloud_region, resource_type, resource_id, arn, node, rule, built_at) VALUES
    ('${ACC}', 'us-east-1', 'ec2_instance', 'i-gone', '', 'teams/old', 'rules[1]', '${T1}'),
    ('${ACC}', 'us-east-1', 'ec2_instance', 'i-known', '', 'teams/payments', 'rules[1]', '${T2}'),
    ('${ACC}', 'us-east-1', 'ec2_instance', 'i-arn', 'arn:aws:ec2:us-east-1:111111111111:instance/i-arn', 'owners', 'rules[3]', '${T2}')`);
}, 60_000);

afterAll(async () => {
  await cleanup?.();
});

describe("attribution in SQL = attribution in @monitor/core", () => {
  it("every case lands in the same node (or outside reason) with the same cost", async () => {
    const lines: CostLine[] = CASES.map(([, p], i) => ({
      usage_account_id: ACC,
      day: addDays("2025-05-01", i),
      line_item_type: "Usage",
      product_code: "AmazonEC2",
      resource_id: "",
      cost: 1.25,
      currency: "USD",
      tags: {},
      ...p,
    }));
    await exec("CREATE TABLE svc.t_lines AS svc.cost_line_items");
    await exec("CREATE TABLE svc.t_daily AS svc.cost_node_daily");
    await store.client.insert({
      table: "svc.t_lines",
      values: lines.map((l, i) => ({
        billing_period: "2025-05-01",
        payer_account_id: PAYER,
        usage_account_id: l.usage_account_id,
        line_item_type: l.line_item_type,
        usage_start: `${l.day} 00:00:00`,
        day: l.day,
        product_code: l.product_code,
        resource_id: l.resource_id,
        unblended_cost: String(l.cost),
        currency: l.currency,
        tags: l.tags,
        source_file: "cases",
        source_row: i + 1,
        ingested_at: "2025-06-01 00:00:00",
      })),
      format: "JSONEachRow",
    });
    await exec(
      nodeDailyInsertSql({ rules: RULES, source: "svc.t_lines", target: "svc.t_daily", computedAtMs: 0 }),
      {
        bp: "2025-05-01",
        payer: PAYER,
      },
    );
    const got = await rows<{
      day: string;
      node: string;
      outside_reason: string;
      currency: string;
      cost: string;
      lines: string;
    }>(
      "SELECT toString(day) AS day, node, outside_reason, currency, toString(cost) AS cost, lines FROM svc.t_daily ORDER BY day, node, outside_reason, currency",
    );
    const hierarchy = new Map([
      [resourceKey(ACC, "i-known"), "teams/payments"],
      [resourceKey(ACC, "i-arn"), "owners"],
      [resourceKey(ACC, "arn:aws:ec2:us-east-1:111111111111:instance/i-arn"), "owners"],
    ]);
    const expected = costPerNodePerDay(lines, hierarchy, RULES);
    expect(got.map((r) => ({ ...r, cost: Number(r.cost), lines: Number(r.lines) }))).toEqual(expected);
    // A few answers spelled out, so the reference itself is pinned too.
    const nodeOf = (name: string) => {
      const i = CASES.findIndex(([n]) => n === name);
      return expected.find((r) => r.day === addDays("2025-05-01", i));
    };
    expect(nodeOf("a resource only an older build had")?.node).toBe(`unassigned/${ACC}`);
    expect(nodeOf("svc tag with spaces")?.node).toBe("svc-infrastructure");
    expect(nodeOf("value with / and %")?.node).toBe("teams/data%2F50%25");
    expect(nodeOf("account with a slash")?.node).toBe("unassigned/a%2Fb");
    expect(nodeOf("blank value is absent")?.node).toBe(`cc/cc 7/${ACC}/x`);
    expect(nodeOf("Support")).toMatchObject({ node: "", outside_reason: "Support" });
  });

  it("nodeForSql with no user rules: svc-infrastructure or unassigned", async () => {
    const sql = nodeForSql({ rules: [], service: RULES.service }, "t", "a");
    const got = await rows<{ x: string }>(
      `SELECT ${sql} AS x FROM (SELECT map('user_svc_purpose', 'svc-infrastructure') AS t, '1' AS a
        UNION ALL SELECT map('user_team', 'web'), '1') ORDER BY x`,
    );
    const r = { x: got[0]?.x, y: got[1]?.x };
    expect(r).toEqual({ x: "svc-infrastructure", y: "unassigned/1" });
  });
});
