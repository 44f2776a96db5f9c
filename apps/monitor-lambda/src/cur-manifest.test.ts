/**
 * The delivery manifests in the shapes AWS documents (docs/monitor-cost.md, "Production trigger"):
 * legacy CUR (`reportKeys` relative to the bucket, `billingPeriod` in `yyyymmddThhmmss.sssZ`) and
 * CUR 2.0 / Data Exports (`dataFiles` as s3:// URIs), and what the function refuses, with the path.
 */
import { describe, expect, it } from "vitest";
import {
  type CurManifest,
  isAssemblyCopy,
  manifestOfEvent,
  parseCurManifest,
  s3ObjectUrl,
  validateCurManifest,
} from "./cur-manifest.ts";

const BUCKET = "svcmon-cur-123456789012-us-east-1";
const ASSEMBLY = "6f9a1c3e-2b7d-4c1a-9e58-0d4b7a2c1f00";
const where = { bucket: BUCKET };

/** A legacy CUR manifest as delivered to `cur/svcmon/20250501-20250601/svcmon-Manifest.json`. */
function legacy(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    assemblyId: ASSEMBLY,
    account: "123456789012",
    columns: [
      { category: "identity", name: "LineItemId", type: "String" },
      { category: "lineItem", name: "UnblendedCost", type: "BigDecimal" },
    ],
    charset: "UTF-8",
    compression: "GZIP",
    contentType: "text/csv",
    reportId: "a1b2c3",
    reportName: "svcmon",
    billingPeriod: { start: "20250501T000000.000Z", end: "20250601T000000.000Z" },
    bucket: BUCKET,
    reportKeys: [
      `cur/svcmon/20250501-20250601/${ASSEMBLY}/svcmon-1.csv.gz`,
      `cur/svcmon/20250501-20250601/${ASSEMBLY}/svcmon-2.csv.gz`,
    ],
    additionalArtifactKeys: [],
    ...over,
  };
}

/** A CUR 2.0 export manifest as delivered to `cur/svcmon2/metadata/BILLING_PERIOD=2025-05/svcmon2-Manifest.json`. */
function cur2(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    exportArn: "arn:aws:bcm-data-exports:us-east-1:123456789012:export/svcmon2-0f1e2d3c",
    exportName: "svcmon2",
    executionId: "e-20250514T0602",
    billingPeriod: { start: "2025-05-01T00:00:00.000Z", end: "2025-06-01T00:00:00.000Z" },
    columns: [
      { name: "bill_payer_account_id", type: "string" },
      { name: "line_item_unblended_cost", type: "double" },
    ],
    dataFiles: [
      `s3://${BUCKET}/cur/svcmon2/data/BILLING_PERIOD=2025-05/svcmon2-00001.snappy.parquet`,
      `s3://${BUCKET}/cur/svcmon2/data/BILLING_PERIOD=2025-05/svcmon2-00002.snappy.parquet`,
    ],
    ...over,
  };
}

describe("validateCurManifest: documented shapes", () => {
  it.each<[string, Record<string, unknown>, CurManifest]>([
    [
      "legacy CUR, gzip CSV in two parts",
      legacy(),
      {
        format: "legacy-cur",
        billing_period: "2025-05-01",
        billing_period_end: "2025-06-01",
        files: [1, 2].map((n) => ({
          bucket: BUCKET,
          key: `cur/svcmon/20250501-20250601/${ASSEMBLY}/svcmon-${n}.csv.gz`,
        })),
        delivery_id: ASSEMBLY,
      },
    ],
    [
      "legacy CUR for Athena (Parquet), without the bucket field",
      legacy({
        bucket: undefined,
        compression: "Parquet",
        contentType: "Parquet",
        reportKeys: ["cur/svcmon/svcmon/year=2025/month=5/svcmon-00001.snappy.parquet"],
      }),
      {
        format: "legacy-cur",
        billing_period: "2025-05-01",
        billing_period_end: "2025-06-01",
        files: [{ bucket: BUCKET, key: "cur/svcmon/svcmon/year=2025/month=5/svcmon-00001.snappy.parquet" }],
        delivery_id: ASSEMBLY,
      },
    ],
    [
      "CUR 2.0, Parquet",
      cur2(),
      {
        format: "cur2",
        billing_period: "2025-05-01",
        billing_period_end: "2025-06-01",
        files: [1, 2].map((n) => ({
          bucket: BUCKET,
          key: `cur/svcmon2/data/BILLING_PERIOD=2025-05/svcmon2-0000${n}.snappy.parquet`,
        })),
        delivery_id: "e-20250514T0602",
      },
    ],
    [
      "CUR 2.0, gzip CSV, billing period in the legacy timestamp layout",
      cur2({
        compression: "GZIP",
        billingPeriod: { start: "20250501T000000.000Z", end: "20250601T000000.000Z" },
        dataFiles: [`s3://${BUCKET}/cur/svcmon2/data/BILLING_PERIOD=2025-05/svcmon2-00001.csv.gz`],
      }),
      {
        format: "cur2",
        billing_period: "2025-05-01",
        billing_period_end: "2025-06-01",
        files: [{ bucket: BUCKET, key: "cur/svcmon2/data/BILLING_PERIOD=2025-05/svcmon2-00001.csv.gz" }],
        delivery_id: "e-20250514T0602",
      },
    ],
    [
      "a delivery without data files",
      legacy({ reportKeys: [] }),
      {
        format: "legacy-cur",
        billing_period: "2025-05-01",
        billing_period_end: "2025-06-01",
        files: [],
        delivery_id: ASSEMBLY,
      },
    ],
  ])("%s", (_name, input, value) => {
    expect(validateCurManifest(input, where)).toEqual({ ok: true, value });
  });
});

