import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildArtifact,
  formatIssues,
  type GoldenRow,
  importXgboost,
  loadArtifact,
  modelKey,
  parseJson,
} from "@relevance/core";
import type { Logger } from "@relevance/settings";
import { openDatabase } from "@relevance/settings/sqlite";
import { demoCatalog } from "./demo-catalog.ts";
import { SqliteStepLog } from "./demo-step-log.ts";
import { type OwnedRecords, ownedInMemory, runPendingSteps, type Step, type StepLog } from "./demo-steps.ts";
import type { LocalConfig } from "./env.ts";
import type { Stack } from "./stack.ts";

export interface DemoCredentials {
  systemAccountId: string;
  /** The account's admin key (every action). */
  apiKey: string;
  /**
   * The account's search key (action `search`, every index): the one a web page may carry. Absent
   * from a demo.json written before keys had scopes, until the next start makes one.
   */
  searchApiKey?: string;
}

export interface DemoReady extends DemoCredentials {
  /**
   * The model that answered the scored search at this start: the demo model when this start seeded;
   * after a restart, whatever `products` is configured with now (the demo model's id when unscored).
   */
  modelId: string;
  /** A ready-to-run scored search. */
  curl: string;
  /** What that search answered at this start; null when it is not scored (scoring changed since the seeding). */
  relevanceScore: number | null;
}

/** An HTTP call to the stack's APIs: in-process (`app.request`) at start-up, over fetch in the training script. */
export type ApiCall = (
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
) => Promise<{ status: number; headers: Headers; body: unknown }>;

/** The committed demo model: trained by `npm run demo:train` (training/demo/README.md). */
export const DEMO_TRAINING_DIR = fileURLToPath(new URL("../../../training/demo/", import.meta.url));
export const DEMO_INDEX = "products";
export const DEMO_ALIAS = "catalog";
export const DEMO_TITLE_FIELD = "title";
export const DEMO_TAGS_FIELD = "tags";
/** The query of the printed curl. */
export const DEMO_QUERY = "home chair";
const DOCUMENT_BATCH = 1000;
const SCORED_SEARCH_TIMEOUT_MS = 15_000;

export const demoModelId = (account: string): string => `${account}:${DEMO_INDEX}:v1`;

/** The settings the `index-settings` step gives `products`. */
const DEMO_SETTINGS = {
  searchableAttributes: ["title", "tags", "description"],
  filterableAttributes: ["category", "price"],
  sortableAttributes: ["price"],
};

const failed = (args: Parameters<ApiCall>, res: { status: number; body: unknown }) =>
  new Error(`demo seeding: ${args[0]} ${args[1]} answered ${res.status}: ${JSON.stringify(res.body)}`);

/** A call that must succeed (2xx); 409 (already there) is accepted so that re-runs are harmless. */
async function must(call: ApiCall, ...args: Parameters<ApiCall>): Promise<unknown> {
  const res = await call(...args);
  if (res.status >= 300 && res.status !== 409) throw failed(args, res);
  return res.body;
}

/** A call whose 404 and 409 are answers (gone, changed meanwhile), not failures. */
async function conditional(call: ApiCall, ...args: Parameters<ApiCall>) {
  const res = await call(...args);
  if (res.status >= 300 && res.status !== 404 && res.status !== 409) throw failed(args, res);
  return res;
}

/** The version an ETag (`"3"`) carries. */
function versionOf(headers: Headers): number | undefined {
  const m = /^(?:W\/)?"(\d{1,15})"$/.exec(headers.get("etag") ?? "");
  return m === null ? undefined : Number(m[1]);
}

/** Adds demo documents that are absent; "index gone" when the index no longer exists. */
export type AddAbsentDocuments = (
  account: string,
  documents: readonly object[],
) => Promise<"added" | "index gone">;

/** A KV the demo model can be uploaded to without ever replacing a value (SqliteKv). */
export interface CreateOnlyKv {
  get(key: string): Promise<string | null>;
  putIfAbsent(key: string, value: string): Promise<boolean>;
}

