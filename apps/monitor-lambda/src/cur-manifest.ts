/**
 * What AWS writes when a cost report delivery is complete, and what svcmon-cur-ingest makes of it
 * (docs/monitor-cost.md, "Production trigger"). Pure: no I/O, no clock.
 *
 * - Legacy CUR: `<prefix>/<report>/<yyyymmdd-yyyymmdd>/<report>-Manifest.json` with `reportKeys`
 *   (keys in the bucket), `billingPeriod: {start, end}` (`20250501T000000.000Z`), `compression`,
 *   `contentType`, `columns`, `assemblyId`. With "create new report versions" AWS also writes the same
 *   manifest into the `<assemblyId>/` folder beside the data files.
 * - CUR 2.0 (Data Exports): `<prefix>/<export>/metadata/BILLING_PERIOD=YYYY-MM/<export>-Manifest.json`
 *   with `dataFiles` (`s3://bucket/key` URIs), `billingPeriod`, `columns`, `executionId`; AWS writes it
 *   only after every data file is in S3.
 */
import { at, type Issue, isPlainObject, type Result } from "@monitor/core";
import { curFormatOf } from "@monitor/cost";

export interface S3Location {
  bucket: string;
  key: string;
}

export interface CurManifest {
  format: "legacy-cur" | "cur2";
  /** YYYY-MM-DD: the first day of the billing period. */
  billing_period: string;
  /** YYYY-MM-DD: the day after the billing period (exclusive end). */
  billing_period_end: string;
  /** The delivery's data files, in the manifest's order. Empty: the delivery has no data. */
  files: S3Location[];
  /** `assemblyId` (legacy) or `executionId` (CUR 2.0), for the logs. */
  delivery_id: string | null;
}

/** The suffix every manifest key ends with (the EventBridge rule filters on it). */
export const MANIFEST_SUFFIX = "-Manifest.json";

// Legacy manifests write `20250501T000000.000Z`; ISO 8601 (`2025-05-01T00:00:00.000Z`) is read too.
const BASIC = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(?:\.\d+)?Z$/;
const EXTENDED = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-]00:?00))?$/;
const S3_URI = /^s3:\/\/([^/]+)\/(.+)$/;
/** ClickHouse's s3() reads these in a key as a glob (`*`, `?`, `{a,b}`): such a key cannot be named. */
const GLOB = /[*?{}]/;

/** A manifest timestamp as YYYY-MM-DD, or null when it is not midnight UTC in a known layout. */
function periodDay(text: string): string | null {
  const m = BASIC.exec(text) ?? EXTENDED.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h = "00", mi = "00", s = "00"] = m;
  if (h !== "00" || mi !== "00" || s !== "00") return null;
  const day = `${y}-${mo}-${d}`;
  const t = Date.parse(`${day}T00:00:00Z`);
  // Date.parse rolls 2025-02-30 over to March: compare the round trip.
  return Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== day ? null : day;
}

function billingPeriod(input: unknown, errors: Issue[]): { start: string; end: string } | null {
  if (!isPlainObject(input)) {
    errors.push({ path: "billingPeriod", message: "is required: an object {start, end}" });
    return null;
  }
  const day = (key: "start" | "end"): string | null => {
    const path = at("billingPeriod", key);
    const v = input[key];
    if (typeof v !== "string") {
      errors.push({ path, message: "is required: a timestamp such as 20250501T000000.000Z" });
      return null;
    }
    const parsed = periodDay(v);
    if (parsed === null) errors.push({ path, message: `not a UTC midnight timestamp: ${JSON.stringify(v)}` });
    return parsed;
  };
  const start = day("start");
  const end = day("end");
  if (start !== null && !start.endsWith("-01")) {
    errors.push({ path: "billingPeriod.start", message: `not the first day of a month: ${start}` });
  }
  if (start !== null && end !== null && end <= start) {
    errors.push({ path: "billingPeriod.end", message: `${end} is not after the start ${start}` });
  }
  return start === null || end === null ? null : { start, end };
}

function optionalString(input: Record<string, unknown>, key: string, errors: Issue[]): string | null {
  const v = input[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") {
    errors.push({ path: key, message: "must be a string" });
    return null;
  }
  return v;
}

