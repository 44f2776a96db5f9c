/**
 * Writes cost-report files the way AWS lays them out, through ClickHouse itself (`INSERT INTO
 * FUNCTION file(...)`): legacy CUR CSV (gzip, `lineItem/UnblendedCost`, `resourceTags/user:team`),
 * the same with Athena-style snake-case names (`resource_tags_user_svc_purpose`), and CUR 2.0
 * Parquet (`resource_tags` map). Used by the simulated cloud (npm start), the tests and the bench.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { curTagKey } from "@monitor/core";
import { ident, lit } from "./sql.ts";

export type CurLayout = "legacy-csv" | "athena-csv" | "cur2-parquet";

export interface CurLine {
  line_item_id?: string;
  /** First day of the billing period, YYYY-MM-DD. */
  billing_period: string;
  payer_account_id: string;
  usage_account_id: string;
  line_item_type: string;
  /** ISO 8601, e.g. 2025-05-03T00:00:00Z. */
  usage_start: string;
  product_code: string;
  resource_id: string;
  /** A string is written as is (to write a bad value on purpose). */
  unblended_cost: number | string;
  currency: string;
  /** AWS tag keys (`svc:purpose`, `team`, `aws:cloudformation:stack-name`). */
  tags?: Record<string, string>;
}

interface Column {
  name: string;
  type: string;
  value: (l: CurLine) => unknown;
}

const iso = (day: string) => `${day}T00:00:00Z`;

function columns(layout: CurLayout, lines: readonly CurLine[]): Column[] {
  const legacy = layout === "legacy-csv";
  const parquet = layout === "cur2-parquet";
  const n = (legacyName: string, snake: string) => (legacy ? legacyName : snake);
  const ts = parquet ? "DateTime64(3, 'UTC')" : "String";
  const cols: Column[] = [
    {
      name: n("identity/LineItemId", "identity_line_item_id"),
      type: "String",
      value: (l) => l.line_item_id ?? "",
    },
    {
      name: n("bill/PayerAccountId", "bill_payer_account_id"),
      type: "String",
      value: (l) => l.payer_account_id,
    },
    {
      name: n("bill/BillingPeriodStartDate", "bill_billing_period_start_date"),
      type: ts,
      value: (l) => iso(l.billing_period),
    },
    {
      name: n("lineItem/UsageAccountId", "line_item_usage_account_id"),
      type: "String",
      value: (l) => l.usage_account_id,
    },
    {
      name: n("lineItem/LineItemType", "line_item_line_item_type"),
      type: "String",
      value: (l) => l.line_item_type,
    },
    {
      name: n("lineItem/UsageStartDate", "line_item_usage_start_date"),
      type: ts,
      value: (l) => l.usage_start,
    },
    {
      name: n("lineItem/ProductCode", "line_item_product_code"),
      type: "String",
      value: (l) => l.product_code,
    },
    { name: n("lineItem/ResourceId", "line_item_resource_id"), type: "String", value: (l) => l.resource_id },
    {
      name: n("lineItem/UnblendedCost", "line_item_unblended_cost"),
      type: parquet ? "Float64" : "String",
      value: (l) => (parquet ? Number(l.unblended_cost) : String(l.unblended_cost)),
    },
    { name: n("lineItem/CurrencyCode", "line_item_currency_code"), type: "String", value: (l) => l.currency },
  ];
  if (parquet) {
    cols.push({
      name: "resource_tags",
      type: "Map(String, String)",
      value: (l) => Object.fromEntries(Object.entries(l.tags ?? {}).map(([k, v]) => [curTagKey(k), v])),
    });
    return cols;
  }
  const keys = [...new Set(lines.flatMap((l) => Object.keys(l.tags ?? {})))].sort();
  for (const key of keys) {
    const prefixed = key.startsWith("aws:") ? key : `user:${key}`;
    cols.push({
      name: legacy ? `resourceTags/${prefixed}` : `resource_tags_${curTagKey(key)}`,
      type: "String",
      value: (l) => l.tags?.[key] ?? "",
    });
  }
  return cols;
}

/** Writes (or overwrites) one report file. `omitColumns` leaves columns out (a malformed report). */
export async function writeCurFile(
  client: ClickHouseClient,
  path: string,
  layout: CurLayout,
  lines: readonly CurLine[],
  opts: { omitColumns?: readonly string[] } = {},
): Promise<void> {
  const cols = columns(layout, lines).filter((c) => !opts.omitColumns?.includes(c.name));
  const structure = cols.map((c) => `${ident(c.name)} ${c.type}`).join(", ");
  const [format, compression] = layout === "cur2-parquet" ? ["Parquet", "none"] : ["CSVWithNames", "gzip"];
  await client.insert({
    table: `FUNCTION file(${lit(path)}, ${lit(format)}, ${lit(structure)}, ${lit(compression)})`,
    values: lines.map((l) => Object.fromEntries(cols.map((c) => [c.name, c.value(l)]))),
    format: "JSONEachRow",
    clickhouse_settings: {
      engine_file_truncate_on_insert: 1,
      date_time_input_format: "best_effort",
      output_format_csv_crlf_end_of_line: 0,
    },
  });
}
