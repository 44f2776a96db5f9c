// Seed 4.5 "upload" and "verify upload", and the deletion of an old version after the grace period.
import { formatIssues, loadArtifact, MAX_ARTIFACT_BYTES, modelKey } from "@relevance/core";
import type { Kv } from "@relevance/settings";
import { UserError } from "../io.ts";
import { graceClock, hasWriteTimes, storeTimes } from "./grace-clock.ts";
import { type Procedure, type ProcedureContext, refuseDeleteWithMovedClock } from "./procedure.ts";
import { accountRecords, modelUse } from "./records.ts";
import { byteLength, kb, mb } from "./report.ts";
import {
  artifactLimit,
  type CheckedArtifact,
  checkArtifactId,
  maxBytesFlag,
  modelIdFlag,
  readArtifactFile,
} from "./validate.ts";

/** Files above this size show progress on stderr while they are transferred. */
export const PROGRESS_BYTES = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads `key` until `accept` holds or `ms` passes (Workers KV reads may lag a write briefly). */
async function readUntil(
  kv: Kv,
  key: string,
  accept: (value: string | null) => boolean,
  ms: number,
): Promise<string | null> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await kv.get(key);
    if (accept(value) || Date.now() >= deadline) return value;
    await sleep(250);
  }
}

/**
 * Puts a checked artifact under `relevance_model:<modelId>`, never over an existing key, then reads
 * it back and compares the bytes.
 */
export async function uploadArtifact(
  ctx: ProcedureContext,
  modelId: string,
  artifact: CheckedArtifact,
): Promise<{ key: string; bytes: number }> {
  const { env, report } = ctx;
  const key = modelKey(modelId);
  const existing = await env.kv.get(key);
  if (existing !== null) {
    const same =
      existing === artifact.text ? " (it holds these same bytes: the upload already happened)" : "";
    throw new UserError(
      `${key} already exists${same}; versions are never overwritten: export the model under a new version`,
    );
  }
  const big = artifact.bytes > PROGRESS_BYTES;
  if (big) report.progress(`uploading ${mb(artifact.bytes)} to ${key}… `);
  // Stamped where the KV can keep a write time (Workers KV metadata): prune reads it back.
  if (hasWriteTimes(env.kv)) await env.kv.putStamped(key, artifact.text);
  else await env.kv.put(key, artifact.text);
  if (big) report.progress("done", true);
  const back = await readUntil(env.kv, key, (v) => v === artifact.text, env.name === "local" ? 0 : 10_000);
  if (back !== artifact.text) {
    throw new UserError(
      back === null
        ? `${key} was put but cannot be read back yet; check it with relevance model get --model-id ${modelId} --env ${env.name}`
        : `${key} was put but reads back different bytes (${byteLength(back)} bytes); check it with relevance model get`,
    );
  }
  report.step("upload", `uploaded ${key} (${kb(artifact.bytes)}), read back and compared`, {
    key,
    bytes: artifact.bytes,
  });
  return { key, bytes: artifact.bytes };
}

export function describeArtifact(path: string, a: CheckedArtifact): string {
  const artifact = a.loaded.artifact;
  return (
    `checked ${path}: ${artifact.modelId}, index ${artifact.index}, ${artifact.trees.length} trees, ` +
    `${kb(a.bytes)}, loads and reproduces its ${artifact.golden.rows.length} golden rows`
  );
}

export const modelUpload: Procedure<{ modelId: string; path: string; artifact: CheckedArtifact }> = {
  name: "model upload",
  summary: "validate an artifact, then put it under relevance_model:<ID>; never overwrites",
  usage:
    "relevance model upload --env E --model-id <account>:<index>:v<n> --file model-<index>.json [--max-bytes N] [--json]",
  examples: [
    "relevance model upload --env local --model-id acct_3f9c2a7b10de:products:v2 --file model-products.json",
  ],
  flags: {
    "model-id": { type: "string", required: true, help: "<account>:<index>:v<n>; the file must carry it" },
    file: { type: "string", required: true, help: "the artifact, model-<index>.json" },
    ...maxBytesFlag,
  },
  needsAdmin: false,
  async prepare(flags, io) {
    const model = modelIdFlag(flags);
    const path = flags.file as string;
    const artifact = await readArtifactFile(io, path, artifactLimit(flags));
    checkArtifactId(path, artifact, model);
    return { modelId: model.id, path, artifact };
  },
  async run(ctx, { modelId, path, artifact }) {
    ctx.report.step("check", describeArtifact(path, artifact), { file: path });
    const { key, bytes } = await uploadArtifact(ctx, modelId, artifact);
    ctx.report.step(
      "next",
      `nothing serves it until a config names it: relevance config set --env ${ctx.env.name} ... --model-id ${modelId}, or relevance rollout`,
    );
    return { modelId, key, bytes };
  },
};

