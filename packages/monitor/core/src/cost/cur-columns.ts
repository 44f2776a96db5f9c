/**
 * The columns of a cost report, in the three shapes AWS delivers (docs/monitor-cost.md):
 *
 * - legacy CUR CSV: `identity/LineItemId`, `lineItem/UnblendedCost`, ... and one column per
 *   activated cost allocation tag, `resourceTags/user:svc:purpose`, `resourceTags/aws:createdBy`;
 * - legacy CUR with the Athena integration (Parquet), and the same names in a CSV: snake case,
 *   `line_item_unblended_cost`, and one column per tag, `resource_tags_user_svc_purpose` (the
 *   column the issue names);
 * - CUR 2.0 (Data Exports, Parquet or CSV): the same snake-case names for the fixed columns and one
 *   `resource_tags` map whose keys are `user_svc_purpose`, `aws_createdby`.
 *
 * Every tag is normalised to the CUR key (`user_svc_purpose`, see hierarchy/tags.ts). Pure: the
 * store reads the header (CSV) or the schema (Parquet) and hands the names here.
 */
import { curKey } from "../hierarchy/tags.ts";
import type { Issue, Result } from "../result.ts";

export const CUR_FIELDS = [
  "billing_period_start",
  "payer_account_id",
  "usage_account_id",
  "line_item_id",
  "line_item_type",
  "usage_start",
  "product_code",
  "service_code",
  "resource_id",
  "unblended_cost",
  "currency",
] as const;
export type CurField = (typeof CUR_FIELDS)[number];

/** Per field: required or not, and its names (legacy CSV name first, then the snake-case name). */
export const CUR_COLUMN_NAMES: Readonly<Record<CurField, { required: boolean; names: readonly string[] }>> = {
  billing_period_start: {
    required: true,
    names: ["bill/BillingPeriodStartDate", "bill_billing_period_start_date"],
  },
  payer_account_id: { required: true, names: ["bill/PayerAccountId", "bill_payer_account_id"] },
  usage_account_id: { required: true, names: ["lineItem/UsageAccountId", "line_item_usage_account_id"] },
  line_item_id: { required: false, names: ["identity/LineItemId", "identity_line_item_id"] },
  line_item_type: { required: true, names: ["lineItem/LineItemType", "line_item_line_item_type"] },
  usage_start: { required: true, names: ["lineItem/UsageStartDate", "line_item_usage_start_date"] },
  product_code: { required: true, names: ["lineItem/ProductCode", "line_item_product_code"] },
  service_code: { required: false, names: ["product/servicecode", "product_servicecode"] },
  // Only with "include resource IDs"; without it every line is read as resource-less.
  resource_id: { required: false, names: ["lineItem/ResourceId", "line_item_resource_id"] },
  unblended_cost: { required: true, names: ["lineItem/UnblendedCost", "line_item_unblended_cost"] },
  currency: { required: true, names: ["lineItem/CurrencyCode", "line_item_currency_code"] },
};

export interface ReportColumn {
  name: string;
  /** ClickHouse type from the file's schema (`String` for every CSV column). */
  type: string;
}

export interface CurColumnMap {
  fields: Record<CurField, ReportColumn | null>;
  /** One entry per normalised tag key; its columns in file order (the first non-empty value wins). */
  tagColumns: { key: string; columns: ReportColumn[] }[];
  /** CUR 2.0's `resource_tags` map, when present. */
  tagsMap: ReportColumn | null;
}

const LEGACY_TAG_PREFIX = "resourcetags/";
const SNAKE_TAG_PREFIX = "resource_tags_";
const TAGS_MAP = "resource_tags";

/** The CUR key of a tag column, or null when the column is not a tag column. */
export function tagKeyOfColumn(column: string): string | null {
  const lower = column.toLowerCase();
  if (lower.startsWith(LEGACY_TAG_PREFIX) && lower.length > LEGACY_TAG_PREFIX.length) {
    return curKey(column.slice(LEGACY_TAG_PREFIX.length));
  }
  if (lower.startsWith(SNAKE_TAG_PREFIX) && lower.length > SNAKE_TAG_PREFIX.length) {
    return curKey(column.slice(SNAKE_TAG_PREFIX.length));
  }
  return null;
}

/** Maps a report's columns; a missing required column is an error naming both accepted names. */
export function resolveCurColumns(columns: readonly ReportColumn[]): Result<CurColumnMap> {
  const byName = new Map<string, ReportColumn>();
  for (const c of columns) {
    const key = c.name.toLowerCase();
    if (!byName.has(key)) byName.set(key, c);
  }
  const errors: Issue[] = [];
  const fields = {} as Record<CurField, ReportColumn | null>;
  for (const field of CUR_FIELDS) {
    const spec = CUR_COLUMN_NAMES[field];
    const found = spec.names.map((n) => byName.get(n.toLowerCase())).find((c) => c !== undefined) ?? null;
    if (found === null && spec.required) {
      errors.push({ path: spec.names[0] as string, message: `missing column (${spec.names.join(" or ")})` });
    }
    fields[field] = found;
  }
  const tagsMap = byName.get(TAGS_MAP) ?? null;
  if (tagsMap !== null && !tagsMap.type.includes("Map(")) {
    errors.push({ path: TAGS_MAP, message: `must be a map of tag key to value, found ${tagsMap.type}` });
  }
  const tagColumns = new Map<string, ReportColumn[]>();
  for (const c of columns) {
    if (c.name.toLowerCase() === TAGS_MAP) continue;
    const key = tagKeyOfColumn(c.name);
    if (key === null) continue;
    tagColumns.set(key, [...(tagColumns.get(key) ?? []), c]);
  }
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      fields,
      tagColumns: [...tagColumns.entries()].map(([key, cols]) => ({ key, columns: cols })),
      tagsMap,
    },
  };
}

/**
 * The cells of one CSV line (RFC 4180: fields may be quoted, `""` is a quote inside quotes). Used for
 * the header of a legacy report, read before its rows so every column can be read as text.
 */
export function parseCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (line[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else cell += ch;
    } else if (ch === '"' && cell === "") quoted = true;
    else if (ch === ",") {
      cells.push(cell);
      cell = "";
    } else if (ch !== "\r") cell += ch;
  }
  cells.push(cell);
  return cells;
}
