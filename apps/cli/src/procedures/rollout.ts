// The update procedure (docs/operations.md) and its way back: upload a new version, switch the index and
// every alias that names the old model through the admin API, confirm the new model serves; when the
// confirmation fails, switch everything back and say how to retry.
import { modelKey, parseArtifact, parseModelId, type RelevanceTriggerConfig } from "@relevance/core";
import { indexSk, type TableItem } from "@relevance/settings";
import type { FlagSpec } from "../args.ts";
import { UserError } from "../io.ts";
import { recordFor } from "./config.ts";
import { scoredSearch } from "./http.ts";
import { describeArtifact, uploadArtifact } from "./model.ts";
import type { Procedure, ProcedureContext } from "./procedure.ts";
import {
  accountRecords,
  GRACE_MS,
  isAlias,
  modelIdOf,
  namedModel,
  recordName,
  storedConfig,
  versionKeys,
  versionPrefix,
  versionsSeen,
} from "./records.ts";
import { awaitGate, endShadow, type GateDeps, type GateOptions, startShadow } from "./shadow-gate.ts";
import { gateFlags, gateOptions } from "./shadow-gate-flags.ts";
import {
  artifactLimit,
  type CheckedArtifact,
  maxBytesFlag,
  modelIdFlag,
  readArtifactFile,
} from "./validate.ts";
import { confirmServing, type ServingCheckInput, servingCheckInput } from "./verify.ts";

const COMMON_FLAGS: FlagSpec = {
  account: { type: "string", required: true, help: "system account id" },
  index: { type: "string", required: true, help: "the index (its aliases follow)" },
  "api-key": {
    type: "string",
    required: true,
    help: "a search API key of the account, to confirm what serves",
  },
  query: { type: "string", help: 'the search text of the confirmation (default "")' },
  timeout: {
    type: "string",
    help: "seconds to wait for the new model to serve (default 10 local, 90 cloud)",
  },
};

interface Switched {
  name: string;
  before: RelevanceTriggerConfig;
}

/** The index record (not an alias) and its valid current config. */
async function indexAndConfig(ctx: ProcedureContext, c: ServingCheckInput, what: string) {
  const record = await recordFor(ctx, c);
  if (isAlias(record))
    throw new UserError(
      `${c.index} is an alias of ${String(record.attributes.alias_of)}: ${what} on ${String(record.attributes.alias_of)}; its aliases follow`,
    );
  const current = storedConfig(record);
  if (current === null)
    throw new UserError(
      `${c.index} has no valid relevance_trigger_config to ${what} from; for a first model use relevance model upload, then relevance config set`,
    );
  return { record, current };
}

/** The index and every alias of the account whose record names `modelId`, the index first. */
function recordsNaming(records: readonly TableItem[], index: string, modelId: string): string[] {
  const aliases = records
    .filter((r) => isAlias(r) && namedModel(r) === modelId)
    .map(recordName)
    .sort();
  return [index, ...aliases];
}

/** A search that answers at all (key, index, search API) before anything changes. */
async function preflight(ctx: ProcedureContext, c: ServingCheckInput): Promise<void> {
  const answer = await scoredSearch(ctx.env.searchBaseUrl, c.index, c.apiKey, c.query);
  if (answer.status !== 200)
    throw new UserError(
      `search on ${c.index} answered ${answer.status} (${answer.error ?? ""}) before any change; nothing was changed`,
    );
  ctx.report.step(
    "preflight",
    `search on ${c.index} answers with this API key (now ${answer.score === undefined ? "without relevanceScore" : `relevanceScore from ${answer.model}`})`,
  );
}

