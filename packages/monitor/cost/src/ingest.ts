/**
 * Ingestion of one cost report delivery: every file of the
 * delivery (a CUR delivery can be split in parts) is read by ClickHouse into a staging table,
 * checked there, and only then swapped in for its partition (one billing period of one payer), with
 * the cost per node per day derived from it. A bad file changes nothing: the error names the file
 * and the first row at fault.
 */
import { randomUUID } from "node:crypto";
import {
  CUR_COLUMN_NAMES,
  type CurColumnMap,
  type CurField,
  parseCsvLine,
  type ReportColumn,
  RunStoreQueryError,
  resolveCurColumns,
} from "@monitor/core";
import { type CurSource, curFormatOf, sourceName, tableFunction } from "./cur-source.ts";
import type { CostDb } from "./db.ts";
import { ident } from "./sql.ts";
import {
  firstProblemSql,
  linesInsertSql,
  partitionsSql,
  STAGE_COLUMNS,
  stageInsertSql,
} from "./stage-sql.ts";

/** A report that was not stored. `row` is the 1-based data row (the CSV header is not counted). */
export class CostReportRejected extends Error {
  override name = "CostReportRejected";
  readonly file: string;
  readonly row: number | null;
  readonly column: string | null;
  readonly reason: string;
  constructor(file: string, row: number | null, column: string | null, reason: string) {
    super(
      `cost report rejected, nothing was stored: ${file}${row === null ? "" : ` row ${row}`}${column === null ? "" : `: ${column}`}: ${reason}`,
    );
    this.file = file;
    this.row = row;
    this.column = column;
    this.reason = reason;
  }
}

export interface Partition {
  /** YYYY-MM-DD, the first day of the billing period. */
  billing_period: string;
  payer_account_id: string;
}

/** A checked delivery in the staging table, ready to be swapped in. */
export interface StagedReport extends Partition {
  stage: string;
  files: string[];
  lines: number;
}

/** First line of a ClickHouse exception, without the `Code: N. DB::Exception:` preamble. */
function chReason(err: RunStoreQueryError): string {
  const msg = err.message.replace(/^analytics database rejected [^:]*: /, "");
  const first = msg.split("\n")[0] ?? msg;
  return first
    .replace(/^Code: \d+\. DB::Exception: /, "")
    .replace(/:?\s*\(at row \d+\)\s*:?\s*$/, "")
    .replace(/\s*\(version [^)]*\)\s*$/, "")
    .trim();
}

function atRow(err: RunStoreQueryError): number | null {
  const m = /\(at row (\d+)\)/.exec(err.message);
  return m === null ? null : Number(m[1]);
}

/** The report's columns: the header line of a CSV (every column then read as text), a Parquet file's schema. */
async function readColumns(db: CostDb, source: CurSource, file: string): Promise<ReportColumn[]> {
  const format = curFormatOf(file);
  if (format === null) {
    throw new CostReportRejected(
      file,
      null,
      null,
      "unknown report format: expected .parquet, .csv.gz or .csv",
    );
  }
  try {
    if (format.format === "Parquet") {
      const cols = await db.rows<{ name: string; type: string }>(
        "cost report schema",
        `DESCRIBE TABLE ${tableFunction(source, "Parquet")}`,
      );
      return cols.map((c) => ({ name: c.name, type: c.type }));
    }
    const [first] = await db.rows<{ line: string }>(
      "cost report header",
      `SELECT line FROM ${tableFunction(source, "LineAsString", "line String", format.compression)} LIMIT 1`,
    );
    if (first === undefined || first.line.trim() === "") {
      throw new CostReportRejected(file, null, null, "empty file: no header line");
    }
    return parseCsvLine(first.line.replace(/^\uFEFF/, "")).map((name) => ({ name, type: "String" }));
  } catch (err) {
    if (err instanceof RunStoreQueryError) throw new CostReportRejected(file, null, null, chReason(err));
    throw err;
  }
}

function columnMap(file: string, columns: readonly ReportColumn[]): CurColumnMap {
  const names = new Set<string>();
  for (const c of columns) {
    if (names.has(c.name))
      throw new CostReportRejected(file, null, c.name, "column appears twice in the header");
    names.add(c.name);
  }
  const map = resolveCurColumns(columns);
  if (!map.ok) {
    const first = map.errors[0] as { path: string; message: string };
    const rest =
      map.errors.length > 1
        ? ` (and ${map.errors.length - 1} more: ${map.errors
            .slice(1)
            .map((e) => e.path)
            .join(", ")})`
        : "";
    throw new CostReportRejected(file, null, first.path, `${first.message}${rest}`);
  }
  return map.value;
}

/** The file's own name of a canonical field (for messages). */
function columnName(map: CurColumnMap, field: string): string {
  return map.fields[field as CurField]?.name ?? CUR_COLUMN_NAMES[field as CurField]?.names[0] ?? field;
}

