// The relevance trigger configuration: through the admin API (get, set, disable) or the direct
// settings-table edit (edit-table, snake_case with NULLs).
import { modelKey, parseArtifact, parseModelId, type RelevanceTriggerConfig } from "@relevance/core";
import { indexSk, type Kv, settingsCopyKey, type TableItem } from "@relevance/settings";
import { type FlagSpec, USAGE_EXIT } from "../args.ts";
import { UserError } from "../io.ts";
import type { Flags, Procedure, ProcedureContext } from "./procedure.ts";
import { isAlias, recordName, switchedAttributes } from "./records.ts";
import { accountFlag, configFlags, indexFlag } from "./validate.ts";

const TARGET_FLAGS: FlagSpec = {
  account: { type: "string", required: true, help: "system account id" },
  index: { type: "string", required: true, help: "index or alias name" },
};

const CONFIG_FLAGS: FlagSpec = {
  ...TARGET_FLAGS,
  "model-id": { type: "string", required: true, help: "<account>:<index>:v<n>" },
  "title-field": { type: "string", required: true, help: "hit field with titles, or null" },
  "tags-field": { type: "string", required: true, help: "hit field with tags, or null" },
};

interface Target {
  account: string;
  index: string;
}

interface SetInput extends Target {
  config: RelevanceTriggerConfig;
}

const show = (config: RelevanceTriggerConfig | null): string =>
  config === null
    ? "null"
    : `{modelId ${config.modelId}, titleField ${JSON.stringify(config.titleField)}, tagsField ${JSON.stringify(config.tagsField)}}`;

function target(flags: Flags): Target {
  return { account: accountFlag(flags), index: indexFlag(flags) };
}

/** Config flags whose model id follows the convention and belongs to --account. */
function setInput(flags: Flags): SetInput {
  const t = target(flags);
  const config = configFlags(flags);
  const parts = parseModelId(config.modelId);
  if (parts === null)
    throw new UserError(`--model-id must be <account>:<index>:v<n>, got "${config.modelId}"`, USAGE_EXIT);
  if (parts.account !== t.account)
    throw new UserError(
      `model id ${config.modelId} belongs to account ${parts.account}, not --account ${t.account}`,
    );
  return { ...t, config };
}

/** The record must exist; a model of another index may only be named by an alias of that index. */
export async function recordFor(ctx: ProcedureContext, t: Target, modelId?: string): Promise<TableItem> {
  const item = await ctx.env.table.get(t.account, indexSk(t.index));
  if (item === null)
    throw new UserError(
      `no settings record ${indexSk(t.index)} for account ${t.account} in ${ctx.env.name}: check --account and --index`,
    );
  const modelIndex = modelId === undefined ? null : (parseModelId(modelId)?.index ?? null);
  if (modelIndex !== null && modelIndex !== t.index) {
    const aliasOf = isAlias(item) ? item.attributes.alias_of : undefined;
    if (aliasOf !== modelIndex) {
      throw new UserError(
        `${modelId} is a model of index ${modelIndex}, and ${t.index} is not an alias of ${modelIndex}`,
      );
    }
  }
  return item;
}

/** What the admin API warns about, for the direct table edit too: missing artifact, other trained-on fields. */
export async function artifactWarnings(kv: Kv, config: RelevanceTriggerConfig): Promise<string[]> {
  const key = modelKey(config.modelId);
  const text = await kv.get(key);
  if (text === null)
    return [`no model artifact under ${key} yet; the index is not scored until it is uploaded`];
  const artifact = parseArtifact(text);
  if (!artifact.ok) return [`the value under ${key} is not a valid model artifact; the index is not scored`];
  const warnings: string[] = [];
  const trained = artifact.value.trainedOn;
  for (const [name, was, is] of [
    ["titleField", trained.titleField, config.titleField],
    ["tagsField", trained.tagsField, config.tagsField],
  ] as const) {
    if (was !== is)
      warnings.push(
        `the model was trained with ${name} ${JSON.stringify(was)}, not ${JSON.stringify(is)}; its features will be wrong`,
      );
  }
  return warnings;
}

export const configGet: Procedure<Target> = {
  name: "config get",
  summary: "read relevanceTriggerConfig of an index or alias through the admin API",
  usage: "relevance config get --env E --account A --index I [--json]",
  examples: ["relevance config get --env local --account acct_3f9c2a7b10de --index products"],
  flags: TARGET_FLAGS,
  needsAdmin: true,
  async prepare(flags) {
    return target(flags);
  },
  async run(ctx, t) {
    const state = await ctx.admin().get(t.account, t.index);
    const problems = state.storedConfigProblems;
    const shown =
      problems === undefined
        ? show(state.config as RelevanceTriggerConfig | null)
        : `${JSON.stringify(state.config)} (malformed: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}; the index is not scored)`;
    ctx.report.step(
      "get",
      `${t.account}/${t.index}: relevanceTriggerConfig ${shown} (version ${state.version})`,
    );
    return {
      ...t,
      relevanceTriggerConfig: state.config,
      version: state.version,
      storedConfigProblems: problems,
    };
  },
};