/** What `compression` says the files are; ZIP is what the cost store cannot read. */
function expectedFormat(input: Record<string, unknown>, errors: Issue[]): "csv.gz" | "parquet" | null {
  const v = optionalString(input, "compression", errors);
  if (v === null) return null;
  switch (v.toUpperCase()) {
    case "GZIP":
      return "csv.gz";
    case "PARQUET":
      return "parquet";
    case "ZIP":
      errors.push({
        path: "compression",
        message: "ZIP is not read: define the report with GZIP (CSV) or Parquet",
      });
      return null;
    default:
      errors.push({ path: "compression", message: `unknown compression ${JSON.stringify(v)}` });
      return null;
  }
}

/** One data file's key: a format the cost store reads, agreeing with `compression`, no glob characters. */
function checkKey(
  key: string,
  path: string,
  expected: "csv.gz" | "parquet" | null,
  errors: Issue[],
): boolean {
  const format = curFormatOf(key);
  if (format === null) {
    errors.push({ path, message: `${key}: unknown report format: expected .parquet, .csv.gz or .csv` });
    return false;
  }
  const actual = format.format === "Parquet" ? "parquet" : format.compression === "gzip" ? "csv.gz" : "csv";
  if (expected !== null && actual !== expected) {
    errors.push({
      path,
      message: `${key}: a .${actual} file in a delivery whose compression is ${expected}`,
    });
    return false;
  }
  if (GLOB.test(key)) {
    errors.push({
      path,
      message: `${key}: contains *, ?, { or }, which ClickHouse's s3() would read as a glob`,
    });
    return false;
  }
  return true;
}

function columns(input: Record<string, unknown>, errors: Issue[]): void {
  const v = input.columns;
  if (v === undefined) return;
  if (!Array.isArray(v)) {
    errors.push({ path: "columns", message: "must be an array of {name, type}" });
    return;
  }
  v.forEach((c, i) => {
    if (!isPlainObject(c) || typeof c.name !== "string" || c.name === "") {
      errors.push({ path: at("columns", i), message: "must be an object with a name" });
    }
  });
}

function fileList(
  input: Record<string, unknown>,
  field: "reportKeys" | "dataFiles",
  bucket: string,
  expected: "csv.gz" | "parquet" | null,
  errors: Issue[],
): S3Location[] {
  const list = input[field];
  if (!Array.isArray(list)) {
    errors.push({ path: field, message: "must be an array of file names" });
    return [];
  }
  const files: S3Location[] = [];
  const seen = new Map<string, number>();
  list.forEach((item, i) => {
    const path = at(field, i);
    if (typeof item !== "string" || item.trim() === "") {
      errors.push({ path, message: "must be a non-empty string" });
      return;
    }
    let file: S3Location;
    if (field === "dataFiles") {
      const m = S3_URI.exec(item);
      if (m === null) {
        errors.push({ path, message: `not an s3://bucket/key URI: ${JSON.stringify(item)}` });
        return;
      }
      file = { bucket: m[1] as string, key: m[2] as string };
    } else {
      file = { bucket, key: item.replace(/^\/+/, "") };
    }
    if (file.bucket !== bucket) {
      errors.push({
        path,
        message: `${item} is in bucket ${file.bucket}: only the bucket the manifest was delivered to (${bucket}) is read`,
      });
      return;
    }
    if (!checkKey(file.key, path, expected, errors)) return;
    const first = seen.get(file.key);
    if (first !== undefined) {
      // Staged twice, every line would count twice.
      errors.push({ path, message: `${file.key} is listed twice (also ${at(field, first)})` });
      return;
    }
    seen.set(file.key, i);
    files.push(file);
  });
  return files;
}

/**
 * A delivery manifest read from `bucket`: every problem with its path (`reportKeys[2]`,
 * `billingPeriod.start`). Fields this ingestion does not use are not checked, so a field AWS adds
 * later changes nothing.
 */
