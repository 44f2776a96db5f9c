/**
 * Cost report ingestion into real chDB, from files the test writes through ClickHouse itself
 * (legacy CUR CSV.gz, Athena-style CSV, CUR 2.0 Parquet): formats, idempotency per billing period
 * and payer, and rejection of malformed or partial reports with the file and row at fault.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { openTempStore } from "@monitor/clickhouse/test-support/temp-store";
import { DEFAULT_HIERARCHY_RULES } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClickHouseCostStore } from "./cost-store.ts";
import { fileSource } from "./cur-source.ts";
import { type CurLayout, type CurLine, writeCurFile } from "./cur-writer.ts";
import { CostReportRejected } from "./ingest.ts";

const PAYER = "999999999999";
const ACC = "111111111111";

let store: ClickHouseRunStore;
let dir: string;
let cleanup: () => Promise<void>;
let cost: ClickHouseCostStore;

beforeAll(async () => {
  const t = await openTempStore("svcmon-cost-ingest-");
  store = t.store;
  dir = t.dir;
  cleanup = t.cleanup;
  cost = ClickHouseCostStore.fromStore(store, {
    rules: DEFAULT_HIERARCHY_RULES,
    now: () => Date.UTC(2025, 5, 2),
  });
}, 60_000);

afterAll(async () => {
  await cleanup?.();
});

async function rows<T>(query: string): Promise<T[]> {
  const rs = await store.client.query({ query, format: "JSONEachRow" });
  return rs.json<T>();
}

/** Lines, partition sums and the staging tables left over: what a rejected report must not change. */
async function snapshot() {
  return {
    lines: await rows(
      "SELECT toString(billing_period) AS bp, payer_account_id, toString(count()) AS n, toString(sum(unblended_cost)) AS cost FROM svc.cost_line_items GROUP BY ALL ORDER BY ALL",
    ),
    daily: await rows(
      "SELECT toString(billing_period) AS bp, toString(sum(cost)) AS cost, toString(sum(lines)) AS n FROM svc.cost_node_daily GROUP BY ALL ORDER BY ALL",
    ),
    staging: await rows(
      "SELECT name FROM system.tables WHERE database = 'svc' AND startsWith(name, '_cost_')",
    ),
  };
}

function line(p: Partial<CurLine> = {}): CurLine {
  return {
    billing_period: "2025-05-01",
    payer_account_id: PAYER,
    usage_account_id: ACC,
    line_item_type: "Usage",
    usage_start: "2025-05-03T00:00:00Z",
    product_code: "AmazonEC2",
    resource_id: "i-1",
    unblended_cost: 1.5,
    currency: "USD",
    tags: {},
    ...p,
  };
}

/** A month of a few resources: svc-infrastructure, a team, an untagged one, tax and support. */
function month(bp: string, scale = 1): CurLine[] {
  const out: CurLine[] = [];
  for (let d = 1; d <= 28; d++) {
    const usage_start = `${bp.slice(0, 8)}${String(d).padStart(2, "0")}T00:00:00Z`;
    const base = { billing_period: bp, usage_start };
    out.push(
      line({
        ...base,
        resource_id: "i-svc",
        unblended_cost: 2 * scale,
        tags: { "svc:purpose": "svc-infrastructure", team: "platform" },
      }),
      line({ ...base, resource_id: "i-web", unblended_cost: 3 * scale, tags: { team: "web" } }),
      line({ ...base, resource_id: "i-bare", unblended_cost: 0.5 * scale }),
      line({
        ...base,
        line_item_type: "Tax",
        resource_id: "",
        product_code: "AmazonEC2",
        unblended_cost: 0.25 * scale,
      }),
    );
  }
  out.push(
    line({
      billing_period: bp,
      usage_start: `${bp}T00:00:00Z`,
      product_code: "AWSSupportBusiness",
      line_item_type: "Usage",
      resource_id: "",
      unblended_cost: 100 * scale,
    }),
  );
  return out;
}

async function write(name: string, layout: CurLayout, lines: CurLine[], omit?: string[]): Promise<string> {
  const path = join(dir, name);
  await writeCurFile(store.client, path, layout, lines, omit === undefined ? {} : { omitColumns: omit });
  return path;
}

