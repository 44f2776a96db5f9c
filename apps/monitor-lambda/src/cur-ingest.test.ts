/**
 * svcmon-cur-ingest end to end, except S3: the manifest is read from S3 through aws-sdk-client-mock,
 * and the cost store is real chDB, whose s3() source is swapped for fileSource() of report files the
 * test writes through ClickHouse (the SQL of the real s3() source is asserted separately).
 */

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { DEFAULT_HIERARCHY_RULES } from "@monitor/core";
import {
  ClickHouseCostStore,
  CostReportRejected,
  type CurLayout,
  type CurLine,
  fileSource,
  tableFunction,
  writeCurFile,
} from "@monitor/cost";
import { sdkStreamMixin } from "@smithy/core/serde";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCurIngestHandler, curIngestFromEnv, curS3Source } from "./cur-ingest.ts";
import type { S3Location } from "./cur-manifest.ts";
import { memoryLogger } from "./test-support.ts";

const BUCKET = "svcmon-cur-123456789012-us-east-1";
const PAYER = "123456789012";
const ACC = "111111111111";
const ASSEMBLY_1 = "0b1d5e6f-0000-4000-8000-000000000001";
const ASSEMBLY_2 = "0b1d5e6f-0000-4000-8000-000000000002";
const LEGACY_MANIFEST = "cur/svcmon/20250501-20250601/svcmon-Manifest.json";
const CUR2_MANIFEST = "cur/svcmon2/metadata/BILLING_PERIOD=2025-04/svcmon2-Manifest.json";

const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-cur-ingest-"));
const s3 = mockClient(S3Client);
let store: ClickHouseRunStore;
let cost: ClickHouseCostStore;
/** What the bucket holds: the manifests the S3 double serves (data files are local files). */
let manifests: Map<string, string>;

/** A data file of the bucket, as a local file ClickHouse reads with file() (s3() cannot be reached here). */
const localPath = (file: S3Location) => join(dir, "bucket", file.bucket, file.key);

beforeAll(async () => {
  store = openChdbRunStore(join(dir, "chdb"), { timeoutMs: 10_000 });
  await store.migrate();
  cost = ClickHouseCostStore.fromStore(store, {
    rules: DEFAULT_HIERARCHY_RULES,
    now: () => Date.UTC(2025, 5, 2),
  });
}, 60_000);

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  manifests = new Map();
  s3.reset();
  s3.on(GetObjectCommand).callsFake(async (input: { Bucket: string; Key: string }) => {
    const text = input.Bucket === BUCKET ? manifests.get(input.Key) : undefined;
    if (text === undefined) {
      throw Object.assign(new Error("The specified key does not exist."), { name: "NoSuchKey" });
    }
    return { Body: sdkStreamMixin(Readable.from([Buffer.from(text, "utf8")])) };
  });
});

function handlerWith(log = memoryLogger()) {
  const handler = createCurIngestHandler({
    s3: new S3Client({ region: "us-east-1" }),
    cost,
    bucket: BUCKET,
    source: (file) => fileSource(localPath(file)),
    log,
  });
  return { handler, log };
}

/** The event EventBridge delivers when an object is written to the bucket. */
function objectCreated(key: string, bucket = BUCKET) {
  return {
    version: "0",
    id: "7e1b4d1c-5a44-4f0f-9a55-6f0c4e0f2a10",
    "detail-type": "Object Created",
    source: "aws.s3",
    account: PAYER,
    time: "2025-06-01T06:02:11Z",
    region: "us-east-1",
    resources: [`arn:aws:s3:::${bucket}`],
    detail: {
      version: "0",
      bucket: { name: bucket },
      object: { key, size: 2048, etag: "d41d8cd98f00b204e9800998ecf8427e", sequencer: "0067A1B2C3D4E5F601" },
      "request-id": "N4N7GDK58NMKJ12R",
      requester: "billingreports.amazonaws.com",
      reason: "PutObject",
    },
  };
}

function line(day: string, p: Partial<CurLine> = {}): CurLine {
  return {
    billing_period: `${day.slice(0, 8)}01`,
    payer_account_id: PAYER,
    usage_account_id: ACC,
    line_item_type: "Usage",
    usage_start: `${day}T00:00:00Z`,
    product_code: "AWSLambda",
    resource_id: `arn:aws:lambda:us-east-1:${ACC}:function:svcmon-status`,
    unblended_cost: 1.25,
    currency: "USD",
    tags: { "svc:purpose": "svc-infrastructure" },
    ...p,
  };
}

