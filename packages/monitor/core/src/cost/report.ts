/**
 * The `own_cost` block of the status body (docs/monitor-api.md): the svc-infrastructure node's cost,
 * the charges outside any node, and the resources that belong to the service but lack the tag.
 */
import { SVC_INFRASTRUCTURE } from "../hierarchy/tags.ts";
import type { EpochMs } from "../records.ts";
import {
  type CostSummary,
  type DayCost,
  type OutsideSummary,
  OWN_COST_DAYS,
  type ReasonDayCost,
  summarizeCost,
  summarizeOutside,
} from "./own-cost.ts";

export interface UntaggedServiceResource {
  cloud_account_id: string;
  /** "" when only the cost report knows the resource (CUR has no region column we keep). */
  cloud_region: string;
  resource_id: string;
  resource_type: string;
  /** Why it is taken as the service's own (service-owned.ts). */
  reason: string;
  /** `inventory`: the latest hierarchy build saw it; `cost_report`: a cost line of the last 30 days. */
  source: "inventory" | "cost_report";
}

export interface OwnCostReport extends CostSummary {
  node: string;
  untagged_service_resources: UntaggedServiceResource[];
  outside_any_node: OutsideSummary;
  /** When the latest cost report was ingested (ISO), null when none was. */
  as_of: string | null;
  /** The latest usage day in the ingested reports (YYYY-MM-DD), null when none. */
  data_through: string | null;
}

export interface OwnCostInput {
  /** The svc-infrastructure node's cost per day and currency. */
  svcDaily: readonly DayCost[];
  /** Charges outside any node per day, reason and currency. */
  outsideDaily: readonly ReasonDayCost[];
  untagged: readonly UntaggedServiceResource[];
  lastIngestAt: EpochMs | null;
  dataThrough: string | null;
}

/** Inventory entries win over cost-report entries of the same account and resource id. */
export function mergeUntagged(list: readonly UntaggedServiceResource[]): UntaggedServiceResource[] {
  const byKey = new Map<string, UntaggedServiceResource>();
  for (const u of list) {
    const key = `${u.cloud_account_id}\u0000${u.resource_id}`;
    const seen = byKey.get(key);
    if (seen === undefined || (seen.source === "cost_report" && u.source === "inventory")) byKey.set(key, u);
  }
  return [...byKey.values()].sort((a, b) =>
    a.cloud_account_id === b.cloud_account_id
      ? a.resource_id < b.resource_id
        ? -1
        : a.resource_id > b.resource_id
          ? 1
          : 0
      : a.cloud_account_id < b.cloud_account_id
        ? -1
        : 1,
  );
}

export function ownCostReport(
  input: OwnCostInput,
  now: EpochMs,
  days: number = OWN_COST_DAYS,
): OwnCostReport {
  const own = summarizeCost(input.svcDaily, now, days);
  return {
    node: SVC_INFRASTRUCTURE,
    ...own,
    untagged_service_resources: mergeUntagged(input.untagged),
    outside_any_node: summarizeOutside(input.outsideDaily, now, own.currency, days),
    as_of: input.lastIngestAt === null ? null : new Date(input.lastIngestAt).toISOString(),
    data_through: input.dataThrough,
  };
}