/**
 * What the seeding steps share: how to call the APIs, and what earlier steps produced.
 *
 * The seeding never replaces a write someone else made after it started (the operator may start as
 * soon as demo.json appears, or between two starts that finish an interrupted seeding). It creates
 * only what is absent (the index, the alias with `If-None-Match: *`, documents by id, the model
 * version), and it changes a record only at the version its own last write left it at (`owned`,
 * with `If-Match`): a record someone else changed is theirs from then on, and is left as it is.
 */
interface DemoSeeding {
  call: ApiCall;
  adminToken: string;
  /** Set by the `account` step, or read from DATA_DIR/demo.json when an earlier start ran it. */
  credentials: DemoCredentials | null;
  /** Keeps new credentials (npm start: DATA_DIR/demo.json) before the `account` step is recorded. */
  keepCredentials(credentials: DemoCredentials): void;
  /** The records (`products`, `catalog`) the seeding still owns, with their versions. */
  owned: OwnedRecords;
  /**
   * npm start: adds only absent documents, in the index's task order. Without it (the training
   * script's fresh stack, which nobody else writes to) documents are posted through the API.
   */
  addAbsentDocuments?: AddAbsentDocuments;
  /** npm start only: the KV the demo model is uploaded to. */
  kv?: CreateOnlyKv;
  /** What the seeding left as someone else changed it (logged, and the banner says what serves). */
  left: string[];
  upload?: "uploaded" | "present" | "left";
  score?: number;
}

/** A record someone else changed: the seeding no longer owns it, and says what it left. */
function leave(seeding: DemoSeeding, record: string, what: string): void {
  seeding.owned.release(record);
  seeding.left.push(what);
}

/**
 * Owns `record` when it is exactly as created (version 1: nobody has written it since). Called by the
 * step that creates it, also when it found it there already (created by an interrupted earlier start).
 */
async function ownIfUntouched(seeding: DemoSeeding, record: string): Promise<void> {
  const res = await conditional(
    seeding.call,
    "GET",
    `/api/v1/indexes/${record}/settings`,
    undefined,
    customerOf(seeding),
  );
  if (res.status === 200 && versionOf(res.headers) === 1) seeding.owned.set(record, 1);
  else leave(seeding, record, `${record} (changed before the seeding reached it)`);
}

function credentialsOf(seeding: DemoSeeding): DemoCredentials {
  if (seeding.credentials === null)
    throw new Error("demo seeding: no demo account (the account step did not run)");
  return seeding.credentials;
}
const customerOf = (seeding: DemoSeeding) => ({ "x-api-key": credentialsOf(seeding).apiKey });
const adminOf = (seeding: DemoSeeding) => ({ authorization: `Bearer ${seeding.adminToken}` });

/**
 * The demo account and its catalog, through the same HTTP API a user would call: an account, the
 * `products` index (10,000 products from demo-catalog.ts, posted 1,000 per request) with its
 * settings, and the `catalog` alias. Step names are recorded in the data folder (demo-step-log.ts):
 * never rename one.
 */