/** Switches each record from `from` to `to` (its title/tags fields kept), GET then PUT with If-Match. */
async function switchAll(
  ctx: ProcedureContext,
  account: string,
  names: readonly string[],
  from: string,
  to: string,
): Promise<{ switched: Switched[]; failure: string | null }> {
  const admin = ctx.admin();
  const switched: Switched[] = [];
  for (const name of names) {
    const state = await admin.get(account, name).catch((e: Error) => e);
    if (state instanceof Error) return { switched, failure: state.message };
    const before = state.config as RelevanceTriggerConfig | null;
    if (state.storedConfigProblems !== undefined || before === null || before.modelId !== from) {
      return { switched, failure: `${name} no longer names ${from} (someone changed it meanwhile)` };
    }
    const put = await admin
      .put(account, name, { ...before, modelId: to }, state.version)
      .catch((e: Error) => e);
    if (put instanceof Error) return { switched, failure: put.message };
    if (!put.ok)
      return { switched, failure: `${name} changed while it was being switched (${put.conflict})` };
    switched.push({ name, before });
    for (const w of put.warnings) ctx.report.warn(`${name}: ${w}`);
    ctx.report.step("switch", `switched ${name}: ${from} → ${to} (version ${put.version})`, {
      record: name,
      from,
      to,
      version: put.version,
    });
  }
  return { switched, failure: null };
}

/** Puts every switched record back on its old config; returns what could not be put back. */
async function switchBack(ctx: ProcedureContext, account: string, switched: Switched[], to: string) {
  const admin = ctx.admin();
  const left: string[] = [];
  for (const s of switched.toReversed()) {
    try {
      const state = await admin.get(account, s.name);
      const now = state.config as RelevanceTriggerConfig | null;
      if (now?.modelId !== to) {
        left.push(`${s.name} (it now names ${now?.modelId ?? "nothing"}; left as is)`);
        continue;
      }
      const put = await admin.put(account, s.name, s.before, state.version);
      if (!put.ok) {
        left.push(`${s.name} (${put.conflict})`);
        continue;
      }
      ctx.report.step(
        "switch back",
        `switched ${s.name} back: ${to} → ${s.before.modelId} (version ${put.version})`,
        {
          record: s.name,
          version: put.version,
        },
      );
    } catch (error) {
      left.push(`${s.name} (${(error as Error).message})`);
    }
  }
  return left;
}

/**
 * Switches `names` from `from` to `to` and confirms `to` serves on each; on any failure switches the
 * switched ones back and throws one line: what failed, what was undone, how to retry.
 */