export const modelGet: Procedure<{ modelId: string }> = {
  name: "model get",
  summary: "verify an upload: the first bytes and a summary of relevance_model:<ID>; checks it loads",
  usage: "relevance model get --env E --model-id <account>:<index>:v<n> [--json]",
  examples: ["relevance model get --env prod --model-id acct_3f9c2a7b10de:products:v3 --json"],
  flags: { "model-id": { type: "string", required: true, help: "<account>:<index>:v<n>" } },
  needsAdmin: false,
  async prepare(flags) {
    return { modelId: modelIdFlag(flags).id };
  },
  async run({ env, report }, { modelId }) {
    const key = modelKey(modelId);
    const text = await env.kv.get(key);
    if (text === null)
      throw new UserError(
        `no artifact under ${key} in ${env.name}: check --model-id, or upload it with relevance model upload`,
      );
    const bytes = byteLength(text);
    const head = text.slice(0, 64);
    report.step("read", `${key}: ${kb(bytes)}, starts ${JSON.stringify(head)}`, { key, bytes, head });
    // An artifact already stored is shown whatever this run's limit: up to the KV value limit.
    const loaded = loadArtifact(text, { checkGolden: true, maxBytes: MAX_ARTIFACT_BYTES });
    if (!loaded.ok) throw new UserError(`${key} does not load: ${formatIssues(loaded.errors)}`);
    const a = loaded.value.artifact;
    if (a.modelId !== modelId) throw new UserError(`${key} holds an artifact that says it is ${a.modelId}`);
    const trainedOn = a.trainedOn;
    report.step(
      "load",
      `loads: ${a.trees.length} trees, ${a.features.length} features, trained on titleField ${JSON.stringify(trainedOn.titleField)}, tagsField ${JSON.stringify(trainedOn.tagsField)}, ${a.golden.rows.length} golden rows reproduced`,
      { trees: a.trees.length, trainedOn },
    );
    return { modelId, key, bytes, trees: a.trees.length, trainedOn, source: a.source };
  },
};

/** Refuses when a record names `modelId` or stopped naming it less than 24 h ago; one line saying who and until when. */
export async function checkDeletable(ctx: ProcedureContext, account: string, modelId: string): Promise<void> {
  // Measured on the store's clock when it is behind this machine's (the earlier clock keeps longer).
  const { storeNow } = await storeTimes(ctx.env.kv, modelKey(modelId));
  const clock = graceClock(ctx.now(), storeNow, ctx.clockOverridden);
  if (clock.note !== null) ctx.report.step("clock", clock.note, { at: clock.at.toISOString() });
  const use = modelUse(await accountRecords(ctx.env.table, account), modelId, clock.at);
  if (use.namedBy.length > 0) {
    throw new UserError(
      `refused: ${modelId} is named by ${use.namedBy.join(", ")}; switch them to another model first (relevance rollout or rollback)`,
    );
  }
  const recent = use.recentlyBy;
  if (recent.length > 0) {
    const since = recent.map((r) => r.since).sort();
    const until = recent.map((r) => r.until).sort();
    throw new UserError(
      `refused: ${recent.map((r) => r.record).join(", ")} stopped naming ${modelId} less than 24 h ago (last at ${since.at(-1)}); delete it after ${until.at(-1)}`,
    );
  }
}

export const modelDelete: Procedure<{ modelId: string; account: string }> = {
  name: "model delete",
  summary: "delete relevance_model:<ID>; refused while a record names it or within 24 h of the switch away",
  usage: "relevance model delete --env E --model-id <account>:<index>:v<n> [--json]",
  examples: ["relevance model delete --env local --model-id acct_3f9c2a7b10de:products:v1"],
  flags: { "model-id": { type: "string", required: true, help: "<account>:<index>:v<n>" } },
  needsAdmin: false,
  async prepare(flags) {
    const model = modelIdFlag(flags);
    return { modelId: model.id, account: model.account };
  },
  async run(ctx, { modelId, account }) {
    const { env, report } = ctx;
    refuseDeleteWithMovedClock(ctx);
    const key = modelKey(modelId);
    const text = await env.kv.get(key);
    if (text === null) throw new UserError(`no artifact under ${key} in ${env.name}; nothing to delete`);
    await checkDeletable(ctx, account, modelId);
    report.step("check", `no record of ${account} names ${modelId}, and none stopped naming it within 24 h`);
    await env.kv.delete(key);
    // A record may have started naming it meanwhile: then put it back, as it was.
    const after = modelUse(await accountRecords(env.table, account), modelId, ctx.now());
    if (after.namedBy.length > 0) {
      if (hasWriteTimes(env.kv)) await env.kv.putStamped(key, text);
      else await env.kv.put(key, text);
      throw new UserError(
        `refused: ${after.namedBy.join(", ")} started naming ${modelId} during the delete; ${key} was put back`,
      );
    }
    const gone = await readUntil(env.kv, key, (v) => v === null, env.name === "local" ? 0 : 10_000);
    if (gone !== null)
      throw new UserError(`${key} was deleted but still reads back; check again with relevance model get`);
    report.step("delete", `deleted ${key} (${kb(byteLength(text))}); it no longer reads back`, { key });
    return { modelId, key, deleted: true };
  },
};