async function writeData(key: string, layout: CurLayout, lines: CurLine[]): Promise<string> {
  const path = localPath({ bucket: BUCKET, key });
  mkdirSync(dirname(path), { recursive: true });
  await writeCurFile(store.client, path, layout, lines);
  return key;
}

/** A legacy CUR delivery (one report version): its data parts and the date-range folder's manifest. */
async function deliverLegacy(assembly: string, parts: CurLine[][]): Promise<string[]> {
  const keys: string[] = [];
  for (const [i, lines] of parts.entries()) {
    keys.push(
      await writeData(`cur/svcmon/20250501-20250601/${assembly}/svcmon-${i + 1}.csv.gz`, "legacy-csv", lines),
    );
  }
  manifests.set(
    LEGACY_MANIFEST,
    JSON.stringify({
      assemblyId: assembly,
      account: PAYER,
      columns: [{ category: "lineItem", name: "UnblendedCost", type: "BigDecimal" }],
      charset: "UTF-8",
      compression: "GZIP",
      contentType: "text/csv",
      reportName: "svcmon",
      billingPeriod: { start: "20250501T000000.000Z", end: "20250601T000000.000Z" },
      bucket: BUCKET,
      reportKeys: keys,
    }),
  );
  return keys;
}

async function rows<T>(query: string): Promise<T[]> {
  const rs = await store.client.query({ query, format: "JSONEachRow" });
  return rs.json<T>();
}

/** Every stored partition with its line count and total: what a failed invocation must not change. */
const stored = () =>
  rows<{ bp: string; n: string; cost: string }>(
    "SELECT toString(billing_period) AS bp, toString(count()) AS n, toString(sum(unblended_cost)) AS cost FROM svc.cost_line_items GROUP BY bp ORDER BY bp",
  );

const manifestReads = () => s3.commandCalls(GetObjectCommand).map((c) => c.args[0].input.Key);