const CATALOG_STEPS: readonly Step<DemoSeeding>[] = [
  {
    name: "account",
    async run(seeding) {
      const created = (await must(
        seeding.call,
        "POST",
        "/api/v1/admin/accounts",
        { name: "Demo Shop" },
        adminOf(seeding),
      )) as DemoCredentials;
      seeding.credentials = {
        systemAccountId: created.systemAccountId,
        apiKey: created.apiKey,
        searchApiKey: created.searchApiKey,
      };
      seeding.keepCredentials(seeding.credentials);
    },
  },
  {
    // Created only when absent (409 otherwise), and owned only while nobody has changed it.
    name: "index",
    async run(seeding) {
      await must(
        seeding.call,
        "POST",
        "/api/v1/indexes",
        { name: DEMO_INDEX, primaryKey: "id" },
        customerOf(seeding),
      );
      await ownIfUntouched(seeding, DEMO_INDEX);
    },
  },
  {
    name: "index-settings",
    async run(seeding) {
      const version = seeding.owned.get(DEMO_INDEX);
      if (version === undefined) return;
      const path = `/api/v1/indexes/${DEMO_INDEX}/settings`;
      const res = await conditional(seeding.call, "PATCH", path, DEMO_SETTINGS, {
        ...customerOf(seeding),
        "if-match": `"${version}"`,
      });
      const written = res.status === 200 ? versionOf(res.headers) : undefined;
      if (written !== undefined) {
        seeding.owned.set(DEMO_INDEX, written);
        return;
      }
      // Changed since: by this very write when an earlier start stopped before recording the step
      // (the settings are the demo's), else by someone else.
      const now = await conditional(seeding.call, "GET", path, undefined, customerOf(seeding));
      const settings = now.body as Record<string, unknown>;
      const ours =
        now.status === 200 &&
        Object.entries(DEMO_SETTINGS).every(([k, v]) => JSON.stringify(settings[k]) === JSON.stringify(v));
      const at = versionOf(now.headers);
      if (ours && at !== undefined) seeding.owned.set(DEMO_INDEX, at);
      else leave(seeding, DEMO_INDEX, `the settings of ${DEMO_INDEX}`);
    },
  },
  {
    // Only documents whose id is absent are added (npm start): a re-run of an interrupted step, or
    // a product someone changed meanwhile, is never replaced.
    name: "documents",
    async run(seeding) {
      const products = demoCatalog();
      for (let i = 0; i < products.length; i += DOCUMENT_BATCH) {
        const batch = products.slice(i, i + DOCUMENT_BATCH);
        if (seeding.addAbsentDocuments === undefined) {
          await must(
            seeding.call,
            "POST",
            `/api/v1/indexes/${DEMO_INDEX}/documents`,
            batch,
            customerOf(seeding),
          );
        } else if (
          (await seeding.addAbsentDocuments(credentialsOf(seeding).systemAccountId, batch)) === "index gone"
        ) {
          seeding.left.push(`the documents of ${DEMO_INDEX} (the index was deleted)`);
          return;
        }
      }
    },
  },
  {
    name: "alias",
    async run(seeding) {
      const res = await conditional(
        seeding.call,
        "PUT",
        `/api/v1/aliases/${DEMO_ALIAS}`,
        { index: DEMO_INDEX },
        { ...customerOf(seeding), "if-none-match": "*" },
      );
      if (res.status === 200) {
        seeding.owned.set(DEMO_ALIAS, versionOf(res.headers) ?? 1);
        return;
      }
      if (res.status === 404) {
        leave(seeding, DEMO_ALIAS, `${DEMO_ALIAS} (its index ${DEMO_INDEX} was deleted)`);
        return;
      }
      // There already: the seeding's own from an interrupted earlier start only if it still points at
      // products, untouched since it was created.
      const view = await conditional(
        seeding.call,
        "GET",
        `/api/v1/indexes/${DEMO_ALIAS}`,
        undefined,
        customerOf(seeding),
      );
      if ((view.body as { index?: unknown } | null)?.index === DEMO_INDEX)
        await ownIfUntouched(seeding, DEMO_ALIAS);
      else leave(seeding, DEMO_ALIAS, `${DEMO_ALIAS} (made by someone else)`);
    },
  },
];

/** The demo catalog for the training script: every catalog step, in order, nothing recorded. */
export async function seedDemoCatalog(call: ApiCall, adminToken: string): Promise<DemoCredentials> {
  const seeding: DemoSeeding = {
    call,
    adminToken,
    credentials: null,
    keepCredentials: () => {},
    owned: ownedInMemory(),
    left: [],
  };
  for (const step of CATALOG_STEPS) await step.run(seeding);
  return credentialsOf(seeding);
}

