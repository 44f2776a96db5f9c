import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { computeFeaturesV1, featureRecord, formatIssues, isPlainObject, parseJson } from "@relevance/core";
import { apiKeyCopyKey, apiKeyHash, INDEX_NAME } from "@relevance/settings";
import { type FlagSpec, nullable, parseFlags, USAGE_EXIT } from "../args.ts";
import {
  ENVIRONMENT_NAMES,
  type Environment,
  resolveEnvironment,
  validateEnvironments,
} from "../environments.ts";
import { type Io, UserError } from "../io.ts";
import { readJsonLines } from "../jsonl.ts";
import { ProgressLine } from "../progress.ts";

export const featuresLogFlags: FlagSpec = {
  env: { type: "string", required: true, help: `environment: ${ENVIRONMENT_NAMES.join(", ")}` },
  account: { type: "string", required: true, help: "the system account id that owns the index" },
  index: { type: "string", required: true, help: "the index (or alias) to search" },
  "api-key": {
    type: "string",
    help: "the account's API key (search needs one); default $RELEVANCE_API_KEY",
  },
  queries: {
    type: "string",
    required: true,
    help: 'JSON lines {"q": string, "label"?: number, ...}; - reads standard input',
  },
  out: { type: "string", required: true, help: "the JSON-lines training file to write" },
  "title-field": { type: "string", required: true, help: "hit field with titles, or null" },
  "tags-field": { type: "string", required: true, help: "hit field with tags, or null" },
  limit: { type: "string", help: "hits per search, 1 to 1000 (default 20, as serving)" },
  json: { type: "boolean", help: "print the summary as JSON" },
  config: {
    type: "string",
    help: "environments file (default $RELEVANCE_ENVIRONMENTS, else relevance.environments.json at the repository root)",
  },
};

/** The repository's environments file (as the operating procedures use it). */
const DEFAULT_ENVIRONMENTS_FILE = fileURLToPath(
  new URL("../../../../relevance.environments.json", import.meta.url),
);

/** The search API's default page size; the model sees what serving sees. */
export const DEFAULT_FEATURES_LIMIT = 20;
const MAX_LIMIT = 1000;
/** Searches in flight at once; rows are written in input order whatever the completion order. */
const CONCURRENCY = 8;
const SEARCH_TIMEOUT_MS = 30_000;

/** One input line: the query, its optional label and any other fields (copied to the output as-is). */
export interface QueryLine {
  q: string;
  label: number | undefined;
  rest: Record<string, unknown>;
  where: string;
}

function parseQueryLine(value: unknown, where: string): QueryLine {
  if (!isPlainObject(value))
    throw new UserError(`${where}: must be an object {"q": string, "label"?: number}`);
  const { q, label, features, ...rest } = value;
  if (typeof q !== "string") throw new UserError(`${where}: q must be a string`);
  if (label !== undefined && (typeof label !== "number" || !Number.isFinite(label)))
    throw new UserError(`${where}: label must be a finite number when present`);
  if (features !== undefined) throw new UserError(`${where}: features is written by this command; remove it`);
  return { q, label: label as number | undefined, rest, where };
}

/**
 * The environment, as the operating procedures resolve it: the environments file from --config,
 * else $RELEVANCE_ENVIRONMENTS, else the repository's; without a file only `local` is known.
 */
async function openEnvironment(
  name: string,
  configFlag: string | undefined,
  io: Io,
  env: NodeJS.ProcessEnv,
): Promise<Environment> {
  const explicit = configFlag ?? (env.RELEVANCE_ENVIRONMENTS || undefined);
  const path = explicit ?? DEFAULT_ENVIRONMENTS_FILE;
  let configs = {};
  if (explicit !== undefined || existsSync(path)) {
    const json = parseJson(await io.readText(path), path);
    if (!json.ok) throw new UserError(formatIssues(json.errors));
    const valid = validateEnvironments(json.value);
    if (!valid.ok) throw new UserError(`${path}: ${formatIssues(valid.errors)}`);
    configs = valid.value;
  }
  const resolved = resolveEnvironment(name, configs, env);
  if (!resolved.ok) throw new UserError(formatIssues(resolved.errors));
  return resolved.value;
}

interface SearchAnswer {
  hits: unknown[];
  estimatedTotalHits: number;
}

async function search(
  url: string,
  apiKey: string,
  q: string,
  limit: number,
  line: QueryLine,
): Promise<SearchAnswer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      // No relevanceScore: the features are those of the plain result set, as serving computes them.
      body: JSON.stringify({ q, limit }),
      signal: AbortSignal.timeout(SEARCH_TIMEOUT_MS),
    });
  } catch (error) {
    throw new UserError(`${line.where}: the search at ${url} failed: ${(error as Error).message}`);
  }
  const text = await res.text();
  if (res.status !== 200) {
    let message = text.slice(0, 200);
    try {
      const body = JSON.parse(text) as { error?: { message?: string } };
      message = body.error?.message ?? message;
    } catch {
      // not JSON: keep the text
    }
    throw new UserError(`${line.where}: the search answered ${res.status}: ${message}`);
  }
  const body = JSON.parse(text) as Record<string, unknown>;
  if (!Array.isArray(body.hits) || typeof body.estimatedTotalHits !== "number")
    throw new UserError(`${line.where}: the search answer has no hits or estimatedTotalHits`);
  return { hits: body.hits, estimatedTotalHits: body.estimatedTotalHits };
}

