/**
 * The attribution rule of `@monitor/core` (cost/line-items.ts, hierarchy/node-for.ts) as ClickHouse
 * expressions, generated from the same rules config. attribution-sql.test.ts runs a table of cases
 * through both and requires the same answer.
 */
import {
  curTagKey,
  FEE_LINE_ITEM_TYPES,
  type HierarchyRules,
  NO_RESOURCE_REASON,
  SUPPORT_REASON,
  SVC_INFRASTRUCTURE,
  SVC_PURPOSE_TAG,
  UNASSIGNED_ROOT,
} from "@monitor/core";
import { lit, litList } from "./sql.ts";

/** nodeSegment: `%` and `/` percent-encoded. */
function segment(expr: string): string {
  return `replaceAll(replaceAll(${expr}, '%', '%25'), '/', '%2F')`;
}

function tagValue(tagsExpr: string, awsKey: string): string {
  return `trimBoth(${tagsExpr}[${lit(curTagKey(awsKey))}])`;
}

function template(node: string, valueExpr: string, accountExpr: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const m of node.matchAll(/\{(value|account)\}/g)) {
    if (m.index > last) parts.push(lit(node.slice(last, m.index)));
    parts.push(segment(m[1] === "value" ? valueExpr : accountExpr));
    last = m.index + m[0].length;
  }
  if (last < node.length) parts.push(lit(node.slice(last)));
  return parts.length === 1 ? (parts[0] as string) : `concat(${parts.join(", ")})`;
}

/** `assignNode(tags, account, rules, "cur").node` over a `Map(String, String)` of CUR tag keys. */
export function nodeForSql(rules: HierarchyRules, tagsExpr: string, accountExpr: string): string {
  const args = [
    `${tagValue(tagsExpr, SVC_PURPOSE_TAG)} = ${lit(SVC_INFRASTRUCTURE)}`,
    lit(SVC_INFRASTRUCTURE),
  ];
  for (const rule of rules.rules) {
    const value = tagValue(tagsExpr, rule.tag);
    args.push(rule.equals === undefined ? `${value} != ''` : `${value} = ${lit(rule.equals)}`);
    args.push(template(rule.node, value, accountExpr));
  }
  args.push(`concat(${lit(`${UNASSIGNED_ROOT}/`)}, ${segment(accountExpr)})`);
  return `multiIf(${args.join(", ")})`;
}

/** `outsideReason(line)`: "" when a node can hold the line. */
export function outsideReasonSql(cols: {
  lineItemType: string;
  productCode: string;
  resourceId: string;
  tags: string;
}): string {
  return `multiIf(${cols.lineItemType} IN (${litList(FEE_LINE_ITEM_TYPES)}), toString(${cols.lineItemType}), positionCaseInsensitive(${cols.productCode}, 'support') > 0, ${lit(SUPPORT_REASON)}, ${cols.resourceId} = '' AND empty(${cols.tags}), ${lit(NO_RESOURCE_REASON)}, '')`;
}

/**
 * The latest hierarchy as (account, key, node): per account and region only the rows of its latest
 * build (svc.hierarchy_builds), each resource once under its id and once under its ARN.
 */
export const LATEST_HIERARCHY_KEYS_SQL = `SELECT h.cloud_account_id AS account, key, min(h.node) AS node
FROM svc.resource_hierarchy AS h
INNER JOIN (
    SELECT cloud_account_id, cloud_region, max(built_at) AS built_at
    FROM svc.hierarchy_builds
    GROUP BY cloud_account_id, cloud_region
) AS b ON h.cloud_account_id = b.cloud_account_id AND h.cloud_region = b.cloud_region AND h.built_at = b.built_at
ARRAY JOIN arrayFilter(k -> k != '', [h.resource_id, h.arn]) AS key
GROUP BY account, key`;

/**
 * Cost per node per day of one partition (billing period × payer) of a line-items table, into a
 * table shaped like svc.cost_node_daily.
 */
export function nodeDailyInsertSql(opts: {
  rules: HierarchyRules;
  source: string;
  target: string;
  computedAtMs: number;
}): string {
  const node = nodeForSql(opts.rules, "l.tags", "l.usage_account_id");
  const reason = outsideReasonSql({
    lineItemType: "line_item_type",
    productCode: "product_code",
    resourceId: "resource_id",
    tags: "tags",
  });
  return `INSERT INTO ${opts.target}
    (billing_period, payer_account_id, day, node, outside_reason, currency, cost, lines, computed_at)
SELECT l.billing_period, l.payer_account_id, l.day,
    if(l.reason != '', '', if(h.node != '', h.node, ${node})) AS attributed,
    l.reason, l.currency, sum(l.unblended_cost), count(), fromUnixTimestamp64Milli(toInt64(${Math.floor(opts.computedAtMs)}), 'UTC')
FROM (
    SELECT billing_period, payer_account_id, day, usage_account_id, resource_id, tags, currency, unblended_cost,
        ${reason} AS reason
    FROM ${opts.source}
    WHERE billing_period = {bp:Date} AND payer_account_id = {payer:String}
) AS l
LEFT JOIN (${LATEST_HIERARCHY_KEYS_SQL}) AS h ON l.usage_account_id = h.account AND l.resource_id = h.key
GROUP BY l.billing_period, l.payer_account_id, l.day, attributed, l.reason, l.currency`;
}
