/**
 * `svcmon-cur-ingest`: ingests a cost report delivery when AWS has finished writing it. An EventBridge
 * rule on the CUR bucket's "Object Created" events for keys ending in `-Manifest.json` invokes the
 * function; it reads the manifest (GetObject), validates it, and has ClickHouse read the delivery's
 * data files itself through `s3()` (costStore.ingest: checked in staging, then swapped in for its
 * billing period and payer, with the cost per node per day derived from the latest hierarchy). A
 * re-delivered manifest replaces its period, so retries and repeats are harmless.
 *
 * A malformed manifest or a rejected report fails the invocation, logged with the manifest, the file
 * and the row at fault; the stored data is as before. Lambda retries the event, then sends it to the
 * failure destination (svcmon-cur-ingest-dlq). Reserved concurrency 1 keeps deliveries in sequence.
 */
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { Issue, Result } from "@monitor/core";
import {
  ClickHouseCostStore,
  CostReportRejected,
  type CurSource,
  type IngestResult,
  type S3Auth,
} from "@monitor/cost";
import type { Logger } from "@shared/kernel";
import { errorMessage } from "@shared/kernel";
import { jsonLogger } from "@shared/kernel/json-logger";
import { clickHouseFromEnv, orThrow } from "./config.ts";
import {
  type CurManifest,
  isAssemblyCopy,
  MANIFEST_SUFFIX,
  manifestOfEvent,
  parseCurManifest,
  type S3Location,
  s3ObjectUrl,
} from "./cur-manifest.ts";
import { hierarchyRulesFromLambdaEnv } from "./hierarchy-rules-env.ts";
import { once, openStore } from "./store.ts";

export interface CurIngestSettings {
  /** The CUR bucket (the only one this function reads manifests from). */
  bucket: string;
  /** The bucket's region (the function's own: the stack creates both). */
  region: string;
  /** How ClickHouse authenticates to S3: its own credentials, or a named collection holding keys. */
  auth: S3Auth;
  /** Bound of each statement of an ingest (reading and checking a report is the long one). */
  ingestTimeoutMs: number;
}

/** The cost store's side the function uses. */
export interface CostIngest {
  ingest(sources: readonly CurSource[]): Promise<IngestResult>;
}

export interface CurIngestDeps {
  s3: S3Client;
  cost: CostIngest;
  /** The CUR bucket: a manifest elsewhere is refused. */
  bucket: string;
  /** Where ClickHouse reads a data file: `s3()` on the server (curS3Source); tests read local files. */
  source: (file: S3Location) => CurSource;
  log: Logger;
}

export type CurIngestSummary =
  | { outcome: "skipped"; manifest: string; reason: string }
  | ({
      outcome: "ingested";
      manifest: string;
      format: CurManifest["format"];
      delivery_id: string | null;
    } & Omit<IngestResult, "files">);

type Env = Record<string, string | undefined>;

const uri = (l: S3Location) => `s3://${l.bucket}/${l.key}`;
const messageOf = errorMessage;
const listed = (errors: readonly Issue[]) => errors.map((e) => `${e.path || "(root)"}: ${e.message}`);

export function curIngestFromEnv(env: Env): Result<CurIngestSettings> {
  const errors: Issue[] = [];
  const bucket = env.CUR_BUCKET?.trim() ?? "";
  if (bucket === "") errors.push({ path: "CUR_BUCKET", message: "is not set" });
  const region = env.AWS_REGION?.trim() ?? "";
  if (region === "") errors.push({ path: "AWS_REGION", message: "is not set" });
  const collection = env.CUR_S3_NAMED_COLLECTION?.trim() ?? "";
  if (collection !== "" && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(collection)) {
    errors.push({ path: "CUR_S3_NAMED_COLLECTION", message: "must be a ClickHouse identifier" });
  }
  const rawTimeout = env.CUR_INGEST_TIMEOUT_MS?.trim() ?? "";
  const ingestTimeoutMs = rawTimeout === "" ? 600_000 : Number(rawTimeout);
  if (!Number.isInteger(ingestTimeoutMs) || ingestTimeoutMs <= 0) {
    errors.push({ path: "CUR_INGEST_TIMEOUT_MS", message: "must be a positive integer" });
  }
  if (errors.length > 0) return { ok: false, errors };
  const auth: S3Auth =
    collection === "" ? { kind: "environment" } : { kind: "named_collection", name: collection };
  return { ok: true, value: { bucket, region, auth, ingestTimeoutMs } };
}

/** A data file as ClickHouse's `s3()` reads it, with the server's credentials or a named collection. */
export function curS3Source(settings: Pick<CurIngestSettings, "region" | "auth">) {
  return (file: S3Location): CurSource => ({
    kind: "s3",
    url: s3ObjectUrl(file, settings.region),
    auth: settings.auth,
  });
}