async function switchAndConfirm(
  ctx: ProcedureContext,
  c: ServingCheckInput,
  names: readonly string[],
  from: string,
  to: string,
  retry: string,
  kept: string,
): Promise<void> {
  const { switched, failure: switchFailure } = await switchAll(ctx, c.account, names, from, to);
  let failure = switchFailure;
  if (failure === null) {
    try {
      for (const name of names) {
        await confirmServing(ctx, {
          account: c.account,
          index: name,
          apiKey: c.apiKey,
          query: c.query,
          timeoutS: c.timeoutS ?? ctx.defaultTimeoutS,
        });
      }
      return;
    } catch (error) {
      failure = (error as Error).message;
    }
  }
  const left = await switchBack(ctx, c.account, switched, to);
  const undone =
    left.length === 0
      ? `${switched.length === 0 ? "nothing was switched" : `switched ${switched.map((s) => s.name).join(", ")} back`}: ${c.index} stays on ${from}`
      : `could NOT switch back ${left.join(", ")}: set them with relevance config set --model-id ${from}`;
  throw new UserError(`not confirmed: ${failure}. ${undone}; ${kept}. Fix the cause, then retry: ${retry}`);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const rollout: Procedure<
  ServingCheckInput & {
    path: string;
    artifact: CheckedArtifact;
    gate: (Omit<GateOptions, "pollMs"> & { pollMs: number | null }) | null;
  }
> = {
  name: "rollout",
  summary:
    "the update procedure: upload the next version, switch the index and its aliases, confirm it serves",
  usage:
    "relevance rollout --env E --account A --index I --file model-<index>.json --api-key K [--shadow-first [--min-outcomes N] [--margin X] [--deadline D] [--poll S] [--shadow-sample-rate R] [--canary P]] [--query Q] [--timeout S] [--max-bytes N] [--json]",
  examples: [
    'relevance rollout --env prod --account acct_3f9c2a7b10de --index products --file model-products.json --api-key "$API_KEY"',
    'relevance rollout --env prod --account acct_3f9c2a7b10de --index products --file model-products.json --api-key "$API_KEY" --shadow-first --min-outcomes 500 --deadline 48h --canary 5',
  ],
  flags: {
    ...COMMON_FLAGS,
    file: { type: "string", required: true, help: "the new artifact; it must carry the next model id" },
    ...maxBytesFlag,
    ...gateFlags,
  },
  needsAdmin: true,
  async prepare(flags, io) {
    const c = servingCheckInput(flags);
    const path = flags.file as string;
    const artifact = await readArtifactFile(io, path, artifactLimit(flags));
    const a = artifact.loaded.artifact;
    const parts = parseModelId(a.modelId);
    if (a.index !== c.index) throw new UserError(`${path} is a model of index ${a.index}, not ${c.index}`);
    if (parts === null || parts.account !== c.account || parts.index !== c.index)
      throw new UserError(
        `${path} carries modelId ${a.modelId}; a rollout of ${c.account}/${c.index} needs ${c.account}:${c.index}:v<n>`,
      );
    return { ...c, path, artifact, gate: gateOptions(flags) };
  },
  async run(ctx, input) {
    const { env, report } = ctx;
    const { account, index, path, artifact } = input;
    const newId = artifact.loaded.artifact.modelId;
    report.step("check", describeArtifact(path, artifact), { file: path });
    const { current } = await indexAndConfig(ctx, input, "roll out");
    const from = current.modelId;
    const gateDeps: GateDeps = { admin: ctx.admin(), report, now: ctx.now, sleep };
    const gate =
      input.gate === null
        ? null
        : { ...input.gate, pollMs: input.gate.pollMs ?? (env.name === "local" ? 2_000 : 60_000) };
    if (gate !== null && from === newId) {
      // A gated rollout that switched and stopped before tidying up: finish it.
      report.step("check", `${index} already serves ${newId}: the gate passed in an earlier run`);
      await endShadow(gateDeps, { account, index, serving: newId, candidate: newId });
      report.step("done", `${newId} serves ${index}`);
      return { account, index, from: newId, to: newId, records: [] };
    }

    // The next version: above every version in KV and every version a record names or once named.
    const records = await accountRecords(env.table, account);
    const inKv = versionKeys(await env.kv.list(versionPrefix(account, index)), account, index);
    const highest = Math.max(0, ...inKv.map((p) => p.version), ...versionsSeen(records, account, index));
    const next = modelIdOf(account, index, highest + 1);
    const uploaded = await env.kv.get(modelKey(newId));
    // A rollout whose confirmation failed left its artifact uploaded and unnamed: the same file resumes it.
    const resume =
      uploaded !== null &&
      uploaded === artifact.text &&
      newId === modelIdOf(account, index, highest) &&
      !records.some((r) => namedModel(r) === newId);
    if (!resume && newId !== next) {
      throw new UserError(
        `${path} carries modelId ${newId}, but the next version of ${account}:${index} is ${next} (highest so far v${highest}): export it again with --model-id ${next}`,
      );
    }
    const trained = artifact.loaded.artifact.trainedOn;
    if (trained.titleField !== current.titleField || trained.tagsField !== current.tagsField) {
      throw new UserError(
        `${path} was trained on titleField ${JSON.stringify(trained.titleField)}, tagsField ${JSON.stringify(trained.tagsField)}, but ${index} is configured with ${JSON.stringify(current.titleField)}, ${JSON.stringify(current.tagsField)}; re-export with the index's fields, or switch with relevance config set`,
      );
    }
    const names = recordsNaming(records, index, from);
    report.step("plan", `${index} is on ${from}; rolling out ${newId} to ${names.join(", ")}`, {
      from,
      to: newId,
      records: names,
    });
    await preflight(ctx, input);
    if (resume) report.step("upload", `${modelKey(newId)} is already uploaded with these bytes (resuming)`);
    else await uploadArtifact(ctx, newId, artifact);

    const retry = `relevance rollout --env ${env.name} --account ${account} --index ${index} --file ${path} --api-key <key>${gate === null ? "" : " --shadow-first"}`;
    const target = { account, index, serving: from, candidate: newId };
    const decision = gate === null ? null : await gatedWait(gateDeps, target, gate);
    await switchAndConfirm(ctx, input, names, from, newId, retry, `${modelKey(newId)} stays uploaded`);
    if (gate !== null) await endShadow(gateDeps, target);
    const after = new Date(ctx.now().getTime() + GRACE_MS).toISOString();
    report.step(
      "done",
      `${newId} serves ${names.join(", ")}; ${modelKey(from)} stays for rollback: delete it after ${after} (relevance model delete --model-id ${from}, or relevance prune)`,
      { deleteAfter: after },
    );
    return {
      account,
      index,
      from,
      to: newId,
      records: names,
      oldModelDeletableAfter: after,
      ...(decision === null ? {} : { gate: decision }),
    };
  },
};

async function gatedWait(deps: GateDeps, target: Parameters<typeof startShadow>[1], gate: GateOptions) {
  await startShadow(deps, target, gate);
  return awaitGate(deps, target, gate);
}

export const rollback: Procedure<ServingCheckInput & { to: string }> = {
  name: "rollback",
  summary:
    "switch the index and its aliases back to an older version whose key still exists; confirm it serves",
  usage:
    "relevance rollback --env E --account A --index I --to <account>:<index>:v<n> --api-key K [--query Q] [--timeout S] [--json]",
  examples: [
    'relevance rollback --env prod --account acct_3f9c2a7b10de --index products --to acct_3f9c2a7b10de:products:v2 --api-key "$API_KEY"',
  ],
  flags: {
    ...COMMON_FLAGS,
    to: { type: "string", required: true, help: "the model id to go back to" },
  },
  needsAdmin: true,
  async prepare(flags) {
    const c = servingCheckInput(flags);
    const to = modelIdFlag(flags, "to");
    if (to.account !== c.account || to.index !== c.index)
      throw new UserError(
        `--to ${to.id} is not a model of ${c.account}/${c.index}: pass --to ${c.account}:${c.index}:v<n>`,
      );
    return { ...c, to: to.id };
  },
  async run(ctx, input) {
    const { env, report } = ctx;
    const { account, index, to } = input;
    const key = modelKey(to);
    const text = await env.kv.get(key);
    if (text === null)
      throw new UserError(
        `${key} is absent in ${env.name}: cannot roll back to it; upload it first (relevance model upload) or pick another --to`,
      );
    if (!parseArtifact(text).ok) throw new UserError(`${key} does not load: cannot roll back to it`);
    const { current } = await indexAndConfig(ctx, input, "roll back");
    const from = current.modelId;
    if (from === to) {
      report.step("check", `${index} is already on ${to}; nothing to switch`);
      await confirmServing(ctx, { ...input, timeoutS: input.timeoutS ?? ctx.defaultTimeoutS });
      return { account, index, from, to, records: [] };
    }
    const names = recordsNaming(await accountRecords(env.table, account), index, from);
    report.step("plan", `${index} is on ${from}; rolling back to ${to} on ${names.join(", ")}`, {
      from,
      to,
      records: names,
    });
    await preflight(ctx, input);
    const retry = `relevance rollback --env ${env.name} --account ${account} --index ${index} --to ${to} --api-key <key>`;
    await switchAndConfirm(ctx, input, names, from, to, retry, `${key} and ${modelKey(from)} stay in KV`);
    report.step("done", `${to} serves ${names.join(", ")}; ${modelKey(from)} stays in KV`);
    return { account, index, from, to, records: names, record: indexSk(index) };
  },
};
