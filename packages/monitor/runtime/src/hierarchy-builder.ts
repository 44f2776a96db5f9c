/**
 * The `hierarchy_builder` collector: for one account and region it reads the
 * latest resources (svc.resources), places each in the resource hierarchy by the rules (the
 * svc-infrastructure node first), marks the service's own resources that lack the tag, and writes
 * the build. The runtime runs it behind the dependency gate: the Scheduler's
 * DEFAULT_GATES name this collector, so a run without a recent config_* success fails with
 * `dependency not met: ...` before this code is called.
 */
import {
  assignNode,
  type Collector,
  type CollectorResult,
  type HierarchyRow,
  type HierarchyRules,
  type HierarchyStore,
  untaggedServiceReason,
} from "@monitor/core";

export const HIERARCHY_BUILDER = "hierarchy_builder";

export interface BuiltHierarchy {
  accountId: string;
  region: string;
  builtAt: number;
  resources: number;
}

export interface HierarchyBuilderOptions {
  store: HierarchyStore;
  /** The rules, or a function read at every run (so a reloaded config applies at the next run). */
  rules: HierarchyRules | (() => HierarchyRules);
  /** Called after a build is written (the cost attribution re-runs on it). */
  onBuilt?: (build: BuiltHierarchy) => void;
}

export function hierarchyRows(
  resources: readonly {
    cloud_account_id: string;
    cloud_region: string;
    resource_type: string;
    resource_id: string;
    arn: string;
    tags: Record<string, string>;
  }[],
  rules: HierarchyRules,
): HierarchyRow[] {
  return resources.map((r) => {
    const placed = assignNode(r.tags, r.cloud_account_id, rules, "aws");
    return {
      cloud_account_id: r.cloud_account_id,
      cloud_region: r.cloud_region,
      resource_type: r.resource_type,
      resource_id: r.resource_id,
      arn: r.arn,
      node: placed.node,
      rule: placed.rule,
      untagged_service_reason:
        untaggedServiceReason(
          { resource_id: r.resource_id, arn: r.arn, tags: r.tags },
          rules.service,
          "aws",
        ) ?? "",
    };
  });
}

export function hierarchyBuilder(opts: HierarchyBuilderOptions): Collector {
  return {
    name: HIERARCHY_BUILDER,
    async run(ctx): Promise<CollectorResult> {
      const rules = typeof opts.rules === "function" ? opts.rules() : opts.rules;
      const { account_id: accountId } = ctx.account;
      const resources = await opts.store.latestResources(accountId, ctx.region);
      // A run the runtime already gave up on (timeout) must not write a build after its record.
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const rows = hierarchyRows(resources, rules);
      const builtAt = ctx.now();
      const written = await opts.store.writeBuild(accountId, ctx.region, builtAt, rows);
      opts.onBuilt?.({ accountId, region: ctx.region, builtAt, resources: rows.length });
      return { status: "succeeded", events_produced: resources.length, rows_inserted: written };
    },
  };
}