const readTraining = (name: string): string => readFileSync(join(DEMO_TRAINING_DIR, name), "utf8");

/**
 * The demo artifact for one account. The committed XGBoost model (training/demo/model.json) is
 * exported again with this account's model id, exactly as `relevance model export --golden` does:
 * the golden rows are XGBoost's own predictions (training/demo/golden.jsonl), checked to 1e-5. Only
 * the model id differs from the committed training/demo/model-products.json (exported as
 * `demo:products:v1`), since account ids are random per data folder.
 */
export function demoArtifact(account: string): string {
  const json = parseJson(readTraining("model.json"), "training/demo/model.json");
  if (!json.ok) throw new Error(formatIssues(json.errors));
  const draft = importXgboost(json.value);
  if (!draft.ok) throw new Error(`training/demo/model.json: ${formatIssues(draft.errors)}`);
  const rows = readTraining("golden.jsonl")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as GoldenRow);
  const built = buildArtifact(draft.value, {
    modelId: demoModelId(account),
    titleField: DEMO_TITLE_FIELD,
    tagsField: DEMO_TAGS_FIELD,
    golden: { source: `${draft.value.source.library} ${draft.value.source.version}`, rows },
  });
  if (!built.ok) throw new Error(`the demo model does not export: ${formatIssues(built.errors)}`);
  return built.value.text;
}

/**
 * Puts the artifact under relevance_model:<modelId> with an upload's checks (it loads and reproduces
 * its golden rows), only when the key is absent: versions are immutable, and one put there by someone
 * else is theirs ("left" when it does not load: the seeding does not configure it).
 */
async function uploadDemoModel(
  kv: CreateOnlyKv,
  modelId: string,
  text: string,
): Promise<"uploaded" | "present" | "left"> {
  const loaded = loadArtifact(text, { checkGolden: true });
  if (!loaded.ok) throw new Error(`the demo artifact does not load: ${formatIssues(loaded.errors)}`);
  if (await kv.putIfAbsent(modelKey(modelId), text)) return "uploaded";
  const existing = await kv.get(modelKey(modelId));
  if (existing !== null && (existing === text || loadArtifact(existing, { checkGolden: true }).ok))
    return "present";
  return "left";
}

/** The relevance config the demo model gets on `products` and `catalog`. */
const demoConfig = (account: string) => ({
  modelId: demoModelId(account),
  titleField: DEMO_TITLE_FIELD,
  tagsField: DEMO_TAGS_FIELD,
});

/**
 * Points `index` (an index or alias) at the demo model through the admin API, with If-Match at the
 * version the seeding's own last write left it at: a record someone else changed is left as it is.
 */
async function configureDemoModel(seeding: DemoSeeding, index: string) {
  const { systemAccountId: account } = credentialsOf(seeding);
  const config = demoConfig(account);
  const path = `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-trigger-config`;
  const read = await conditional(seeding.call, "GET", path, undefined, adminOf(seeding));
  const current = read.body as { relevanceTriggerConfig: unknown; version: number };
  // Already the demo's (this step's own write, when an earlier start stopped before recording it).
  if (read.status === 200 && JSON.stringify(current.relevanceTriggerConfig) === JSON.stringify(config)) {
    seeding.owned.set(index, current.version);
    return;
  }
  const version = seeding.owned.get(index);
  if (
    read.status !== 200 ||
    version === undefined ||
    version !== current.version ||
    seeding.upload === "left"
  ) {
    leave(seeding, index, `the relevance config of ${index}`);
    return;
  }
  const res = await conditional(
    seeding.call,
    "PUT",
    path,
    { relevanceTriggerConfig: config },
    { ...adminOf(seeding), "if-match": `"${version}"` },
  );
  if (res.status !== 200) {
    leave(seeding, index, `the relevance config of ${index}`);
    return;
  }
  const answer = res.body as { version: number; warnings?: string[] };
  if (answer.warnings && answer.warnings.length > 0)
    throw new Error(`demo seeding: configuring ${index} warned: ${answer.warnings.join("; ")}`);
  seeding.owned.set(index, answer.version);
}

