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
import type { Kv, Logger } from "@relevance/settings";
import { demoCatalog } from "./demo-catalog.ts";
import type { LocalConfig } from "./env.ts";
import type { Stack } from "./stack.ts";

export interface DemoCredentials {
  systemAccountId: string;
  apiKey: string;
}

export interface DemoReady extends DemoCredentials {
  /** The scoring model of `products` and `catalog`. */
  modelId: string;
  /** A ready-to-run scored search. */
  curl: string;
  /** What that search answered at start-up. */
  relevanceScore: number;
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

/** A call that must succeed (2xx); 409 (already there) is accepted so that re-runs are harmless. */
async function must(call: ApiCall, ...args: Parameters<ApiCall>): Promise<unknown> {
  const res = await call(...args);
  if (res.status >= 300 && res.status !== 409)
    throw new Error(
      `demo seeding: ${args[0]} ${args[1]} answered ${res.status}: ${JSON.stringify(res.body)}`,
    );
  return res.body;
}

/**
 * The demo account and its catalog, through the same HTTP API a user would call: an account, the
 * `products` index (10,000 products from demo-catalog.ts, posted 1,000 per request) with its
 * settings, and the `catalog` alias. Used by npm start and by the training script.
 */
export async function seedDemoCatalog(call: ApiCall, adminToken: string): Promise<DemoCredentials> {
  const created = (await must(
    call,
    "POST",
    "/api/v1/admin/accounts",
    { name: "Demo Shop" },
    { authorization: `Bearer ${adminToken}` },
  )) as DemoCredentials;
  const customer = { "x-api-key": created.apiKey };
  await must(call, "POST", "/api/v1/indexes", { name: DEMO_INDEX, primaryKey: "id" }, customer);
  await must(
    call,
    "PATCH",
    `/api/v1/indexes/${DEMO_INDEX}/settings`,
    {
      searchableAttributes: ["title", "tags", "description"],
      filterableAttributes: ["category", "price"],
      sortableAttributes: ["price"],
    },
    customer,
  );
  const products = demoCatalog();
  for (let i = 0; i < products.length; i += DOCUMENT_BATCH) {
    await must(
      call,
      "POST",
      `/api/v1/indexes/${DEMO_INDEX}/documents`,
      products.slice(i, i + DOCUMENT_BATCH),
      customer,
    );
  }
  await must(call, "PUT", `/api/v1/aliases/${DEMO_ALIAS}`, { index: DEMO_INDEX }, customer);
  return created;
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

/** Puts the artifact under relevance_model:<modelId> with an upload's checks: it loads and reproduces its golden rows. */
async function uploadDemoModel(kv: Kv, modelId: string, text: string): Promise<"uploaded" | "present"> {
  const loaded = loadArtifact(text, { checkGolden: true });
  if (!loaded.ok) throw new Error(`the demo artifact does not load: ${formatIssues(loaded.errors)}`);
  const existing = await kv.get(modelKey(modelId));
  if (existing !== null) {
    // Versions are immutable: never overwrite; an older copy that still loads is kept.
    if (existing === text || loadArtifact(existing, { checkGolden: true }).ok) return "present";
    throw new Error(`relevance_model:${modelId} exists and does not load; delete it or remove DATA_DIR`);
  }
  await kv.put(modelKey(modelId), text);
  return "uploaded";
}

/** Points `products` and the `catalog` alias at the demo model through the admin API (unless already). */
async function configureDemoModel(call: ApiCall, adminToken: string, account: string, modelId: string) {
  const admin = { authorization: `Bearer ${adminToken}` };
  const config = { modelId, titleField: DEMO_TITLE_FIELD, tagsField: DEMO_TAGS_FIELD };
  for (const index of [DEMO_INDEX, DEMO_ALIAS]) {
    const path = `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-trigger-config`;
    const current = (await must(call, "GET", path, undefined, admin)) as { relevanceTriggerConfig: unknown };
    if (JSON.stringify(current.relevanceTriggerConfig) === JSON.stringify(config)) continue;
    const res = (await must(call, "PUT", path, { relevanceTriggerConfig: config }, admin)) as {
      warnings?: string[];
    };
    if (res.warnings && res.warnings.length > 0)
      throw new Error(`demo seeding: configuring ${index} warned: ${res.warnings.join("; ")}`);
  }
}

export function demoCurl(url: string, apiKey: string, index = DEMO_INDEX, q = DEMO_QUERY): string {
  return (
    `curl -s -X POST ${url}/api/v1/indexes/${index}/search -H 'x-api-key: ${apiKey}' ` +
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

/**
 * Demo data for `npm start` (DEMO=0 skips it). On first start: the demo account, the 10,000-product
 * `products` index and the `catalog` alias (seedDemoCatalog), the demo model uploaded to KV as
 * `<account>:products:v1` and configured on both; then it waits until a scored search works and logs
 * a ready-to-run curl. The API key is kept in DATA_DIR/demo.json so that restarts reuse it (demo
 * only: real keys are shown once and stored hashed); a restart re-checks the model and its config.
 */
export async function seedDemo(stack: Stack, config: LocalConfig, log: Logger): Promise<DemoReady> {
  const started = performance.now();
  const file = join(config.dataDir, "demo.json");
  const call = inProcessCall(stack);

  let credentials: DemoCredentials | null = null;
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, "utf8")) as DemoCredentials;
    const check = await stack.app.request("/api/v1/indexes", { headers: { "x-api-key": saved.apiKey } });
    if (check.status === 200) credentials = saved;
    else log.warn("saved demo credentials no longer work; creating a new demo account", { file });
  }
  const firstStart = credentials === null;
  if (credentials === null) {
    credentials = await seedDemoCatalog(call, config.adminToken);
    writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  }

  const account = credentials.systemAccountId;
  const modelId = demoModelId(account);
  const upload = await uploadDemoModel(stack.kv, modelId, demoArtifact(account));
  await configureDemoModel(call, config.adminToken, account, modelId);
  const score = await waitForScoredSearch(call, credentials.apiKey, DEMO_INDEX, modelId);
  await waitForScoredSearch(call, credentials.apiKey, DEMO_ALIAS, modelId);

  const curl = demoCurl(stack.url, credentials.apiKey);
  log.info("demo search ready: run the curl for a scored search", {
    account,
    index: DEMO_INDEX,
    alias: DEMO_ALIAS,
    modelId,
    model: upload,
    firstStart,
    seedMs: Math.round(performance.now() - started),
    relevanceScore: score,
    curl,
  });
  return { ...credentials, modelId, curl, relevanceScore: score };
}