async function rejected(paths: string[]): Promise<CostReportRejected> {
  try {
    await cost.ingest(paths.map(fileSource));
  } catch (err) {
    if (err instanceof CostReportRejected) return err;
    throw err;
  }
  throw new Error("the report was accepted");
}

describe("ingest: the three layouts", () => {
  it("legacy CUR CSV.gz: lines, normalised tags, cost per node per day, report record", async () => {
    const path = await write("legacy-2025-05.csv.gz", "legacy-csv", month("2025-05-01"));
    const r = await cost.ingest([fileSource(path)]);
    expect(r).toEqual({
      billing_period: "2025-05-01",
      payer_account_id: PAYER,
      files: [path],
      lines: 113,
      replaced_lines: 0,
      first_day: "2025-05-01",
      last_day: "2025-05-28",
    });
    const [tags] = await rows<{ tags: Record<string, string> }>(
      "SELECT tags FROM svc.cost_line_items WHERE resource_id = 'i-svc' LIMIT 1",
    );
    expect(tags?.tags).toEqual({ user_svc_purpose: "svc-infrastructure", user_team: "platform" });
    const nodes = await rows<{ node: string; outside_reason: string; cost: string; lines: string }>(
      "SELECT node, outside_reason, toString(sum(cost)) AS cost, toString(sum(lines)) AS lines FROM svc.cost_node_daily WHERE billing_period = '2025-05-01' GROUP BY ALL ORDER BY ALL",
    );
    expect(nodes).toEqual([
      { node: "", outside_reason: "Support", cost: "100", lines: "1" },
      { node: "", outside_reason: "Tax", cost: "7", lines: "28" },
      { node: "svc-infrastructure", outside_reason: "", cost: "56", lines: "28" },
      { node: "teams/web", outside_reason: "", cost: "84", lines: "28" },
      { node: `unassigned/${ACC}`, outside_reason: "", cost: "14", lines: "28" },
    ]);
    const [report] = await rows<{ files: string[]; lines: string }>(
      "SELECT files, toString(lines) AS lines FROM svc.cost_reports",
    );
    expect(report).toEqual({ files: [path], lines: "113" });
  });

  it("CUR 2.0 Parquet with the resource_tags map: its own partition, the other one untouched", async () => {
    const before = await snapshot();
    const path = await write("cur2-2025-04.parquet", "cur2-parquet", month("2025-04-01"));
    const r = await cost.ingest([fileSource(path)]);
    expect(r).toMatchObject({ billing_period: "2025-04-01", lines: 113, replaced_lines: 0 });
    const after = await snapshot();
    expect(after.lines).toEqual([
      { bp: "2025-04-01", payer_account_id: PAYER, n: "113", cost: "261" },
      ...before.lines,
    ]);
    const [svc] = await rows<{ cost: string }>(
      "SELECT toString(sum(cost)) AS cost FROM svc.cost_node_daily WHERE billing_period = '2025-04-01' AND node = 'svc-infrastructure'",
    );
    expect(svc?.cost).toBe("56");
  });

  it("Athena-style legacy columns (resource_tags_user_svc_purpose)", async () => {
    const path = await write("athena-2025-03.csv.gz", "athena-csv", month("2025-03-01"));
    const header = gunzipSync(readFileSync(path)).toString("utf8").split("\n")[0];
    expect(header).toContain('"resource_tags_user_svc_purpose"');
    await cost.ingest([fileSource(path)]);
    const [svc] = await rows<{ cost: string }>(
      "SELECT toString(sum(cost)) AS cost FROM svc.cost_node_daily WHERE billing_period = '2025-03-01' AND node = 'svc-infrastructure'",
    );
    expect(svc?.cost).toBe("56");
  });

  it("keeps 10 decimal places and reads scientific notation", async () => {
    const path = await write("precise-2025-02.csv.gz", "legacy-csv", [
      line({
        billing_period: "2025-02-01",
        usage_start: "2025-02-01T00:00:00Z",
        unblended_cost: "0.0000001234",
      }),
      line({ billing_period: "2025-02-01", usage_start: "2025-02-01T01:00:00Z", unblended_cost: "1.5E-7" }),
    ]);
    await cost.ingest([fileSource(path)]);
    const [r] = await rows<{ cost: string }>(
      "SELECT toString(sum(unblended_cost)) AS cost FROM svc.cost_line_items WHERE billing_period = '2025-02-01'",
    );
    expect(r?.cost).toBe("0.0000002734");
  });
});

