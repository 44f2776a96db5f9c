/**
 * The latest state of each resource in `svc.resources`: argMax over observed_at per
 * (cloud_account_id, cloud_region, resource_type, resource_id). No FINAL: argMax ignores the
 * duplicates that ReplacingMergeTree has not merged yet.
 */

import type { ClickHouseClient } from "@clickhouse/client";
import type { ResourceRow } from "@monitor/core";
import { chCall } from "./clickhouse-call.ts";
import { keyStartedMs } from "./migrations.ts";

/**
 * Per collector × account × region that ever succeeded: the started_at of its latest succeeded run
 * (by the order of "latest", docs/monitor-rules.md), from svc.collector_series (migration 14).
 */
export const LATEST_SUCCESS_STARTED_SQL = `SELECT collector, cloud_account_id, cloud_region,
        fromUnixTimestamp64Milli(${keyStartedMs("max(latest_success_key)")}) AS success_started
    FROM svc.collector_series
    GROUP BY collector, cloud_account_id, cloud_region
    HAVING max(last_success_at) > toDateTime64(0, 3)`;

export interface ResourcesLatestQuery {
  /**
   * Keep resources whose latest observation is at or after this time (epoch ms), for example
   * now − 2 × the collector interval. Default 0 (no time bound).
   */
  sinceMs?: number;
  /**
   * Keep only resources observed since the start of the latest `succeeded` run of their collector
   * for their account and region (svc.collector_series); subjects that never succeeded give none.
   * Combines with `sinceMs`.
   */
  sinceLatestSuccess?: boolean;
  accountIds?: readonly string[];
  regions?: readonly string[];
  resourceTypes?: readonly string[];
  collectors?: readonly string[];
  /** Only resources carrying this tag key (and value, when given) in their latest state. */
  tag?: { key: string; value?: string };
  /** Upper bound of the query. Default 10 000 ms. */
  timeoutMs?: number;
}

const num = (v: unknown): number => (typeof v === "number" ? v : Number(v));

function parseAttributes(text: unknown): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(String(text));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Latest state per resource, ordered by account, region, type and id. */
export async function resourcesLatest(
  client: ClickHouseClient,
  q: ResourcesLatestQuery = {},
): Promise<ResourceRow[]> {
  const where = ["r.observed_at >= fromUnixTimestamp64Milli({since:Int64})"];
  const params: Record<string, unknown> = { since: Math.max(0, Math.floor(q.sinceMs ?? 0)) };
  const inList = (column: string, name: string, values: readonly string[] | undefined) => {
    if (values === undefined) return;
    where.push(`${column} IN {${name}:Array(String)}`);
    params[name] = [...values];
  };
  inList("r.cloud_account_id", "accounts", q.accountIds);
  inList("r.cloud_region", "regions", q.regions);
  inList("r.resource_type", "types", q.resourceTypes);
  inList("r.collector", "collectors", q.collectors);
  const join = q.sinceLatestSuccess
    ? `INNER JOIN (
${LATEST_SUCCESS_STARTED_SQL}
) AS ls ON r.collector = ls.collector AND r.cloud_account_id = ls.cloud_account_id AND r.cloud_region = ls.cloud_region`
    : "";
  if (q.sinceLatestSuccess) where.push("r.observed_at >= ls.success_started");
  let having = "";
  if (q.tag !== undefined) {
    params.tagKey = q.tag.key;
    having =
      q.tag.value === undefined
        ? "HAVING mapContains(tags, {tagKey:String})"
        : "HAVING mapContains(tags, {tagKey:String}) AND tags[{tagKey:String}] = {tagValue:String}";
    if (q.tag.value !== undefined) params.tagValue = q.tag.value;
  }
  // (observed_at, run_id) as the argMax key: two observations in the same millisecond still pick
  // one row deterministically.
  const key = "(r.observed_at, r.run_id)";
  const rows = await chCall("resourcesLatest", q.timeoutMs ?? 10_000, async (signal) => {
    const rs = await client.query({
      query: `SELECT
    r.cloud_account_id AS cloud_account_id,
    r.cloud_region AS cloud_region,
    r.resource_type AS resource_type,
    r.resource_id AS resource_id,
    argMax(r.arn, ${key}) AS arn,
    argMax(r.tags, ${key}) AS tags,
    argMax(r.attributes, ${key}) AS attributes,
    toUnixTimestamp64Milli(max(r.observed_at)) AS observed_ms,
    toString(argMax(r.run_id, ${key})) AS run_id,
    argMax(r.collector, ${key}) AS collector
FROM svc.resources AS r
${join}
WHERE ${where.join(" AND ")}
GROUP BY r.cloud_account_id, r.cloud_region, r.resource_type, r.resource_id
${having}
ORDER BY cloud_account_id, cloud_region, resource_type, resource_id`,
      format: "JSONEachRow",
      query_params: params,
      abort_signal: signal,
    });
    return rs.json<Record<string, unknown>>();
  });
  return rows.map((r) => ({
    resource_id: String(r.resource_id),
    resource_type: String(r.resource_type),
    arn: String(r.arn),
    cloud_account_id: String(r.cloud_account_id),
    cloud_region: String(r.cloud_region),
    tags: { ...((r.tags ?? {}) as Record<string, string>) },
    attributes: parseAttributes(r.attributes),
    observed_at: num(r.observed_ms),
    run_id: String(r.run_id),
    collector: String(r.collector),
  }));
}
