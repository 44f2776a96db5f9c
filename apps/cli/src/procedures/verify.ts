// Seed 4.5 "verify propagation": the KV copy of the settings carries the config, then a scored search
// answers relevanceScore from the configured model (the `x-relevance-model` header names it).
import {
  formatIssues,
  isPlainObject,
  modelKey,
  parseArtifact,
  validateStoredRelevanceTriggerConfig,
} from "@relevance/core";
import { indexSk, settingsCopyKey } from "@relevance/settings";
import { UserError } from "../io.ts";
import { type SearchAnswer, scoredSearch } from "./http.ts";
import type { Flags, Procedure, ProcedureContext } from "./procedure.ts";
import { accountFlag, apiKeyFlag, indexFlag, timeoutFlag } from "./validate.ts";

const POLL_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ServingCheck {
  account: string;
  index: string;
  apiKey: string;
  query: string;
  /** Seconds to wait for the copy and the search to show the config. */
  timeoutS: number;
}

export interface Serving {
  index: string;
  modelId: string;
  score: number;
  copyKey: string;
}

function parseJson(text: string, key: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UserError(`the KV copy ${key} is not valid JSON; check the settings exporter`);
  }
}

const sameConfig = (a: unknown, b: unknown): boolean => {
  const x = validateStoredRelevanceTriggerConfig(a);
  const y = validateStoredRelevanceTriggerConfig(b);
  return x.ok && y.ok && JSON.stringify(x.value) === JSON.stringify(y.value);
};

function describeAnswer(a: SearchAnswer, expected: string): string {
  if (a.status !== 200) return `answered ${a.status}: ${a.error ?? ""}`;
  if (a.score === undefined) return "answered without relevanceScore";
  return `answered relevanceScore ${a.score} from ${a.model ?? "an unnamed model"}, not ${expected}`;
}

/**
 * Checks that `index` (an index or alias record) serves the model its record names: the artifact is
 * in KV, the KV copy of the settings carries the record's config, and a scored search names that
 * model. Polls until `timeoutS`; throws one line saying what was last seen and what to do.
 */
export async function confirmServing(ctx: ProcedureContext, check: ServingCheck): Promise<Serving> {
  const { env, report } = ctx;
  const { account, index } = check;
  const record = await env.table.get(account, indexSk(index));
  if (record === null) throw new UserError(`no settings record ${indexSk(index)} for account ${account}`);
  const stored = record.attributes.relevance_trigger_config;
  const config = validateStoredRelevanceTriggerConfig(stored);
  if (!config.ok)
    throw new UserError(`${index}: relevance_trigger_config is malformed: ${formatIssues(config.errors)}`);
  if (config.value === null || stored === undefined)
    throw new UserError(
      `${index} has no relevance_trigger_config: nothing serves (configure it with relevance config set)`,
    );
  const modelId = config.value.modelId;

  const deadline = Date.now() + check.timeoutS * 1000;
  const copyKey = settingsCopyKey(record) ?? `${account}-${index}`;
  let copied: unknown;
  for (;;) {
    const copyText = await env.kv.get(copyKey);
    const copy = copyText === null ? null : parseJson(copyText, copyKey);
    copied = isPlainObject(copy) ? copy.relevance_trigger_config : undefined;
    if (sameConfig(copied, stored)) break;
    if (Date.now() >= deadline) {
      const seen = copyText === null ? "is absent" : `has ${JSON.stringify(copied ?? null)}`;
      throw new UserError(
        `the KV copy ${copyKey} ${seen}, not the config of ${index}, after ${check.timeoutS} s; the settings exporter may be behind (check its logs)`,
      );
    }
    await sleep(POLL_MS);
  }
  report.step("copy", `KV copy ${copyKey} has relevance_trigger_config ${JSON.stringify(copied)}`, {
    index,
    copyKey,
  });

  const key = modelKey(modelId);
  const text = await env.kv.get(key);
  if (text === null)
    throw new UserError(
      `${index} names ${modelId}, but there is no artifact under ${key}: upload it with relevance model upload`,
    );
  if (!parseArtifact(text).ok)
    throw new UserError(`the artifact under ${key} does not load; check it with relevance model get`);

  let last: SearchAnswer;
  for (;;) {
    last = await scoredSearch(env.searchBaseUrl, index, check.apiKey, check.query);
    if (last.status === 401 || last.status === 403)
      throw new UserError(
        `the search API refused the API key (${last.status}): use a key of account ${account}`,
      );
    if (last.score !== undefined && last.model === modelId) break;
    if (Date.now() >= deadline) {
      throw new UserError(
        `search on ${index} ${describeAnswer(last, modelId)} after ${check.timeoutS} s; edge workers may still hold the old settings (Workers KV takes up to ~60 s)`,
      );
    }
    await sleep(POLL_MS);
  }
  report.step(
    "search",
    `search on ${index}: relevanceScore ${last.score} from ${modelId} (the configured model)`,
    { index, score: last.score, modelId },
  );
  return { index, modelId, score: last.score as number, copyKey };
}

/** A serving check as given on the command line: the timeout falls back to the environment's default. */
export type ServingCheckInput = Omit<ServingCheck, "timeoutS"> & { timeoutS: number | undefined };

/** The flags every command that confirms what serves takes: --account, --index, --api-key, --query, --timeout. */
export function servingCheckInput(flags: Flags): ServingCheckInput {
  return {
    account: accountFlag(flags),
    index: indexFlag(flags),
    apiKey: apiKeyFlag(flags),
    query: (flags.query as string | undefined) ?? "",
    timeoutS: timeoutFlag(flags),
  };
}

export const verify: Procedure<ServingCheckInput> = {
  name: "verify",
  summary: "verify propagation: the KV copy carries the config, then a scored search names the serving model",
  usage: "relevance verify --env E --account A --index I --api-key K [--query Q] [--timeout S] [--json]",
  flags: {
    account: { type: "string", required: true, help: "system account id" },
    index: { type: "string", required: true, help: "index or alias name" },
    "api-key": { type: "string", required: true, help: "a search API key of the account" },
    query: { type: "string", help: 'the search text (default "")' },
    timeout: { type: "string", help: "seconds to wait for propagation (default 10 local, 90 cloud)" },
  },
  needsAdmin: false,
  async prepare(flags) {
    return servingCheckInput(flags);
  },
  async run(ctx, input) {
    const timeoutS = input.timeoutS ?? ctx.defaultTimeoutS;
    const serving = await confirmServing(ctx, { ...input, timeoutS }).catch((error: unknown) => {
      if (!(error instanceof UserError)) throw error;
      throw new UserError(`${error.message}; once fixed, run verify again (or with a longer --timeout)`);
    });
    return { account: input.account, ...serving };
  },
};