export function validateCurManifest(input: unknown, where: { bucket: string }): Result<CurManifest> {
  if (!isPlainObject(input)) return { ok: false, errors: [{ path: "", message: "must be a JSON object" }] };
  const errors: Issue[] = [];
  const legacy = "reportKeys" in input;
  const cur2 = "dataFiles" in input;
  if (legacy === cur2) {
    errors.push({
      path: "",
      message: legacy
        ? "has both reportKeys (legacy CUR) and dataFiles (CUR 2.0)"
        : "has neither reportKeys (legacy CUR) nor dataFiles (CUR 2.0)",
    });
  }
  const period = billingPeriod(input.billingPeriod, errors);
  const expected = expectedFormat(input, errors);
  optionalString(input, "contentType", errors);
  columns(input, errors);
  const stated = legacy ? optionalString(input, "bucket", errors) : null;
  if (stated !== null && stated !== where.bucket) {
    errors.push({
      path: "bucket",
      message: `names ${stated}, but the manifest was delivered to ${where.bucket}`,
    });
  }
  const files =
    legacy !== cur2
      ? fileList(input, legacy ? "reportKeys" : "dataFiles", where.bucket, expected, errors)
      : [];
  const deliveryId = optionalString(input, legacy ? "assemblyId" : "executionId", errors);
  if (errors.length > 0 || period === null) return { ok: false, errors };
  return {
    ok: true,
    value: {
      format: legacy ? "legacy-cur" : "cur2",
      billing_period: period.start,
      billing_period_end: period.end,
      files,
      delivery_id: deliveryId,
    },
  };
}

/** JSON text to a manifest; bad JSON is one issue at the root. */
export function parseCurManifest(text: string, where: { bucket: string }): Result<CurManifest> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [{ path: "", message: `not valid JSON: ${(err as Error).message}` }] };
  }
  return validateCurManifest(parsed, where);
}

/**
 * A legacy manifest's copy in the `<assemblyId>/` folder (`…/20250501-20250601/<assemblyId>/x-Manifest.json`):
 * the same delivery as the date-range folder's manifest, which is ingested instead.
 */
export function isAssemblyCopy(key: string): boolean {
  const parts = key.split("/");
  const grandparent = parts.at(-3);
  return grandparent !== undefined && /^\d{8}-\d{8}$/.test(grandparent);
}

/**
 * The manifest an invocation names: an EventBridge "Object Created" event of S3 (the trigger), or
 * `{"manifest": "s3://bucket/key"}` (a re-ingest by hand).
 */
export function manifestOfEvent(event: unknown): Result<S3Location> {
  const fail = (path: string, message: string): Result<S3Location> => ({
    ok: false,
    errors: [{ path, message }],
  });
  if (!isPlainObject(event)) return fail("", "must be an object");
  if (typeof event.manifest === "string") {
    const m = S3_URI.exec(event.manifest);
    return m === null
      ? fail("manifest", `not an s3://bucket/key URI: ${JSON.stringify(event.manifest)}`)
      : { ok: true, value: { bucket: m[1] as string, key: m[2] as string } };
  }
  if (event.source !== "aws.s3" || event["detail-type"] !== "Object Created") {
    return fail("", 'neither an S3 "Object Created" event nor {"manifest": "s3://bucket/key"}');
  }
  const detail = event.detail;
  const bucket = isPlainObject(detail) && isPlainObject(detail.bucket) ? detail.bucket.name : undefined;
  const key = isPlainObject(detail) && isPlainObject(detail.object) ? detail.object.key : undefined;
  if (typeof bucket !== "string" || bucket === "") return fail("detail.bucket.name", "is required");
  // EventBridge carries the key as stored (S3 notifications to SQS/SNS/Lambda URL-encode it; this does not).
  if (typeof key !== "string" || key === "") return fail("detail.object.key", "is required");
  return { ok: true, value: { bucket, key } };
}

/** RFC 3986 path characters stay as they are (CUR keys use only these); anything else is percent-encoded. */
function encodeKey(key: string): string {
  return key.replace(/[^A-Za-z0-9\-._~!$&'()+,;=:@/]/gu, (c) => encodeURIComponent(c));
}

/** The virtual-hosted-style HTTPS URL ClickHouse's s3() reads an object through. */
export function s3ObjectUrl(file: S3Location, region: string): string {
  return `https://${file.bucket}.s3.${region}.amazonaws.com/${encodeKey(file.key)}`;
}
