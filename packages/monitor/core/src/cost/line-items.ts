/**
 * Cost attribution: which hierarchy node a cost line belongs to, or why it is
 * outside any node. This is the reference of the rule; the store computes the same in SQL
 * (`packages/monitor/cost/src/attribution-sql.ts`, checked against this file by a shared table of cases).
 *
 * 1. Charges no resource can carry a tag for are outside any node, under their reason:
 *    line item types Tax, Fee, RIFee, SavingsPlanRecurringFee, SavingsPlanUpfrontFee (that type is
 *    the reason), any line of an AWS Support product (`Support`), and a line with neither a resource
 *    id nor tags (`NoResource`).
 * 2. A line whose (usage account, resource id) is in the latest hierarchy gets that resource's node.
 * 3. Any other line is placed by the hierarchy rules on its own CUR tags (a tagged resource the
 *    collectors never saw still counts; an untagged one lands in `unassigned/<account>`).
 */
import { assignNode } from "../hierarchy/node-for.ts";
import type { HierarchyRules } from "../hierarchy/rules.ts";
import type { Tags } from "../hierarchy/tags.ts";

/** Line item types that are charges of the account (or organisation), never of a resource. */
export const FEE_LINE_ITEM_TYPES: readonly string[] = [
  "Tax",
  "Fee",
  "RIFee",
  "SavingsPlanRecurringFee",
  "SavingsPlanUpfrontFee",
];
export const SUPPORT_REASON = "Support";
export const NO_RESOURCE_REASON = "NoResource";

/** One cost line as the attribution sees it (tags in CUR key form, e.g. `user_team`). */
export interface CostLine {
  usage_account_id: string;
  /** UTC usage day, YYYY-MM-DD. */
  day: string;
  line_item_type: string;
  product_code: string;
  resource_id: string;
  cost: number;
  currency: string;
  tags: Tags;
}

/** Why a line is outside any node, or null when a node can hold it. */
export function outsideReason(
  line: Pick<CostLine, "line_item_type" | "product_code" | "resource_id" | "tags">,
): string | null {
  if (FEE_LINE_ITEM_TYPES.includes(line.line_item_type)) return line.line_item_type;
  if (line.product_code.toLowerCase().includes("support")) return SUPPORT_REASON;
  if (line.resource_id === "" && Object.keys(line.tags).length === 0) return NO_RESOURCE_REASON;
  return null;
}

/** `node` is "" when the line is outside any node; `outside_reason` is "" when it is in one. */
export interface Attribution {
  node: string;
  outside_reason: string;
}

/** Hierarchy lookup key of a resource: account and id (or ARN). */
export function resourceKey(account: string, resourceId: string): string {
  return `${account}\u0000${resourceId}`;
}

export function attributeLine(
  line: CostLine,
  hierarchy: ReadonlyMap<string, string>,
  rules: HierarchyRules,
): Attribution {
  const reason = outsideReason(line);
  if (reason !== null) return { node: "", outside_reason: reason };
  const known =
    line.resource_id === "" ? undefined : hierarchy.get(resourceKey(line.usage_account_id, line.resource_id));
  if (known !== undefined) return { node: known, outside_reason: "" };
  return { node: assignNode(line.tags, line.usage_account_id, rules, "cur").node, outside_reason: "" };
}

/** One row of cost per node per day (the shape of svc.cost_node_daily). */
export interface NodeDayCost extends Attribution {
  day: string;
  currency: string;
  cost: number;
  lines: number;
}

/** Cost per node (or outside reason) per day and currency, sorted by day, node, reason, currency. */
export function costPerNodePerDay(
  lines: readonly CostLine[],
  hierarchy: ReadonlyMap<string, string>,
  rules: HierarchyRules,
): NodeDayCost[] {
  const out = new Map<string, NodeDayCost>();
  for (const line of lines) {
    const a = attributeLine(line, hierarchy, rules);
    const key = JSON.stringify([line.day, a.node, a.outside_reason, line.currency]);
    const row = out.get(key);
    if (row === undefined)
      out.set(key, { day: line.day, ...a, currency: line.currency, cost: line.cost, lines: 1 });
    else {
      row.cost += line.cost;
      row.lines += 1;
    }
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}