async function readManifest(s3: S3Client, at: S3Location): Promise<string> {
  const res = await s3.send(new GetObjectCommand({ Bucket: at.bucket, Key: at.key }));
  if (res.Body === undefined) throw new Error(`${uri(at)}: GetObject returned no body`);
  return res.Body.transformToString("utf-8");
}

/** One invocation: one manifest. It rejects (the invocation fails) on anything that was not stored. */
export function createCurIngestHandler(deps: CurIngestDeps): (event: unknown) => Promise<CurIngestSummary> {
  const { log } = deps;
  return async (event) => {
    const target = manifestOfEvent(event);
    if (!target.ok) {
      log.error("cur ingest: not a manifest event", { errors: listed(target.errors) });
      throw new Error(`svcmon-cur-ingest: not a manifest event: ${listed(target.errors).join("; ")}`);
    }
    const at = target.value;
    const manifest = uri(at);
    if (at.bucket !== deps.bucket) {
      log.error("cur ingest: manifest outside the CUR bucket", { manifest, bucket: deps.bucket });
      throw new Error(`svcmon-cur-ingest: ${manifest} is not in the CUR bucket ${deps.bucket}`);
    }
    if (!at.key.endsWith(MANIFEST_SUFFIX)) {
      log.error("cur ingest: not a manifest key", { manifest });
      throw new Error(`svcmon-cur-ingest: ${manifest} does not end with ${MANIFEST_SUFFIX}`);
    }
    if (isAssemblyCopy(at.key)) {
      // The date-range folder's manifest of the same delivery triggers its own ingest.
      const reason = "copy of the date-range folder's manifest (legacy CUR report version)";
      log.info("cur ingest: skipped", { manifest, reason });
      return { outcome: "skipped", manifest, reason };
    }

    let text: string;
    try {
      text = await readManifest(deps.s3, at);
    } catch (error) {
      log.error("cur ingest: manifest not read", { manifest, error: messageOf(error) });
      throw error;
    }
    const parsed = parseCurManifest(text, { bucket: deps.bucket });
    if (!parsed.ok) {
      log.error("cur ingest: malformed manifest, nothing was stored", {
        manifest,
        errors: listed(parsed.errors),
      });
      throw new Error(`svcmon-cur-ingest: ${manifest}: ${listed(parsed.errors).join("; ")}`);
    }
    const m = parsed.value;
    if (m.files.length === 0) {
      const reason = "the manifest lists no data files";
      log.warn("cur ingest: skipped", { manifest, reason, billing_period: m.billing_period });
      return { outcome: "skipped", manifest, reason };
    }

    let result: IngestResult;
    try {
      result = await deps.cost.ingest(m.files.map(deps.source));
    } catch (error) {
      if (error instanceof CostReportRejected) {
        log.error("cur ingest: report rejected, nothing was stored", {
          manifest,
          billing_period: m.billing_period,
          file: error.file,
          row: error.row,
          column: error.column,
          reason: error.reason,
        });
      } else {
        log.error("cur ingest failed, nothing was stored", { manifest, error: messageOf(error) });
      }
      throw error;
    }
    if (result.billing_period !== m.billing_period) {
      // The lines decide the partition; a manifest that disagrees with them is worth a look.
      log.warn("cur ingest: the lines' billing period differs from the manifest's", {
        manifest,
        manifest_billing_period: m.billing_period,
        billing_period: result.billing_period,
      });
    }
    const { files: _files, ...stored } = result;
    log.info("cur ingested", { manifest, files: m.files.length, ...stored });
    return { outcome: "ingested", manifest, format: m.format, delivery_id: m.delivery_id, ...stored };
  };
}

const deployed = once(async () => {
  const env = process.env;
  const settings = orThrow("svcmon-cur-ingest", curIngestFromEnv(env));
  const rules = orThrow("svcmon-cur-ingest", hierarchyRulesFromLambdaEnv(env));
  const ch = orThrow("svcmon-cur-ingest", clickHouseFromEnv(env));
  // The HTTP client's request timeout bounds every statement: a report read takes minutes.
  const store = openStore({ ...ch, timeoutMs: Math.max(ch.timeoutMs, settings.ingestTimeoutMs) });
  await store.migrate();
  const log = jsonLogger("svcmon-cur-ingest");
  const cost = ClickHouseCostStore.fromStore(store, {
    rules,
    timeoutMs: Math.max(ch.timeoutMs, 30_000),
    ingestTimeoutMs: settings.ingestTimeoutMs,
  });
  await cost.dropStaleStaging();
  return createCurIngestHandler({
    s3: new S3Client({ region: settings.region }),
    cost,
    bucket: settings.bucket,
    source: curS3Source(settings),
    log,
  });
});

/** The Lambda entry point (EventBridge "Object Created", or `{"manifest": "s3://…"}` by hand). */
export const handler = async (event: unknown): Promise<CurIngestSummary> => (await deployed())(event);
