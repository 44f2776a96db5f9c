/**
 * The hierarchy builder's reads and writes over ClickHouse (migration 8, docs/monitor-cost.md):
 * the latest resources of one account and region (svc.resources), one build's rows
 * (svc.resource_hierarchy) and its record (svc.hierarchy_builds). Only the latest build of an
 * account and region counts, so a resource the latest build did not see is gone from the hierarchy.
 */

import type { ClickHouseClient } from "@clickhouse/client";
import type { HierarchyRow, HierarchyStore, ResourceRow } from "@monitor/core";
import { chCall, msToCh } from "./clickhouse-call.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import { resourcesLatest } from "./resources-latest.ts";

/** The latest build per account and region. */
export const LATEST_BUILDS_SQL = `SELECT cloud_account_id, cloud_region, max(built_at) AS built_at
FROM svc.hierarchy_builds
GROUP BY cloud_account_id, cloud_region`;

export class ClickHouseHierarchyStore implements HierarchyStore {
  readonly #client: ClickHouseClient;
  readonly #timeoutMs: number;

  constructor(client: ClickHouseClient, opts: { timeoutMs?: number } = {}) {
    this.#client = client;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
  }

  /** A store on the run store's own client (same database, same migrations). */
  static fromStore(store: ClickHouseRunStore): ClickHouseHierarchyStore {
    return new ClickHouseHierarchyStore(store.client, { timeoutMs: Math.max(store.timeoutMs, 10_000) });
  }

  latestResources(accountId: string, region: string): Promise<ResourceRow[]> {
    return resourcesLatest(this.#client, {
      accountIds: [accountId],
      regions: [region],
      sinceLatestSuccess: true,
      timeoutMs: this.#timeoutMs,
    });
  }

  async writeBuild(
    accountId: string,
    region: string,
    builtAt: number,
    rows: readonly HierarchyRow[],
  ): Promise<number> {
    const at = msToCh(builtAt);
    if (rows.length > 0) {
      await chCall("resource_hierarchy insert", this.#timeoutMs, (signal) =>
        this.#client.insert({
          table: "svc.resource_hierarchy",
          values: rows.map((r) => ({ ...r, built_at: at })),
          format: "JSONEachRow",
          abort_signal: signal,
          clickhouse_settings: { async_insert: 0 },
        }),
      );
    }
    await chCall("hierarchy_builds insert", this.#timeoutMs, (signal) =>
      this.#client.insert({
        table: "svc.hierarchy_builds",
        values: [{ cloud_account_id: accountId, cloud_region: region, built_at: at, resources: rows.length }],
        format: "JSONEachRow",
        abort_signal: signal,
        clickhouse_settings: { async_insert: 0 },
      }),
    );
    return rows.length;
  }

  async latestHierarchy(
    opts: { untaggedOnly?: boolean } = {},
  ): Promise<(HierarchyRow & { built_at: number })[]> {
    const rows = await chCall("latestHierarchy", this.#timeoutMs, async (signal) => {
      const rs = await this.#client.query({
        query: `SELECT h.cloud_account_id AS cloud_account_id, h.cloud_region AS cloud_region,
    h.resource_type AS resource_type, h.resource_id AS resource_id, h.arn AS arn, h.node AS node,
    h.rule AS rule, h.untagged_service_reason AS untagged_service_reason,
    toUnixTimestamp64Milli(h.built_at) AS built_ms
FROM svc.resource_hierarchy AS h
INNER JOIN (${LATEST_BUILDS_SQL}) AS b
    ON h.cloud_account_id = b.cloud_account_id AND h.cloud_region = b.cloud_region AND h.built_at = b.built_at
${opts.untaggedOnly ? "WHERE h.untagged_service_reason != ''" : ""}
ORDER BY cloud_account_id, cloud_region, resource_type, resource_id`,
        format: "JSONEachRow",
        abort_signal: signal,
      });
      return rs.json<Record<string, unknown>>();
    });
    return rows.map((r) => ({
      cloud_account_id: String(r.cloud_account_id),
      cloud_region: String(r.cloud_region),
      resource_type: String(r.resource_type),
      resource_id: String(r.resource_id),
      arn: String(r.arn),
      node: String(r.node),
      rule: String(r.rule),
      untagged_service_reason: String(r.untagged_service_reason),
      built_at: Number(r.built_ms),
    }));
  }
}