describe("svcmon-cur-ingest (S3 through aws-sdk-client-mock; chDB reads the data files with file() in place of s3())", () => {
  it("ingests a legacy CUR delivery in two parts when its manifest is written, and attributes it", async () => {
    await deliverLegacy(ASSEMBLY_1, [
      [line("2025-05-01"), line("2025-05-02")],
      [line("2025-05-03", { resource_id: "i-web", tags: { team: "web" }, unblended_cost: 4 })],
    ]);
    const { handler, log } = handlerWith();
    const summary = await handler(objectCreated(LEGACY_MANIFEST));
    expect(summary).toEqual({
      outcome: "ingested",
      manifest: `s3://${BUCKET}/${LEGACY_MANIFEST}`,
      format: "legacy-cur",
      delivery_id: ASSEMBLY_1,
      billing_period: "2025-05-01",
      payer_account_id: PAYER,
      lines: 3,
      replaced_lines: 0,
      first_day: "2025-05-01",
      last_day: "2025-05-03",
    });
    expect(manifestReads()).toEqual([LEGACY_MANIFEST]);
    expect(await stored()).toEqual([{ bp: "2025-05-01", n: "3", cost: "6.5" }]);
    const nodes = await rows<{ node: string; cost: string }>(
      "SELECT node, toString(sum(cost)) AS cost FROM svc.cost_node_daily WHERE billing_period = '2025-05-01' GROUP BY node ORDER BY node",
    );
    expect(nodes).toEqual([
      { node: "svc-infrastructure", cost: "2.5" },
      { node: "teams/web", cost: "4" },
    ]);
    expect(log.lines.at(-1)).toMatchObject({ level: "info", message: "cur ingested" });
  });

  it("a re-delivered manifest replaces its billing period; the same manifest twice stores it once", async () => {
    await deliverLegacy(ASSEMBLY_2, [[line("2025-05-01", { unblended_cost: 2 }), line("2025-05-04")]]);
    const { handler } = handlerWith();
    const first = await handler(objectCreated(LEGACY_MANIFEST));
    expect(first).toMatchObject({
      outcome: "ingested",
      lines: 2,
      replaced_lines: 3,
      delivery_id: ASSEMBLY_2,
    });
    const again = await handler(objectCreated(LEGACY_MANIFEST));
    expect(again).toMatchObject({ outcome: "ingested", lines: 2, replaced_lines: 2 });
    expect(await stored()).toEqual([{ bp: "2025-05-01", n: "2", cost: "3.25" }]);
  });

  it("skips a report version's copy of the manifest in its assembly folder without reading it", async () => {
    const { handler } = handlerWith();
    const copy = `cur/svcmon/20250501-20250601/${ASSEMBLY_2}/svcmon-Manifest.json`;
    expect(await handler(objectCreated(copy))).toMatchObject({ outcome: "skipped" });
    expect(manifestReads()).toEqual([]);
  });

  it("ingests a CUR 2.0 Parquet export, named by hand as {manifest: s3://…}", async () => {
    const key = await writeData(
      "cur/svcmon2/data/BILLING_PERIOD=2025-04/svcmon2-00001.snappy.parquet",
      "cur2-parquet",
      [line("2025-04-10"), line("2025-04-11", { unblended_cost: 0.75 })],
    );
    manifests.set(
      CUR2_MANIFEST,
      JSON.stringify({
        exportArn: `arn:aws:bcm-data-exports:us-east-1:${PAYER}:export/svcmon2-0f1e2d3c`,
        executionId: "exec-2025-04-30",
        billingPeriod: { start: "2025-04-01T00:00:00.000Z", end: "2025-05-01T00:00:00.000Z" },
        columns: [{ name: "line_item_unblended_cost", type: "double" }],
        dataFiles: [`s3://${BUCKET}/${key}`],
      }),
    );
    const { handler } = handlerWith();
    const summary = await handler({ manifest: `s3://${BUCKET}/${CUR2_MANIFEST}` });
    expect(summary).toMatchObject({
      outcome: "ingested",
      format: "cur2",
      delivery_id: "exec-2025-04-30",
      billing_period: "2025-04-01",
      lines: 2,
    });
    expect(await stored()).toEqual([
      { bp: "2025-04-01", n: "2", cost: "2" },
      { bp: "2025-05-01", n: "2", cost: "3.25" },
    ]);
  });

  it("fails on a malformed manifest, logging every field at fault; nothing changes", async () => {
    const before = await stored();
    manifests.set(
      LEGACY_MANIFEST,
      JSON.stringify({
        billingPeriod: { start: "20250502T000000.000Z", end: "20250601T000000.000Z" },
        compression: "ZIP",
        reportKeys: ["cur/svcmon/20250501-20250601/x/svcmon-1.csv.zip"],
      }),
    );
    const { handler, log } = handlerWith();
    await expect(handler(objectCreated(LEGACY_MANIFEST))).rejects.toThrow(
      /svcmon-cur-ingest: s3:\/\/.*svcmon-Manifest\.json: billingPeriod\.start: not the first day of a month: 2025-05-02; compression: ZIP is not read/,
    );
    expect(log.lines).toEqual([
      {
        level: "error",
        message: "cur ingest: malformed manifest, nothing was stored",
        fields: {
          manifest: `s3://${BUCKET}/${LEGACY_MANIFEST}`,
          errors: [
            "billingPeriod.start: not the first day of a month: 2025-05-02",
            "compression: ZIP is not read: define the report with GZIP (CSV) or Parquet",
            "reportKeys[0]: cur/svcmon/20250501-20250601/x/svcmon-1.csv.zip: unknown report format: expected .parquet, .csv.gz or .csv",
          ],
        },
      },
    ]);
    expect(await stored()).toEqual(before);
  });

  it("fails on a rejected report, logging the file and row at fault; the period keeps its earlier data", async () => {
    const before = await stored();
    const keys = await deliverLegacy("0b1d5e6f-0000-4000-8000-000000000003", [
      [line("2025-05-01"), line("2025-05-02")],
      [line("2025-05-03"), line("2025-05-04"), line("2025-05-05", { unblended_cost: "12,50" })],
    ]);
    const { handler, log } = handlerWith();
    const err = await handler(objectCreated(LEGACY_MANIFEST)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CostReportRejected);
    const file = localPath({ bucket: BUCKET, key: keys[1] as string });
    expect(log.lines).toEqual([
      {
        level: "error",
        message: "cur ingest: report rejected, nothing was stored",
        fields: {
          manifest: `s3://${BUCKET}/${LEGACY_MANIFEST}`,
          billing_period: "2025-05-01",
          file,
          row: 3,
          column: "lineItem/UnblendedCost",
          reason: 'not a number: "12,50"',
        },
      },
    ]);
    expect(await stored()).toEqual(before);
  });

  it("fails when the manifest cannot be read or is not JSON", async () => {
    const { handler, log } = handlerWith();
    await expect(handler(objectCreated("cur/gone/20250501-20250601/gone-Manifest.json"))).rejects.toThrow(
      /does not exist/,
    );
    manifests.set(LEGACY_MANIFEST, "{");
    await expect(handler(objectCreated(LEGACY_MANIFEST))).rejects.toThrow(/\(root\): not valid JSON/);
    expect(log.lines.map((l) => l.message)).toEqual([
      "cur ingest: manifest not read",
      "cur ingest: malformed manifest, nothing was stored",
    ]);
  });

  it("refuses an object outside the CUR bucket, or one that is not a manifest, without reading it", async () => {
    const { handler } = handlerWith();
    await expect(handler(objectCreated(LEGACY_MANIFEST, "someone-else"))).rejects.toThrow(
      /is not in the CUR bucket/,
    );
    await expect(handler({ manifest: `s3://${BUCKET}/cur/svcmon/x.csv.gz` })).rejects.toThrow(
      /does not end with -Manifest\.json/,
    );
    await expect(handler({ source: "aws.events", "detail-type": "Scheduled Event" })).rejects.toThrow(
      /not a manifest event/,
    );
    expect(manifestReads()).toEqual([]);
  });

  it("skips a manifest that lists no data files (nothing to replace the period with)", async () => {
    manifests.set(
      LEGACY_MANIFEST,
      JSON.stringify({
        billingPeriod: { start: "20250501T000000.000Z", end: "20250601T000000.000Z" },
        reportKeys: [],
      }),
    );
    const before = await stored();
    const { handler } = handlerWith();
    expect(await handler(objectCreated(LEGACY_MANIFEST))).toMatchObject({ outcome: "skipped" });
    expect(await stored()).toEqual(before);
  });
});