describe("validateCurManifest: refused, with the path at fault", () => {
  it.each<[string, unknown, { path: string; message: string | RegExp }[]]>([
    ["not an object", [], [{ path: "", message: "must be a JSON object" }]],
    [
      "neither format",
      { billingPeriod: { start: "20250501T000000.000Z", end: "20250601T000000.000Z" } },
      [{ path: "", message: "has neither reportKeys (legacy CUR) nor dataFiles (CUR 2.0)" }],
    ],
    [
      "both formats",
      legacy({ dataFiles: [] }),
      [{ path: "", message: "has both reportKeys (legacy CUR) and dataFiles (CUR 2.0)" }],
    ],
    [
      "no billing period",
      legacy({ billingPeriod: undefined }),
      [{ path: "billingPeriod", message: "is required: an object {start, end}" }],
    ],
    [
      "a billing period that does not start on the 1st, an end before the start",
      legacy({ billingPeriod: { start: "20250502T000000.000Z", end: "20250401T000000.000Z" } }),
      [
        { path: "billingPeriod.start", message: "not the first day of a month: 2025-05-02" },
        { path: "billingPeriod.end", message: "2025-04-01 is not after the start 2025-05-02" },
      ],
    ],
    [
      "timestamps that are not UTC midnight or not a date",
      legacy({ billingPeriod: { start: "20250501T120000.000Z", end: "2025-02-30T00:00:00Z" } }),
      [
        { path: "billingPeriod.start", message: 'not a UTC midnight timestamp: "20250501T120000.000Z"' },
        { path: "billingPeriod.end", message: 'not a UTC midnight timestamp: "2025-02-30T00:00:00Z"' },
      ],
    ],
    [
      "ZIP compression (the cost store reads gzip CSV and Parquet)",
      legacy({ compression: "ZIP", reportKeys: ["cur/svcmon/20250501-20250601/svcmon-1.csv.zip"] }),
      [
        { path: "compression", message: "ZIP is not read: define the report with GZIP (CSV) or Parquet" },
        {
          path: "reportKeys[0]",
          message: /svcmon-1\.csv\.zip: unknown report format: expected \.parquet, \.csv\.gz or \.csv/,
        },
      ],
    ],
    [
      "a file that disagrees with the compression",
      legacy({ reportKeys: ["cur/svcmon/20250501-20250601/svcmon-1.snappy.parquet"] }),
      [{ path: "reportKeys[0]", message: /a \.parquet file in a delivery whose compression is csv\.gz/ }],
    ],
    [
      "a file listed twice (its lines would count twice)",
      legacy({ reportKeys: ["a/x-1.csv.gz", "a/x-2.csv.gz", "a/x-1.csv.gz"] }),
      [{ path: "reportKeys[2]", message: "a/x-1.csv.gz is listed twice (also reportKeys[0])" }],
    ],
    [
      "a key ClickHouse's s3() would read as a glob",
      legacy({ reportKeys: ["cur/x*/svcmon-1.csv.gz"] }),
      [{ path: "reportKeys[0]", message: /contains \*, \?, \{ or \}/ }],
    ],
    [
      "CUR 2.0 files that are not s3:// URIs, or in another bucket",
      cur2({
        dataFiles: [
          "cur/svcmon2/data/x-00001.snappy.parquet",
          "s3://someone-else/cur/x-00002.snappy.parquet",
          "",
        ],
      }),
      [
        { path: "dataFiles[0]", message: /not an s3:\/\/bucket\/key URI/ },
        {
          path: "dataFiles[1]",
          message: /is in bucket someone-else: only the bucket the manifest was delivered/,
        },
        { path: "dataFiles[2]", message: "must be a non-empty string" },
      ],
    ],
    [
      "a legacy manifest naming another bucket",
      legacy({ bucket: "someone-else" }),
      [{ path: "bucket", message: `names someone-else, but the manifest was delivered to ${BUCKET}` }],
    ],
    [
      "wrong types",
      legacy({ reportKeys: "x.csv.gz", columns: [{ category: "identity" }], contentType: 3, assemblyId: 7 }),
      [
        { path: "contentType", message: "must be a string" },
        { path: "columns[0]", message: "must be an object with a name" },
        { path: "reportKeys", message: "must be an array of file names" },
        { path: "assemblyId", message: "must be a string" },
      ],
    ],
  ])("%s", (_name, input, errors) => {
    const r = validateCurManifest(input, where);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual(
      errors.map((e) => ({
        path: e.path,
        message: typeof e.message === "string" ? e.message : expect.stringMatching(e.message),
      })),
    );
  });

  it("bad JSON is one issue at the root", () => {
    const r = parseCurManifest('{"reportKeys": [', where);
    expect(r).toEqual({
      ok: false,
      errors: [{ path: "", message: expect.stringMatching(/^not valid JSON: /) }],
    });
  });
});