/** Whether `index` is configured with the demo model now (what the scored-search step waits for). */
async function servesDemoModel(seeding: DemoSeeding, index: string): Promise<boolean> {
  const { systemAccountId: account } = credentialsOf(seeding);
  const path = `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-trigger-config`;
  const read = await conditional(seeding.call, "GET", path, undefined, adminOf(seeding));
  const config = (read.body as { relevanceTriggerConfig?: unknown } | null)?.relevanceTriggerConfig;
  return read.status === 200 && JSON.stringify(config) === JSON.stringify(demoConfig(account));
}

/**
 * DATA_DIR/demo-search.headers: the demo key as a curl header line (`x-api-key: rk_…`, owner-only),
 * so the printed curl carries no character of the key (`-H @file`) and still works pasted as is.
 */
export const DEMO_HEADERS_FILE = "demo-search.headers";

/** Writes the demo key's header file (0600) and returns its path. */
export function writeDemoHeaders(dataDir: string, apiKey: string): string {
  const file = join(dataDir, DEMO_HEADERS_FILE);
  writeFileSync(file, `x-api-key: ${apiKey}\n`, { mode: 0o600 });
  return file;
}

/** `'text'` for a POSIX shell. */
const shellQuote = (text: string): string => `'${text.replaceAll("'", `'"'"'`)}'`;

/** The scored-search curl: the API key from `headersFile` (`writeDemoHeaders`), never on the line. */
export function demoCurl(url: string, headersFile: string, index = DEMO_INDEX, q = DEMO_QUERY): string {
  return (
    `curl -s -X POST ${url}/api/v1/indexes/${index}/search -H @${shellQuote(headersFile)} ` +
    `-H 'content-type: application/json' -d '${JSON.stringify({ q, relevanceScore: true })}'`
  );
}