describe("the s3() source of the deployed function", () => {
  const file = { bucket: BUCKET, key: "cur/svcmon2/data/BILLING_PERIOD=2025-04/svcmon2-00001.csv.gz" };
  const url = `https://${BUCKET}.s3.us-east-1.amazonaws.com/${file.key}`;

  it("reads the bucket with the ClickHouse server's own credentials by default", () => {
    const settings = curIngestFromEnv({ CUR_BUCKET: BUCKET, AWS_REGION: "us-east-1" });
    expect(settings.ok).toBe(true);
    if (!settings.ok) return;
    expect(settings.value).toEqual({
      bucket: BUCKET,
      region: "us-east-1",
      auth: { kind: "environment" },
      ingestTimeoutMs: 600_000,
    });
    expect(tableFunction(curS3Source(settings.value)(file), "CSVWithNames", "`a` String", "gzip")).toBe(
      `s3('${url}', 'CSVWithNames', '\`a\` String', 'gzip')`,
    );
  });

  it("or through a named collection, so no key is in the query text", () => {
    const settings = curIngestFromEnv({
      CUR_BUCKET: BUCKET,
      AWS_REGION: "us-east-1",
      CUR_S3_NAMED_COLLECTION: "cur_bucket",
    });
    if (!settings.ok) throw new Error("settings refused");
    expect(tableFunction(curS3Source(settings.value)(file), "Parquet")).toBe(
      `s3(cur_bucket, url = '${url}', format = 'Parquet')`,
    );
  });

  it("names every setting at fault", () => {
    expect(curIngestFromEnv({ CUR_S3_NAMED_COLLECTION: "x; DROP", CUR_INGEST_TIMEOUT_MS: "soon" })).toEqual({
      ok: false,
      errors: [
        { path: "CUR_BUCKET", message: "is not set" },
        { path: "AWS_REGION", message: "is not set" },
        { path: "CUR_S3_NAMED_COLLECTION", message: "must be a ClickHouse identifier" },
        { path: "CUR_INGEST_TIMEOUT_MS", message: "must be a positive integer" },
      ],
    });
  });
});