describe("which object an invocation names", () => {
  it("an EventBridge Object Created event of S3, key as stored (not URL-encoded)", () => {
    const event = {
      version: "0",
      id: "17793124-05d4-b198-2fde-7ededc63b103",
      "detail-type": "Object Created",
      source: "aws.s3",
      account: "123456789012",
      time: "2025-05-14T06:02:11Z",
      region: "us-east-1",
      resources: [`arn:aws:s3:::${BUCKET}`],
      detail: {
        version: "0",
        bucket: { name: BUCKET },
        object: { key: "cur/svcmon2/metadata/BILLING_PERIOD=2025-05/svcmon2-Manifest.json", size: 5123 },
        "request-id": "N4N7GDK58NMKJ12R",
        requester: "bcm-data-exports.amazonaws.com",
        reason: "PutObject",
      },
    };
    expect(manifestOfEvent(event)).toEqual({
      ok: true,
      value: { bucket: BUCKET, key: "cur/svcmon2/metadata/BILLING_PERIOD=2025-05/svcmon2-Manifest.json" },
    });
  });

  it('{"manifest": "s3://…"} (a re-ingest by hand)', () => {
    expect(
      manifestOfEvent({ manifest: `s3://${BUCKET}/cur/svcmon/20250501-20250601/svcmon-Manifest.json` }),
    ).toEqual({
      ok: true,
      value: { bucket: BUCKET, key: "cur/svcmon/20250501-20250601/svcmon-Manifest.json" },
    });
  });

  it.each<[string, unknown, string]>([
    ["a scheduled event", { source: "aws.events", "detail-type": "Scheduled Event", detail: {} }, ""],
    ["a manifest that is not an s3:// URI", { manifest: "cur/x-Manifest.json" }, "manifest"],
    [
      "an S3 event without a key",
      { source: "aws.s3", "detail-type": "Object Created", detail: { bucket: { name: BUCKET }, object: {} } },
      "detail.object.key",
    ],
  ])("refuses %s", (_name, event, path) => {
    const r = manifestOfEvent(event);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.path).toBe(path);
  });

  it("tells a legacy report version's copy of the manifest from the date-range folder's", () => {
    expect(isAssemblyCopy(`cur/svcmon/20250501-20250601/${ASSEMBLY}/svcmon-Manifest.json`)).toBe(true);
    expect(isAssemblyCopy("cur/svcmon/20250501-20250601/svcmon-Manifest.json")).toBe(false);
    expect(isAssemblyCopy("svcmon/20250501-20250601/svcmon-Manifest.json")).toBe(false);
    expect(isAssemblyCopy("cur/svcmon2/metadata/BILLING_PERIOD=2025-05/svcmon2-Manifest.json")).toBe(false);
  });
});

describe("s3ObjectUrl", () => {
  it("is the virtual-hosted URL; CUR's own characters stay, anything else is percent-encoded", () => {
    expect(
      s3ObjectUrl(
        { bucket: BUCKET, key: "cur/svcmon2/data/BILLING_PERIOD=2025-05/svcmon2-00001.snappy.parquet" },
        "us-east-1",
      ),
    ).toBe(
      `https://${BUCKET}.s3.us-east-1.amazonaws.com/cur/svcmon2/data/BILLING_PERIOD=2025-05/svcmon2-00001.snappy.parquet`,
    );
    expect(s3ObjectUrl({ bucket: "b", key: "a b/c#d%é.csv.gz" }, "eu-west-1")).toBe(
      "https://b.s3.eu-west-1.amazonaws.com/a%20b/c%23d%25%C3%A9.csv.gz",
    );
  });
});
