/**
 * SQL of a cost report's way in (docs/monitor-cost.md, "Ingestion"): every line of every file of a
 * delivery is read by ClickHouse into a staging table of nullable typed columns (nothing is refused
 * by a cast), then checked there, so the first bad line is found with its file and row.
 */
import {
  type CurColumnMap,
  type CurField,
  curTagKey,
  type ReportColumn,
  SVC_PURPOSE_TAG,
} from "@monitor/core";
import { ident, lit } from "./sql.ts";

export const STAGE_COLUMNS = `(
    source_index UInt16,
    source_row UInt64,
    billing_period Nullable(DateTime64(3, 'UTC')),
    billing_period_raw String,
    payer_account_id String,
    usage_account_id String,
    line_item_id String,
    line_item_type String,
    usage_start Nullable(DateTime64(3, 'UTC')),
    usage_start_raw String,
    product_code String,
    service_code String,
    resource_id String,
    unblended_cost Nullable(Decimal(38, 10)),
    unblended_cost_raw String,
    currency String,
    tags Map(String, String)
)`;

const text = (c: ReportColumn | null) =>
  c === null ? "''" : `trimBoth(ifNull(toString(${ident(c.name)}), ''))`;
const raw = (c: ReportColumn | null) => (c === null ? "''" : `ifNull(toString(${ident(c.name)}), '')`);

function timestamp(c: ReportColumn | null): string {
  if (c === null) return "NULL";
  if (/Date/.test(c.type)) return `toDateTime64(${ident(c.name)}, 3, 'UTC')`;
  return `parseDateTime64BestEffortOrNull(${text(c)}, 3, 'UTC')`;
}

function decimal(c: ReportColumn | null): string {
  if (c === null) return "NULL";
  return `toDecimal128OrNull(${text(c)}, 10)`;
}

/** Tag columns and/or CUR 2.0's map → one map of CUR keys; blank values are dropped. */
export function tagsExpr(map: CurColumnMap): string {
  const parts: string[] = [];
  if (map.tagColumns.length > 0) {
    const kv = map.tagColumns.flatMap((t) => [
      lit(t.key),
      t.columns.length === 1
        ? text(t.columns[0] as ReportColumn)
        : `coalesce(${t.columns.map((c) => `nullIf(${text(c)}, '')`).join(", ")}, '')`,
    ]);
    parts.push(`map(${kv.join(", ")})`);
  }
  if (map.tagsMap !== null) {
    parts.push(
      `mapApply((k, v) -> (replaceRegexpAll(lower(k), '[^a-z0-9]', '_'), trimBoth(ifNull(v, ''))), ${ident(map.tagsMap.name)})`,
    );
  }
  if (parts.length === 0) return "map()::Map(String, String)";
  const merged = parts.length === 1 ? (parts[0] as string) : `mapConcat(${parts.join(", ")})`;
  return `mapFilter((k, v) -> v != '', ${merged})`;
}

/** Reads one file of the delivery into the staging table. */
export function stageInsertSql(stage: string, sourceIndex: number, from: string, map: CurColumnMap): string {
  const f = (name: CurField) => map.fields[name];
  return `INSERT INTO ${stage}
SELECT ${sourceIndex}, _row_number + 1,
    ${timestamp(f("billing_period_start"))}, ${raw(f("billing_period_start"))},
    ${text(f("payer_account_id"))}, ${text(f("usage_account_id"))}, ${text(f("line_item_id"))}, ${text(f("line_item_type"))},
    ${timestamp(f("usage_start"))}, ${raw(f("usage_start"))},
    ${text(f("product_code"))}, ${text(f("service_code"))}, ${text(f("resource_id"))},
    ${decimal(f("unblended_cost"))}, ${raw(f("unblended_cost"))},
    ${text(f("currency"))},
    ${tagsExpr(map)}
FROM ${from}`;
}

/**
 * The first line (by file, then row) that breaks a rule, as `field<TAB>detail`. Fields are the
 * canonical names of @monitor/core's CUR_FIELDS; the caller names the file's own column.
 */