/** Waits until a scored search of `index` is answered by `modelId` (the exporter copies settings within moments). */
async function waitForScoredSearch(call: ApiCall, apiKey: string, index: string, modelId: string) {
  const deadline = Date.now() + SCORED_SEARCH_TIMEOUT_MS;
  for (;;) {
    const res = await call(
      "POST",
      `/api/v1/indexes/${index}/search`,
      { q: DEMO_QUERY, relevanceScore: true },
      { "x-api-key": apiKey },
    );
    const body = res.body as { relevanceScore?: number };
    if (
      res.status === 200 &&
      typeof body.relevanceScore === "number" &&
      res.headers.get("x-relevance-model") === modelId
    )
      return body.relevanceScore;
    if (Date.now() > deadline)
      throw new Error(`demo seeding: no scored search of ${index} within ${SCORED_SEARCH_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** One scored search of `products`, as the printed curl sends it: the score and model, if any. */
async function currentAnswer(
  call: ApiCall,
  apiKey: string,
): Promise<{ relevanceScore: number | null; modelId: string | null }> {
  const res = await call(
    "POST",
    `/api/v1/indexes/${DEMO_INDEX}/search`,
    { q: DEMO_QUERY, relevanceScore: true },
    { "x-api-key": apiKey },
  );
  const score = (res.body as { relevanceScore?: unknown } | null)?.relevanceScore;
  return res.status === 200 && typeof score === "number"
    ? { relevanceScore: score, modelId: res.headers.get("x-relevance-model") }
    : { relevanceScore: null, modelId: null };
}

/** Calls the stack's Hono app in-process (no sockets), as a client would over HTTP. */
export function inProcessCall(stack: Stack): ApiCall {
  return async (method, path, body, headers) => {
    const res = await stack.app.request(path, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === "" ? null : JSON.parse(text) };
  };
}

/** The demo model: uploaded, configured on the index and the alias, then seen scoring on both. */
const MODEL_STEPS: readonly Step<DemoSeeding>[] = [
  {
    name: "model-upload",
    async run(seeding) {
      if (seeding.kv === undefined) throw new Error("demo seeding: no KV to upload the demo model to");
      const { systemAccountId: account } = credentialsOf(seeding);
      seeding.upload = await uploadDemoModel(seeding.kv, demoModelId(account), demoArtifact(account));
    },
  },
  { name: "config-products", run: (seeding) => configureDemoModel(seeding, DEMO_INDEX) },
  { name: "config-catalog", run: (seeding) => configureDemoModel(seeding, DEMO_ALIAS) },
  {
    // Waits on each of the two that the demo model is configured on now (someone else's config is
    // not the seeding's to wait for).
    name: "scored-search",
    async run(seeding) {
      const { systemAccountId: account, apiKey } = credentialsOf(seeding);
      const modelId = demoModelId(account);
      if (await servesDemoModel(seeding, DEMO_INDEX))
        seeding.score = await waitForScoredSearch(seeding.call, apiKey, DEMO_INDEX, modelId);
      if (await servesDemoModel(seeding, DEMO_ALIAS))
        await waitForScoredSearch(seeding.call, apiKey, DEMO_ALIAS, modelId);
    },
  },
];

/** Every step of npm start's demo seeding, in the order they run. */
export const DEMO_STEPS: readonly Step<DemoSeeding>[] = [...CATALOG_STEPS, ...MODEL_STEPS];
export const DEMO_STEP_NAMES: readonly string[] = DEMO_STEPS.map((s) => s.name);

/**
 * DATA_DIR/demo.json: the demo account's credentials. `recordsSteps` marks a file written by a seeding
 * that records its steps; a file without it was written by an earlier version.
 */
interface SavedDemo {
  credentials: DemoCredentials;
  recordsSteps: boolean;
}

function readCredentials(file: string): SavedDemo | null {
  if (!existsSync(file)) return null;
  const saved = JSON.parse(readFileSync(file, "utf8")) as DemoCredentials & { recordsSteps?: unknown };
  return {
    credentials: {
      systemAccountId: saved.systemAccountId,
      apiKey: saved.apiKey,
      ...(typeof saved.searchApiKey === "string" ? { searchApiKey: saved.searchApiKey } : {}),
    },
    recordsSteps: saved.recordsSteps === true,
  };
}

const keepCredentials = (file: string, c: DemoCredentials) =>
  writeFileSync(file, `${JSON.stringify({ ...c, recordsSteps: true }, null, 2)}\n`, { mode: 0o600 });

/** DATA_DIR/demo.env: the demo account as shell variables, which the README's second terminal sources. */
export const DEMO_ENV_FILE = "demo.env";

/** The text of DATA_DIR/demo.env: `export ACCOUNT=…`, `export API_KEY=…` and `export SEARCH_API_KEY=…`. */
export function demoEnvText(c: DemoCredentials): string {
  // All are generated (acct_ and 12 hex digits; rk_ and base64url): nothing a shell would expand.
  for (const value of [c.systemAccountId, c.apiKey, c.searchApiKey ?? "x"])
    if (!/^[A-Za-z0-9_-]+$/.test(value)) throw new Error("demo seeding: the demo credentials are malformed");
  return [
    "# The demo account of this data folder, kept by npm start: source this file in a shell (README.md).",
    `export ACCOUNT=${c.systemAccountId}`,
    `export API_KEY=${c.apiKey}`,
    ...(c.searchApiKey === undefined ? [] : [`export SEARCH_API_KEY=${c.searchApiKey}`]),
    "",
  ].join("\n");
}

/**
 * A demo account made before keys had scopes has no search key in demo.json: one is created with
 * the admin key (as Meilisearch's default search key) and kept, so every demo folder has one.
 */
async function withSearchKey(
  call: ApiCall,
  credentials: DemoCredentials,
  keep: (c: DemoCredentials) => void,
): Promise<DemoCredentials> {
  if (credentials.searchApiKey !== undefined) return credentials;
  const created = await must(
    call,
    "POST",
    "/api/v1/keys",
    {
      name: "Default Search API Key",
      description: "Use it to search from the frontend",
      actions: ["search"],
      indexes: ["*"],
      expiresAt: null,
    },
    { "x-api-key": credentials.apiKey },
  );
  const updated = { ...credentials, searchApiKey: (created as { key: string }).key };
  keep(updated);
  return updated;
}

/** Writes DATA_DIR/demo.env (0600) unless it already says the same. */
function keepShellVariables(dataDir: string, c: DemoCredentials): void {
  const file = join(dataDir, DEMO_ENV_FILE);
  const text = demoEnvText(c);
  if (existsSync(file) && readFileSync(file, "utf8") === text) return;
  writeFileSync(file, text, { mode: 0o600 });
}

async function credentialsWork(call: ApiCall, credentials: DemoCredentials): Promise<boolean> {
  const check = await call("GET", "/api/v1/indexes", undefined, { "x-api-key": credentials.apiKey });
  return check.status === 200;
}

export interface SeedDemoOptions {
  /**
   * Awaited after each step is recorded; a test throws here to simulate a start killed after that
   * step, or writes as an operator would while the seeding goes on.
   */
  afterStep?: (step: string) => void | Promise<void>;
  /** The time recorded for a completed step. Default: the wall clock. */
  now?: () => Date;
}

/**
 * Demo data for `npm start` (DEMO=0 skips it), seeded once per data folder: the demo account, the
 * 10,000-product `products` index and the `catalog` alias (CATALOG_STEPS), the demo model uploaded
 * to KV as `<account>:products:v1`, configured on both, and a scored search seen on both
 * (MODEL_STEPS). Each step is recorded in DATA_DIR's settings.db when it completes; a start runs
 * only the steps not recorded yet, so an interrupted seeding is finished by the next start, and a
 * completed step never runs again: a restart leaves aliases, configs and model versions as the
 * operator left them. Nor does a step replace what someone changed after the seeding started (see
 * DemoSeeding). The API key is kept in DATA_DIR/demo.json so that restarts can print the curl
 * (demo only: real keys are shown once and stored hashed), and with the account in DATA_DIR/demo.env
 * for a shell. Returns null when the seeding was done but demo.json is gone (nothing to print).
 */
export async function seedDemo(
  stack: Stack,
  config: LocalConfig,
  log: Logger,
  options: SeedDemoOptions = {},
): Promise<DemoReady | null> {
  const started = performance.now();
  const file = join(config.dataDir, "demo.json");
  const call = inProcessCall(stack);
  const now = options.now ?? (() => new Date());
  const db = openDatabase(join(config.dataDir, "settings.db"));
  try {
    const recorded = new SqliteStepLog(db);
    const saved = readCredentials(file);
    let credentials = saved?.credentials ?? null;
    if (recorded.done().size === 0 && saved !== null) {
      if (!(await credentialsWork(call, saved.credentials))) {
        log.warn("saved demo credentials no longer work; creating a new demo account", { file });
        credentials = null;
      } else if (saved.recordsSteps) {
        // Killed between keeping the new account's credentials and recording the step: the account
        // exists, the steps after it do not.
        recorded.record("account", now());
      } else {
        // A folder seeded before steps were recorded: that version ran every step on each start,
        // so all are done, and what the operator changed since must stay.
        for (const step of DEMO_STEP_NAMES) recorded.record(step, now());
        log.info("demo seeded by an earlier version: recorded its steps as done", { file });
      }
    }
    if (credentials === null && recorded.done().has("account")) {
      log.warn("the demo was seeded, but its credentials file is gone; not seeding again", { file });
      return null;
    }
    const steps: StepLog = {
      done: () => recorded.done(),
      record: async (step, at) => {
        recorded.record(step, at);
        await options.afterStep?.(step);
      },
    };
    const owned = recorded.owned();
    const seeding: DemoSeeding = {
      call,
      adminToken: config.adminToken,
      credentials,
      keepCredentials: (c) => {
        keepCredentials(file, c);
        keepShellVariables(config.dataDir, c);
      },
      owned,
      addAbsentDocuments: async (account, documents) => {
        const uid = `${account}-${DEMO_INDEX}`;
        const task = await stack.indexManager.addDocumentsIfAbsent(
          uid,
          documents as readonly Record<string, unknown>[],
          { primaryKey: "id" },
        );
        const done = await stack.indexManager.waitForTask(task.taskUid, {
          timeoutMs: 30_000,
          accountId: account,
        });
        if (done.status === "succeeded") return "added";
        if (done.error?.code === "index_not_found") return "index gone";
        throw new Error(`demo seeding: adding the demo documents failed: ${done.error?.message}`);
      },
      kv: stack.kv,
      left: [],
    };
    if (recorded.ownedRecordsAreNew && credentials !== null) {
      // A seeding interrupted by a version that kept no versions: what it created is taken as the
      // seeding's own as it is now (that version would have written over it anyway).
      const done = recorded.done();
      for (const [step, record] of [
        ["index", DEMO_INDEX],
        ["alias", DEMO_ALIAS],
      ] as const) {
        if (!done.has(step) || done.has("config-catalog")) continue;
        const res = await conditional(
          call,
          "GET",
          `/api/v1/indexes/${record}/settings`,
          undefined,
          customerOf(seeding),
        );
        const version = versionOf(res.headers);
        if (res.status === 200 && version !== undefined) owned.set(record, version);
      }
    }
    const outcome = await runPendingSteps(DEMO_STEPS, steps, seeding, now);
    const ready = await withSearchKey(call, credentialsOf(seeding), seeding.keepCredentials);
    keepShellVariables(config.dataDir, ready);
    for (const what of seeding.left)
      log.warn("demo seeding: left as someone changed it after the seeding started", { left: what });
    const account = ready.systemAccountId;
    const modelId = demoModelId(account);
    const curl = demoCurl(stack.url, writeDemoHeaders(config.dataDir, ready.apiKey));
    const fields = {
      account,
      index: DEMO_INDEX,
      alias: DEMO_ALIAS,
      modelId,
      firstStart: outcome.skipped.length === 0,
      stepsRun: outcome.ran,
      seedMs: Math.round(performance.now() - started),
      curl,
    };
    if (outcome.ran.length > 0) {
      const model =
        seeding.upload ?? ((await stack.kv.get(modelKey(modelId))) === null ? "absent" : "present");
      if (seeding.score !== undefined) {
        log.info("demo search ready: run the curl for a scored search", {
          ...fields,
          model,
          relevanceScore: seeding.score,
        });
        return { ...ready, modelId, curl, relevanceScore: seeding.score };
      }
      // products is not on the demo model: someone configured it otherwise while the seeding ran.
      const current = await currentAnswer(call, ready.apiKey);
      log.info("demo search ready: run the curl for a scored search", {
        ...fields,
        model,
        servingModel: current.modelId,
        relevanceScore: current.relevanceScore,
        left: seeding.left,
      });
      return { ...ready, modelId: current.modelId ?? modelId, curl, relevanceScore: current.relevanceScore };
    }
    // Nothing is re-applied or waited for: the operator may have disabled scoring, re-pointed the
    // alias or pruned v1 on purpose. One search reports what serves now, and never fails the start.
    const current = await currentAnswer(call, ready.apiKey);
    log.info("demo already seeded: left as it is (a restart runs no completed seeding step)", {
      ...fields,
      model: (await stack.kv.get(modelKey(modelId))) === null ? "absent" : "present",
      servingModel: current.modelId,
      relevanceScore: current.relevanceScore,
    });
    return { ...ready, modelId: current.modelId ?? modelId, curl, relevanceScore: current.relevanceScore };
  } finally {
    db.close();
  }
}