/** Maps over items with at most `width` promises in flight; results in input order; the first failure wins. */
async function mapLimited<T, R>(
  items: readonly T[],
  width: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

/**
 * `relevance features log`: the training-data export. Each query goes through the
 * environment's search API exactly as a customer sends it (without relevanceScore), and feature set
 * v1 is computed on the returned hits and estimatedTotalHits by computeFeaturesV1, the function
 * the search proxy scores with. One output line per query: {"q", "features", "label"?, ...other
 * input fields}. Every input line is checked before the first request; the file is written
 * atomically at the end, so a failure leaves no partial file.
 */
export async function featuresLog(
  argv: string[],
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const flags = parseFlags("features log", featuresLogFlags, argv);
  const apiKey = (flags["api-key"] as string | undefined) ?? env.RELEVANCE_API_KEY;
  if (apiKey === undefined || apiKey === "")
    throw new UserError(
      "--api-key is required (or set RELEVANCE_API_KEY) (see relevance features log --help)",
      USAGE_EXIT,
    );
  const rawLimit = (flags.limit as string | undefined) ?? String(DEFAULT_FEATURES_LIMIT);
  const limit = Number(rawLimit);
  if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > MAX_LIMIT)
    throw new UserError(`--limit must be an integer from 1 to ${MAX_LIMIT}, got ${rawLimit}`, USAGE_EXIT);
  const envName = flags.env as string;
  if (!(ENVIRONMENT_NAMES as readonly string[]).includes(envName))
    throw new UserError(`unknown environment "${envName}" (use ${ENVIRONMENT_NAMES.join(", ")})`, USAGE_EXIT);
  const account = flags.account as string;
  const index = flags.index as string;
  if (!INDEX_NAME.test(index))
    throw new UserError(`--index must match [A-Za-z0-9_-]{1,64}, got ${JSON.stringify(index)}`, USAGE_EXIT);
  const titleField = nullable(flags["title-field"] as string);
  const tagsField = nullable(flags["tags-field"] as string);
  const queriesPath = flags.queries as string;
  const out = flags.out as string;

  const lines = readJsonLines(await io.readText(queriesPath), queriesPath, parseQueryLine);
  if (lines.length === 0)
    throw new UserError(`${queriesPath}: has no queries; write one JSON line {"q": "..."} per query`);

  const environment = await openEnvironment(envName, flags.config as string | undefined, io, env);
  let searchUrl: string;
  try {
    // The key must belong to --account: otherwise another account's same-named index would answer 404.
    let copy: string | null;
    try {
      copy = await environment.kv.get(apiKeyCopyKey(await apiKeyHash(apiKey)));
    } catch (error) {
      throw new UserError(`cannot read the API keys of ${environment.name}: ${(error as Error).message}`);
    }
    if (copy === null)
      throw new UserError(
        `the API key is not known in ${environment.name}: pass a key of --account in this environment (npm start prints the demo's)`,
      );
    let owner: unknown;
    try {
      owner = (JSON.parse(copy) as { system_account_id?: unknown }).system_account_id;
    } catch {
      throw new UserError(`the API key's copy in ${environment.name} is not valid JSON`);
    }
    if (owner !== account)
      throw new UserError(
        `the API key belongs to account ${String(owner)}, not ${account}: pass --account ${String(owner)} or a key of ${account}`,
      );
    searchUrl = `${environment.searchBaseUrl}/api/v1/indexes/${encodeURIComponent(index)}/search`;
  } finally {
    environment.close();
  }

  // One search per query: hundreds of them take a while, so a terminal shows how far it got.
  const progress = new ProgressLine(io, "searched", lines.length);
  let searched = 0;
  const rows = await mapLimited(lines, CONCURRENCY, async (line) => {
    const answer = await search(searchUrl, apiKey, line.q, limit, line).finally(() => {
      searched += 1;
      progress.update(searched);
    });
    const vector = computeFeaturesV1({
      query: line.q,
      hits: answer.hits,
      estimatedTotalHits: answer.estimatedTotalHits,
      titleField,
      tagsField,
    });
    const row = {
      q: line.q,
      features: featureRecord(vector),
      ...(line.label === undefined ? {} : { label: line.label }),
      ...line.rest,
    };
    return `${JSON.stringify(row)}\n`;
  }).finally(() => progress.end(searched));
  await io.writeTextAtomic(out, rows.join(""));
  const labelled = lines.filter((l) => l.label !== undefined).length;
  const summary = { out, rows: rows.length, labelled, env: environment.name, account, index, limit };
  io.out(
    flags.json
      ? `${JSON.stringify(summary)}\n`
      : `wrote ${out}: ${rows.length} rows (${labelled} with a label) from ${environment.name} ${account}/${index}, ${limit} hits per query\n`,
  );
  return 0;
}

/** The entry for COMMANDS in relevance.ts. */
export const featuresLogCommand = {
  summary: "training data: run each query through an environment's search and log feature set v1 per query",
  usage:
    "relevance features log --env E --account A --index I --api-key K --queries queries.jsonl --title-field F|null --tags-field F|null --out features.jsonl [--limit 20]",
  examples: [
    'relevance features log --env local --account acct_3f9c2a7b10de --index products --api-key "$API_KEY" --queries queries.jsonl --title-field title --tags-field tags --out features.jsonl',
  ],
  flags: featuresLogFlags,
  run: (argv: string[], io: Io): Promise<number> => featuresLog(argv, io),
};