export function firstProblemSql(stage: string): string {
  const q = (expr: string) => `concat('"', ${expr}, '"')`;
  const checks: [string, string, string][] = [
    [
      "billing_period IS NULL",
      "billing_period_start",
      `concat('not a timestamp: ', ${q("billing_period_raw")})`,
    ],
    [
      "billing_period != toDateTime64(toStartOfMonth(billing_period), 3, 'UTC')",
      "billing_period_start",
      `concat('not the start of a month: ', ${q("billing_period_raw")})`,
    ],
    ["payer_account_id = ''", "payer_account_id", "'empty'"],
    ["usage_account_id = ''", "usage_account_id", "'empty'"],
    ["line_item_type = ''", "line_item_type", "'empty'"],
    ["usage_start IS NULL", "usage_start", `concat('not a timestamp: ', ${q("usage_start_raw")})`],
    [
      "usage_start < billing_period OR usage_start >= addMonths(billing_period, 1)",
      "usage_start",
      `concat(${q("usage_start_raw")}, ' is outside the billing period starting ', toString(toDate(billing_period)))`,
    ],
    ["unblended_cost IS NULL", "unblended_cost", `concat('not a number: ', ${q("unblended_cost_raw")})`],
    ["NOT match(currency, '^[A-Z]{3}$')", "currency", `concat('not a currency code: ', ${q("currency")})`],
  ];
  const args = checks.flatMap(([cond, field, detail]) => [cond, `concat(${lit(field)}, '\t', ${detail})`]);
  return `SELECT source_index, source_row, problem
FROM (SELECT source_index, source_row, multiIf(${args.join(", ")}, '') AS problem FROM ${stage})
WHERE problem != ''
ORDER BY source_index, source_row
LIMIT 1`;
}

/** The (billing period, payer) groups of the staging table in order of first appearance (at most 2). */
export function partitionsSql(stage: string): string {
  return `SELECT toString(toDate(billing_period)) AS billing_period, payer_account_id,
    min((source_index, source_row)) AS first, count() AS lines
FROM ${stage}
GROUP BY billing_period, payer_account_id
ORDER BY first
LIMIT 2`;
}

/** Staged lines (all checked) into a table shaped like svc.cost_line_items. */
export function linesInsertSql(
  stage: string,
  target: string,
  files: readonly string[],
  ingestedAtMs: number,
): string {
  return `INSERT INTO ${target}
    (billing_period, payer_account_id, usage_account_id, line_item_id, line_item_type, usage_start, day,
     product_code, service_code, resource_id, unblended_cost, currency, tags, source_file, source_row, ingested_at)
SELECT toDate(assumeNotNull(billing_period)), payer_account_id, usage_account_id, line_item_id, line_item_type,
    assumeNotNull(usage_start), toDate(assumeNotNull(usage_start)), product_code, service_code, resource_id,
    assumeNotNull(unblended_cost), currency, tags, arrayElement([${files.map(lit).join(", ")}], source_index + 1),
    source_row, fromUnixTimestamp64Milli(toInt64(${Math.floor(ingestedAtMs)}), 'UTC')
FROM ${stage}`;
}

/**
 * Candidates for "belongs to the service but lacks the tag" among one partition's lines: resources
 * not tagged svc-infrastructure (in the line or the latest hierarchy) whose id or Name tag contains
 * a service prefix, or that carry a stack tag. A superset: @monitor/core's untaggedServiceReason
 * decides.
 */
export function untaggedCandidatesSql(
  source: string,
  namePrefixes: readonly string[],
  hierarchyKeysSql: string,
): string {
  const nameTag = lit(curTagKey("Name"));
  const contains = namePrefixes.flatMap((p) => [
    `positionCaseInsensitive(resource_id, ${lit(p)}) > 0`,
    `positionCaseInsensitive(tags[${nameTag}], ${lit(p)}) > 0`,
  ]);
  const stack = `tags[${lit(curTagKey("aws:cloudformation:stack-name"))}] != ''`;
  return `SELECT usage_account_id, resource_id, argMax(tags, day) AS latest_tags, toString(max(day)) AS last_day
FROM ${source}
WHERE billing_period = {bp:Date} AND payer_account_id = {payer:String}
  AND resource_id != ''
  AND trimBoth(tags[${lit(curTagKey(SVC_PURPOSE_TAG))}]) != 'svc-infrastructure'
  AND (${[stack, ...contains].join(" OR ")})
  AND (usage_account_id, resource_id) NOT IN (
      SELECT account, key FROM (${hierarchyKeysSql}) WHERE node = 'svc-infrastructure')
GROUP BY usage_account_id, resource_id`;
}