/** GET for the version, then PUT with If-Match: a concurrent change answers 409 and nothing is written. */
export async function putConfig(
  ctx: ProcedureContext,
  t: Target,
  config: RelevanceTriggerConfig | null,
): Promise<{ before: unknown; version: number; warnings: string[] }> {
  const admin = ctx.admin();
  const state = await admin.get(t.account, t.index);
  const put = await admin.put(t.account, t.index, config, state.version);
  if (!put.ok) {
    throw new UserError(
      `${t.account}/${t.index} changed while it was being set (${put.conflict}); nothing was written: run the command again`,
    );
  }
  for (const w of put.warnings) ctx.report.warn(w);
  return { before: state.config, version: put.version, warnings: put.warnings };
}

export const configSet: Procedure<SetInput> = {
  name: "config set",
  summary: "set relevanceTriggerConfig through the admin API (GET for the version, PUT with If-Match)",
  usage:
    "relevance config set --env E --account A --index I --model-id ID --title-field F|null --tags-field F|null [--json]",
  examples: [
    "relevance config set --env local --account acct_3f9c2a7b10de --index products --model-id acct_3f9c2a7b10de:products:v2 --title-field title --tags-field tags",
  ],
  flags: CONFIG_FLAGS,
  needsAdmin: true,
  async prepare(flags) {
    return setInput(flags);
  },
  async run(ctx, input) {
    await recordFor(ctx, input, input.config.modelId);
    const { before, version, warnings } = await putConfig(ctx, input, input.config);
    ctx.report.step(
      "set",
      `set ${input.account}/${input.index}: relevanceTriggerConfig ${show(input.config)} (was ${show(before as RelevanceTriggerConfig | null)}; now version ${version})`,
    );
    ctx.report.step(
      "next",
      `check propagation: relevance verify --env ${ctx.env.name} --account ${input.account} --index ${input.index} --api-key <key>`,
    );
    return {
      account: input.account,
      index: input.index,
      relevanceTriggerConfig: input.config,
      version,
      warnings,
    };
  },
};

export const configDisable: Procedure<Target> = {
  name: "config disable",
  summary: "remove relevanceTriggerConfig (PUT null): scoring stops, the artifact stays",
  usage: "relevance config disable --env E --account A --index I [--json]",
  examples: ["relevance config disable --env local --account acct_3f9c2a7b10de --index catalog"],
  flags: TARGET_FLAGS,
  needsAdmin: true,
  async prepare(flags) {
    return target(flags);
  },
  async run(ctx, t) {
    const { before, version } = await putConfig(ctx, t, null);
    ctx.report.step(
      "disable",
      `disabled scoring on ${t.account}/${t.index} (was ${show(before as RelevanceTriggerConfig | null)}; now version ${version}); the artifact stays in KV`,
    );
    return { ...t, relevanceTriggerConfig: null, version };
  },
};

const EDIT_ATTEMPTS = 3;

export const configEditTable: Procedure<SetInput> = {
  name: "config edit-table",
  summary: "the direct settings-table edit: relevance_trigger_config (snake_case, NULL) on the record",
  usage:
    "relevance config edit-table --env E --account A --index I --model-id ID --title-field F|null --tags-field F|null [--json]",
  examples: [
    "relevance config edit-table --env dev --account acct_3f9c2a7b10de --index products --model-id acct_3f9c2a7b10de:products:v2 --title-field title --tags-field null",
  ],
  flags: CONFIG_FLAGS,
  needsAdmin: false,
  async prepare(flags) {
    return setInput(flags);
  },
  async run(ctx, input) {
    const { env, report } = ctx;
    let written: TableItem | null = null;
    let item: TableItem | null = null;
    // A conditional write at the version read (config and history in one write); re-read on a race.
    for (let attempt = 0; attempt < EDIT_ATTEMPTS && written === null; attempt++) {
      item = await recordFor(ctx, input, input.config.modelId);
      const attributes = switchedAttributes(item, input.config, ctx.now());
      const put = await env.table.put(item.pk, item.sk, attributes, { expectedVersion: item.version });
      if (put.ok) written = put.item;
    }
    if (written === null || item === null)
      throw new UserError(
        `${input.account}/${input.index} kept changing concurrently; nothing was written: run the command again`,
      );
    const stored = written.attributes.relevance_trigger_config;
    report.step(
      "edit",
      `wrote relevance_trigger_config ${JSON.stringify(stored)} to pk ${input.account}, sk ${indexSk(input.index)} (${recordName(written)} is now version ${written.version})`,
      { relevance_trigger_config: stored, version: written.version },
    );
    for (const w of await artifactWarnings(env.kv, input.config)) report.warn(w);
    report.step(
      "next",
      `the settings exporter copies it to KV key ${settingsCopyKey(written)}; check: relevance verify --env ${env.name} --account ${input.account} --index ${input.index} --api-key <key>`,
    );
    return {
      account: input.account,
      index: input.index,
      relevance_trigger_config: stored,
      version: written.version,
    };
  },
};