/**
 * Reads and checks a delivery into a new staging table. On any problem the staging table is dropped
 * and CostReportRejected is thrown; nothing outside the staging table was touched.
 */
export async function stageReport(
  db: CostDb,
  sources: readonly CurSource[],
  ingestTimeoutMs: number,
): Promise<StagedReport> {
  if (sources.length === 0)
    throw new CostReportRejected("(no file)", null, null, "a delivery needs at least one file");
  const files = sources.map(sourceName);
  const columns: ReportColumn[][] = [];
  const maps: CurColumnMap[] = [];
  for (let i = 0; i < sources.length; i++) {
    columns.push(await readColumns(db, sources[i] as CurSource, files[i] as string));
    maps.push(columnMap(files[i] as string, columns[i] as ReportColumn[]));
  }
  const stage = `svc.${ident(`_cost_stage_${randomUUID().replaceAll("-", "")}`)}`;
  await db.exec(
    "cost staging",
    `CREATE TABLE ${stage} ${STAGE_COLUMNS} ENGINE = MergeTree ORDER BY (source_index, source_row)`,
  );
  try {
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i] as CurSource;
      const file = files[i] as string;
      const format = curFormatOf(file) as NonNullable<ReturnType<typeof curFormatOf>>;
      // A CSV is read with its own header as the structure, every column as text: the checks, not
      // a cast, decide what is wrong, and they can say where.
      const structure =
        format.format === "CSVWithNames"
          ? (columns[i] as ReportColumn[]).map((c) => `${ident(c.name)} String`).join(", ")
          : undefined;
      const from = tableFunction(
        source,
        format.format,
        structure,
        structure === undefined ? undefined : format.compression,
      );
      try {
        await db.exec(
          "cost report read",
          stageInsertSql(stage, i, from, maps[i] as CurColumnMap),
          {},
          // Exact row numbers in CSV need sequential parsing (_row_number is per parsing chunk otherwise).
          { input_format_parallel_parsing: 0, input_format_csv_allow_variable_number_of_columns: 0 },
          ingestTimeoutMs,
        );
      } catch (err) {
        if (err instanceof RunStoreQueryError)
          throw new CostReportRejected(file, atRow(err), null, chReason(err));
        throw err;
      }
    }
    const [problem] = await db.rows<{ source_index: number; source_row: string | number; problem: string }>(
      "cost report check",
      firstProblemSql(stage),
      {},
      {},
      ingestTimeoutMs,
    );
    if (problem !== undefined) {
      const i = Number(problem.source_index);
      const [field, detail] = problem.problem.split("\t") as [string, string];
      throw new CostReportRejected(
        files[i] as string,
        Number(problem.source_row),
        columnName(maps[i] as CurColumnMap, field),
        detail,
      );
    }
    const groups = await db.rows<{
      billing_period: string;
      payer_account_id: string;
      first: [number, number | string];
      lines: number | string;
    }>("cost report partitions", partitionsSql(stage), {}, {}, ingestTimeoutMs);
    const head = groups[0];
    if (head === undefined) throw new CostReportRejected(files[0] as string, null, null, "no line items");
    const other = groups[1];
    if (other !== undefined) {
      const i = Number(other.first[0]);
      throw new CostReportRejected(
        files[i] as string,
        Number(other.first[1]),
        `${columnName(maps[i] as CurColumnMap, "billing_period_start")} / ${columnName(maps[i] as CurColumnMap, "payer_account_id")}`,
        `billing period ${other.billing_period} of payer ${other.payer_account_id} differs from ${head.billing_period} of payer ${head.payer_account_id} (row ${Number(head.first[1])} of ${files[Number(head.first[0])]}): a delivery holds one billing period of one payer`,
      );
    }
    return {
      stage,
      files,
      billing_period: head.billing_period,
      payer_account_id: head.payer_account_id,
      lines: Number(head.lines),
    };
  } catch (err) {
    await db.exec("cost staging cleanup", `DROP TABLE IF EXISTS ${stage}`).catch(() => {});
    throw err;
  }
}

/** Typed lines of a checked staging table into a new table shaped like svc.cost_line_items. */
export async function finalLines(
  db: CostDb,
  staged: StagedReport,
  ingestedAtMs: number,
  ingestTimeoutMs: number,
): Promise<string> {
  const table = `svc.${ident(`_cost_lines_${randomUUID().replaceAll("-", "")}`)}`;
  await db.exec("cost staging", `CREATE TABLE ${table} AS svc.cost_line_items`);
  try {
    await db.exec(
      "cost staging",
      linesInsertSql(staged.stage, table, staged.files, ingestedAtMs),
      {},
      {},
      ingestTimeoutMs,
    );
  } catch (err) {
    await db.exec("cost staging cleanup", `DROP TABLE IF EXISTS ${table}`).catch(() => {});
    throw err;
  }
  return table;
}