describe("ingest: idempotent per billing period and payer", () => {
  it("the same report twice is stored once", async () => {
    const path = join(dir, "legacy-2025-05.csv.gz");
    const before = await snapshot();
    const r = await cost.ingest([fileSource(path)]);
    expect(r).toMatchObject({ lines: 113, replaced_lines: 113 });
    expect(await snapshot()).toEqual(before);
  });

  it("a re-delivered report (updated figures, split in two parts) replaces the partition", async () => {
    const lines = month("2025-05-01", 2);
    const a = await write("redelivery-00001.csv.gz", "legacy-csv", lines.slice(0, 50));
    const b = await write("redelivery-00002.csv.gz", "legacy-csv", lines.slice(50));
    const r = await cost.ingest([fileSource(a), fileSource(b)]);
    expect(r).toMatchObject({ lines: 113, replaced_lines: 113, files: [a, b] });
    const s = await snapshot();
    expect(s.lines.find((x) => (x as { bp: string }).bp === "2025-05-01")).toEqual({
      bp: "2025-05-01",
      payer_account_id: PAYER,
      n: "113",
      cost: "522",
    });
    const [rows2] = await rows<{ f: string[] }>(
      "SELECT groupUniqArray(source_file) AS f FROM svc.cost_line_items WHERE billing_period = '2025-05-01'",
    );
    expect(rows2?.f.sort()).toEqual([a, b]);
  });

  it("another payer's report of the same month is a partition of its own", async () => {
    const path = await write("other-payer.csv.gz", "legacy-csv", [
      line({ payer_account_id: "888888888888" }),
    ]);
    await cost.ingest([fileSource(path)]);
    const [n] = await rows<{ n: string }>(
      `SELECT toString(count()) AS n FROM svc.cost_line_items WHERE billing_period = '2025-05-01' AND payer_account_id = '${PAYER}'`,
    );
    expect(n?.n).toBe("113");
  });
});

