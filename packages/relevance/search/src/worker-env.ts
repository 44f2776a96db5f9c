// What the search Worker needs from its environment (bindings, variables, secrets), checked by the
// Worker on every request before anything else and by `relevance worker check` on a wrangler config
// before a deploy. Pure: takes the environment as a plain object.
import { artifactMaxBytes } from "@relevance/core";
import { RETENTION_ENV, retentionDaysFromEnv } from "@relevance/outcomes";
import { recordingTuning } from "./recording-env.ts";

export interface WorkerEnvProblem {
  /** The binding, variable or secret at fault (`KV`, `MEILISEARCH_URL`, `MEILISEARCH_API_KEY`, ...). */
  name: string;
  message: string;
}

/** Numeric variables with their allowed ranges (all optional). */
const NUMBERS: Array<[string, number, number]> = [
  ["MEILISEARCH_TIMEOUT_MS", 1, 60_000],
  ["KV_TIMEOUT_MS", 1, 60_000],
  ["MODEL_CACHE_MB", 0.001, 120],
];

/**
 * Every problem of `env` for the search Worker: the `KV` namespace binding, `MEILISEARCH_URL` (an
 * http or https URL), the `MEILISEARCH_API_KEY` secret, and the optional numeric settings. `kv`
 * says how to tell a binding is there: in the Worker, an object with `get`; in a wrangler config,
 * a `kv_namespaces` entry (the caller decides and passes a boolean). Recording is optional in a
 * deployment: only with the `OUTCOMES` queue binding (`outcomesBound`) are the ClickHouse
 * variables of its consumer required.
 */
export function workerEnvProblems(
  env: Record<string, unknown>,
  kvBound: boolean,
  outcomesBound = false,
): WorkerEnvProblem[] {
  const problems: WorkerEnvProblem[] = [];
  if (!kvBound) problems.push({ name: "KV", message: "the KV namespace binding KV is missing" });
  const url = env.MEILISEARCH_URL;
  if (typeof url !== "string" || url.trim() === "") {
    problems.push({
      name: "MEILISEARCH_URL",
      message: "the Meilisearch URL (variable MEILISEARCH_URL) is missing",
    });
  } else {
    let parsed: URL | null = null;
    try {
      parsed = new URL(url);
    } catch {
      parsed = null;
    }
    if (parsed === null || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
      problems.push({
        name: "MEILISEARCH_URL",
        message: `MEILISEARCH_URL must be an http(s) URL, got ${JSON.stringify(url)}`,
      });
    }
  }
  const key = env.MEILISEARCH_API_KEY;
  if (typeof key !== "string" || key.trim() === "") {
    problems.push({
      name: "MEILISEARCH_API_KEY",
      message:
        "the Meilisearch key (secret MEILISEARCH_API_KEY) is missing: npx wrangler secret put MEILISEARCH_API_KEY --env <env>",
    });
  }
  problems.push(...searchTuningProblems(env));
  if (outcomesBound) problems.push(...outcomesEnvProblems(env));
  return problems;
}

/** The queue consumer's ClickHouse: CLICKHOUSE_URL (http or https), CLICKHOUSE_USER, the CLICKHOUSE_PASSWORD secret. */
export function outcomesEnvProblems(env: Record<string, unknown>): WorkerEnvProblem[] {
  const problems: WorkerEnvProblem[] = [];
  const url = env.CLICKHOUSE_URL;
  let parsed: URL | null = null;
  try {
    parsed = typeof url === "string" && url.trim() !== "" ? new URL(url) : null;
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
    problems.push({
      name: "CLICKHOUSE_URL",
      message:
        url === undefined || url === ""
          ? "the OUTCOMES queue is bound, so its consumer needs CLICKHOUSE_URL (the ClickHouse HTTP endpoint)"
          : `CLICKHOUSE_URL must be an http(s) URL, got ${JSON.stringify(url)}`,
    });
  }
  if (typeof env.CLICKHOUSE_USER !== "string" || env.CLICKHOUSE_USER.trim() === "") {
    problems.push({
      name: "CLICKHOUSE_USER",
      message: "the OUTCOMES queue is bound, so CLICKHOUSE_USER is required",
    });
  }
  if (typeof env.CLICKHOUSE_PASSWORD !== "string" || env.CLICKHOUSE_PASSWORD === "") {
    problems.push({
      name: "CLICKHOUSE_PASSWORD",
      message:
        "the OUTCOMES queue is bound, so the secret CLICKHOUSE_PASSWORD is required: npx wrangler secret put CLICKHOUSE_PASSWORD --env <env>",
    });
  }
  const retention = env[RETENTION_ENV];
  try {
    retentionDaysFromEnv({ [RETENTION_ENV]: retention === undefined ? undefined : String(retention) });
  } catch (error) {
    problems.push({ name: RETENTION_ENV, message: (error as Error).message });
  }
  return problems;
}

/**
 * The search's optional tuning variables (MEILISEARCH_TIMEOUT_MS, KV_TIMEOUT_MS, MODEL_CACHE_MB,
 * MODEL_MAX_BYTES, and the recording's RECORD_MAX_PER_SECOND, RECORD_QUEUE_MAX,
 * EVENTS_PER_KEY_PER_SECOND) outside their ranges: the same bounds wherever the search app runs (the Worker,
 * the customer Lambda).
 */
export function searchTuningProblems(env: Record<string, unknown>): WorkerEnvProblem[] {
  const problems: WorkerEnvProblem[] = [];
  for (const [name, min, max] of NUMBERS) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    const n = Number(raw);
    if (!(Number.isFinite(n) && n >= min && n <= max)) {
      problems.push({
        name,
        message: `${name} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`,
      });
    }
  }
  const recording = recordingTuning(env);
  if (!recording.ok) problems.push(...recording.problems);
  const maxBytes = env.MODEL_MAX_BYTES;
  if (maxBytes !== undefined && maxBytes !== "") {
    const parsed = artifactMaxBytes(String(maxBytes));
    if (!parsed.ok) {
      problems.push({
        name: "MODEL_MAX_BYTES",
        message: parsed.errors.map((e) => `MODEL_MAX_BYTES ${e.message}`).join("; "),
      });
    }
  }
  return problems;
}
