// Seed 4.5 "verify propagation": the KV copy of the settings carries the config, then a scored search
// answers relevanceScore from the configured model (the `x-relevance-model` header names it).
import {
  formatIssues,
  isPlainObject,
  modelKey,
  parseArtifact,
  validateStoredRelevanceTriggerConfig,
} from "@relevance/core";
import { MAX_NEGATIVE_TTL_MS } from "@relevance/search";
import { indexSk, settingsCopyKey } from "@relevance/settings";
import { UserError } from "../io.ts";
import { type SearchAnswer, scoredSearch } from "./http.ts";
import type { Flags, Procedure, ProcedureContext } from "./procedure.ts";
import { accountFlag, apiKeyFlag, indexFlag, timeoutFlag } from "./validate.ts";

const POLL_MS = 500;
/** A wait longer than this gets a note on a terminal (Report.note), so a person knows it is not stuck. */
const NOTE_AFTER_MS = 1_000;
/** How often a wait for the search proxy's cached miss prints how long is left. */
const PROGRESS_EVERY_MS = 10_000;
/**
 * The search proxy remembers a missing artifact for up to this long (packages/relevance/search model-cache.ts,
 * `negativeTtlMs`: at most MAX_NEGATIVE_TTL_MS, and the Worker and npm start use that maximum).
 */
export const NEGATIVE_CACHE_MS = MAX_NEGATIVE_TTL_MS;
/** Slack on top of the cache's lifetime: clocks and the poll interval. */
export const NEGATIVE_CACHE_MARGIN_MS = 5_000;

/** Time and the search call, injected so that tests run the waits on a fake clock. */
export interface ServingDeps {
  now(): number;
  sleep(ms: number): Promise<void>;
  search: typeof scoredSearch;
}

export const REAL_SERVING_DEPS: ServingDeps = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  search: scoredSearch,
};

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
  /** Milliseconds waited beyond --timeout for a cached miss of the artifact to expire (0: none). */
  waitedForCachedMissMs: number;
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
export async function confirmServing(
  ctx: ProcedureContext,
  check: ServingCheck,
  deps: ServingDeps = REAL_SERVING_DEPS,
): Promise<Serving> {
  const { env, report } = ctx;
  const { account, index } = check;
  const record = await env.table.get(account, indexSk(index));
  if (record === null)
    throw new UserError(
      `no settings record ${indexSk(index)} for account ${account}: check --account and --index`,
    );
  const stored = record.attributes.relevance_trigger_config;
  const config = validateStoredRelevanceTriggerConfig(stored, undefined, account);
  if (!config.ok)
    throw new UserError(
      `${index}: relevance_trigger_config is malformed: ${formatIssues(config.errors)}; set a valid one with relevance config set`,
    );
  if (config.value === null || stored === undefined)
    throw new UserError(
      `${index} has no relevance_trigger_config: nothing serves (configure it with relevance config set)`,
    );
  const modelId = config.value.modelId;

  const started = deps.now();
  const deadline = started + check.timeoutS * 1000;
  const copyKey = settingsCopyKey(record) ?? `${account}-${index}`;
  let copied: unknown;
  let noted = false;
  for (;;) {
    const copyText = await env.kv.get(copyKey);
    const copy = copyText === null ? null : parseJson(copyText, copyKey);
    copied = isPlainObject(copy) ? copy.relevance_trigger_config : undefined;
    if (sameConfig(copied, stored)) break;
    if (deps.now() >= deadline) {
      const seen = copyText === null ? "is absent" : `has ${JSON.stringify(copied ?? null)}`;
      throw new UserError(
        `the KV copy ${copyKey} ${seen}, not the config of ${index}, after ${check.timeoutS} s; the settings exporter may be behind (check its logs)`,
      );
    }
    if (!noted && deps.now() - started >= NOTE_AFTER_MS) {
      noted = true;
      report.note(
        `waiting for the KV copy ${copyKey} to carry the config of ${index} (up to ${Math.ceil((deadline - deps.now()) / 1000)} s more)…`,
      );
    }
    await deps.sleep(POLL_MS);
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

  // The artifact is in KV from now on. A search proxy that looked it up before (a search while the
  // config named it but the upload had not happened) keeps that miss for up to NEGATIVE_CACHE_MS and
  // answers without relevanceScore meanwhile: expected right after an upload, so verify waits until
  // that miss must have expired before calling it a failure, even beyond --timeout.
  const missExpiresAt = deps.now() + NEGATIVE_CACHE_MS + NEGATIVE_CACHE_MARGIN_MS;
  let waitingSince: number | null = null;
  let nextProgress = 0;
  const searchStarted = deps.now();
  noted = false;
  let last: SearchAnswer;
  for (;;) {
    last = await deps.search(env.searchBaseUrl, index, check.apiKey, check.query);
    if (last.status === 401 || last.status === 403)
      throw new UserError(
        `the search API refused the API key (${last.status}): use a key of account ${account}`,
      );
    if (last.score !== undefined && last.model === modelId) break;
    const now = deps.now();
    const unscored = last.status === 200 && last.score === undefined;
    if (now >= deadline && unscored && now < missExpiresAt) {
      if (waitingSince === null) {
        waitingSince = now;
        report.progress(
          `search on ${index} answers without relevanceScore although ${key} is in KV: the search proxy may still hold a miss of it cached from before the upload (kept up to ${NEGATIVE_CACHE_MS / 1000} s); waiting until it must have expired, ${Math.ceil((missExpiresAt - now) / 1000)} s more`,
          true,
        );
        nextProgress = now + PROGRESS_EVERY_MS;
      } else if (now >= nextProgress) {
        report.progress(
          `still waiting for the cached miss of ${key} to expire: ${Math.ceil((missExpiresAt - now) / 1000)} s left`,
          true,
        );
        nextProgress = now + PROGRESS_EVERY_MS;
      }
    } else if (now >= deadline) {
      const waited =
        waitingSince === null
          ? ""
          : `, and ${Math.round((now - waitingSince) / 1000)} s more for the search proxy's cached miss of ${key} to expire`;
      throw new UserError(
        `search on ${index} ${describeAnswer(last, modelId)} after ${check.timeoutS} s${waited}; edge workers may still hold the old settings (Workers KV takes up to ~60 s)`,
      );
    } else if (!noted && now - searchStarted >= NOTE_AFTER_MS) {
      noted = true;
      report.note(
        `waiting for search on ${index} to answer with relevanceScore from ${modelId} (up to ${Math.max(0, Math.ceil((deadline - now) / 1000))} s more)…`,
      );
    }
    await deps.sleep(POLL_MS);
  }
  const waitedForCachedMissMs = waitingSince === null ? 0 : deps.now() - waitingSince;
  report.step(
    "search",
    `search on ${index}: relevanceScore ${last.score} from ${modelId} (the configured model)${
      waitingSince === null
        ? ""
        : `, after waiting ${Math.round(waitedForCachedMissMs / 1000)} s beyond --timeout for the search proxy's cached miss to expire`
    }`,
    { index, score: last.score, modelId, waitedForCachedMissMs },
  );
  return { index, modelId, score: last.score as number, copyKey, waitedForCachedMissMs };
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
  examples: [
    'relevance verify --env local --account acct_3f9c2a7b10de --index catalog --api-key "$API_KEY" --query "home chair"',
  ],
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