describe("ingest: a malformed or partial report is rejected whole, earlier data intact", () => {
  it.each<
    [
      string,
      () => Promise<string[]>,
      { file: number; row: number | null; column: string | null; reason: RegExp },
    ]
  >([
    [
      "a missing column",
      async () => [await write("missing-cost.csv.gz", "legacy-csv", [line()], ["lineItem/UnblendedCost"])],
      {
        file: 0,
        row: null,
        column: "lineItem/UnblendedCost",
        reason: /missing column \(lineItem\/UnblendedCost or line_item_unblended_cost\)/,
      },
    ],
    [
      "a cost that is not a number (row 3)",
      async () => [
        await write("bad-cost.csv.gz", "legacy-csv", [
          line(),
          line(),
          line({ unblended_cost: "12,50" }),
          line({ unblended_cost: "x" }),
        ]),
      ],
      { file: 0, row: 3, column: "lineItem/UnblendedCost", reason: /^not a number: "12,50"$/ },
    ],
    [
      "a usage date outside the billing period (row 2)",
      async () => [
        await write("outside.csv.gz", "legacy-csv", [line(), line({ usage_start: "2025-06-01T00:00:00Z" })]),
      ],
      {
        file: 0,
        row: 2,
        column: "lineItem/UsageStartDate",
        reason: /"2025-06-01T00:00:00Z" is outside the billing period starting 2025-05-01/,
      },
    ],
    [
      "an unparsable date",
      async () => [await write("bad-date.csv.gz", "legacy-csv", [line({ usage_start: "yesterday" })])],
      { file: 0, row: 1, column: "lineItem/UsageStartDate", reason: /^not a timestamp: "yesterday"$/ },
    ],
    [
      "a currency that is not a code",
      async () => [
        await write("bad-currency.parquet", "cur2-parquet", [line(), line({ currency: "dollars" })]),
      ],
      { file: 0, row: 2, column: "line_item_currency_code", reason: /not a currency code: "dollars"/ },
    ],
    [
      "an empty usage account",
      async () => [await write("no-account.parquet", "cur2-parquet", [line({ usage_account_id: "" })])],
      { file: 0, row: 1, column: "line_item_usage_account_id", reason: /^empty$/ },
    ],
    [
      "a billing period that is not the start of a month",
      async () => [await write("mid-month.csv.gz", "legacy-csv", [line({ billing_period: "2025-05-02" })])],
      { file: 0, row: 1, column: "bill/BillingPeriodStartDate", reason: /not the start of a month/ },
    ],
    [
      "two billing periods in one delivery: the second file's first row",
      async () => [
        await write("part-may.csv.gz", "legacy-csv", [line(), line()]),
        await write("part-april.csv.gz", "legacy-csv", [
          line({ billing_period: "2025-04-01", usage_start: "2025-04-09T00:00:00Z" }),
        ]),
      ],
      {
        file: 1,
        row: 1,
        column: "bill/BillingPeriodStartDate / bill/PayerAccountId",
        reason: /billing period 2025-04-01 of payer 999999999999 differs from 2025-05-01/,
      },
    ],
    [
      "a truncated gzip (partial upload)",
      async () => {
        const path = await write("truncated.csv.gz", "legacy-csv", month("2025-05-01"));
        const bytes = readFileSync(path);
        writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
        return [path];
      },
      { file: 0, row: null, column: null, reason: /inflate|gzip|unexpected end|Cannot read/i },
    ],
    [
      "a last line cut short (partial)",
      async () => {
        const path = await write("short.csv.gz", "legacy-csv", [line(), line(), line()]);
        const text = gunzipSync(readFileSync(path)).toString("utf8");
        const cut = text.slice(0, text.trimEnd().lastIndexOf(",")); // drops the last cell(s) of row 3
        writeFileSync(path, gzipSync(`${cut}\n`));
        return [path];
      },
      { file: 0, row: 3, column: null, reason: /less columns|expected|delimiter/i },
    ],
    [
      "a truncated Parquet file",
      async () => {
        const path = await write("truncated.parquet", "cur2-parquet", month("2025-05-01"));
        const bytes = readFileSync(path);
        writeFileSync(path, bytes.subarray(0, bytes.length - 100));
        return [path];
      },
      { file: 0, row: null, column: null, reason: /Parquet|magic/i },
    ],
    [
      "a header without rows",
      async () => {
        const path = join(dir, "header-only.csv.gz");
        writeFileSync(
          path,
          gzipSync(
            '"bill/PayerAccountId","bill/BillingPeriodStartDate","lineItem/UsageAccountId","lineItem/LineItemType","lineItem/UsageStartDate","lineItem/ProductCode","lineItem/UnblendedCost","lineItem/CurrencyCode"\n',
          ),
        );
        return [path];
      },
      { file: 0, row: null, column: null, reason: /^no line items$/ },
    ],
    [
      "a column twice in the header",
      async () => {
        const path = join(dir, "twice.csv.gz");
        const text = gunzipSync(
          readFileSync(await write("twice-src.csv.gz", "legacy-csv", [line()])),
        ).toString("utf8");
        const [header, ...rest] = text.split("\n");
        writeFileSync(
          path,
          gzipSync(
            [`${header},"lineItem/UnblendedCost"`, ...rest.map((r) => (r === "" ? r : `${r},"1"`))].join(
              "\n",
            ),
          ),
        );
        return [path];
      },
      {
        file: 0,
        row: null,
        column: "lineItem/UnblendedCost",
        reason: /^column appears twice in the header$/,
      },
    ],
    [
      "a file that is not there",
      async () => [join(dir, "never-delivered.csv.gz")],
      { file: 0, row: null, column: null, reason: /No such file|Cannot stat|doesn't exist|not exist/i },
    ],
    [
      "an unknown format",
      async () => [join(dir, "report.csv.zip")],
      { file: 0, row: null, column: null, reason: /unknown report format/ },
    ],
  ])("%s", async (_name, make, expected) => {
    const before = await snapshot();
    const paths = await make();
    const err = await rejected(paths);
    expect({ file: err.file, row: err.row, column: err.column }).toEqual({
      file: paths[expected.file],
      row: expected.row,
      column: expected.column,
    });
    expect(err.reason).toMatch(expected.reason);
    expect(err.message).toMatch(/^cost report rejected, nothing was stored: /);
    expect(await snapshot()).toEqual(before);
  });
});
