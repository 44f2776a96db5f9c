// `npm run demo:train`: regenerates every artifact of the demo model in training/demo/ from scratch.
//
//  1. npm start's entry (apps/local/src/main.ts) in a temporary DATA_DIR, DEMO=0, on a free port;
//     the demo catalog seeded through its HTTP API (seedDemoCatalog, as npm start does).
//  2. queries.jsonl: the judged queries (make_demo_queries.ts), labelled through the search API.
//  3. features.jsonl: `relevance features log --env local` over those queries.
//  4. model.json, golden.jsonl, metrics.json: training/train_xgboost.py (/usr/bin/python3, Debian's XGBoost).
//  5. model-products.json: `relevance model export --from xgboost --golden golden.jsonl` as demo:products:v1.
//
// Every step is deterministic: running it twice gives byte-identical files.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type ApiCall,
  DEMO_INDEX,
  DEMO_TAGS_FIELD,
  DEMO_TITLE_FIELD,
  seedDemoCatalog,
} from "../../apps/local/src/demo.ts";
import { generateDemoQueries, labelQueries, toJsonLines } from "./make_demo_queries.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HERE = fileURLToPath(new URL("./", import.meta.url));
const MAIN = join(ROOT, "apps/local/src/main.ts");
export const DEMO_TRAINING_MODEL_ID = "demo:products:v1";
const ADMIN_TOKEN = "demo-training-admin-token-0123456789";
const out = (name: string) => join(HERE, name);
const t0 = performance.now();
const say = (text: string) =>
  process.stdout.write(`demo:train: [${((performance.now() - t0) / 1000).toFixed(1)} s] ${text}\n`);

async function startStack(dataDir: string) {
  const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", MAIN], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", ADMIN_TOKEN, DEMO: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (const line of buffer.split("\n").slice(0, -1)) {
        try {
          const parsed = JSON.parse(line) as { message?: string; url?: string };
          if (parsed.message === "listening" && parsed.url) resolve(parsed.url);
        } catch {
          // not a log line
        }
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    });
    child.once("exit", (code) => reject(new Error(`npm start exited with ${code}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { url, stop };
}

function fetchCall(url: string): ApiCall {
  return async (method, path, body, headers) => {
    const res = await fetch(url + path, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === "" ? null : JSON.parse(text) };
  };
}

/** Runs the real `relevance` bin (as `npx relevance` does) in a child process; a failure stops the pipeline. */
function relevance(argv: string[], env: NodeJS.ProcessEnv = process.env): void {
  const run = spawnSync(process.execPath, [join(ROOT, "apps/cli/bin/relevance.js"), ...argv], {
    env,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (run.status !== 0) throw new Error(`relevance ${argv.slice(0, 2).join(" ")} exited with ${run.status}`);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "demo-train-"));
  const stack = await startStack(dataDir);
  try {
    say(`stack at ${stack.url} (DATA_DIR ${dataDir})`);
    const call = fetchCall(stack.url);
    const demo = await seedDemoCatalog(call, ADMIN_TOKEN);
    // The exporter copies the key and settings to KV within moments.
    for (let i = 0; ; i++) {
      const r = await call(
        "POST",
        `/api/v1/indexes/${DEMO_INDEX}/search`,
        { q: "chair" },
        { "x-api-key": demo.apiKey },
      );
      if (r.status === 200) break;
      if (i > 400) throw new Error(`the demo index does not answer: ${r.status}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    say("catalog seeded");

    const queries = await labelQueries(stack.url, demo.apiKey, DEMO_INDEX, generateDemoQueries());
    writeFileSync(out("queries.jsonl"), toJsonLines(queries));
    say(`queries.jsonl: ${queries.length} labelled queries`);

    relevance(
      [
        "features",
        "log",
        "--env",
        "local",
        "--account",
        demo.systemAccountId,
        "--index",
        DEMO_INDEX,
        "--api-key",
        demo.apiKey,
        "--queries",
        out("queries.jsonl"),
        "--title-field",
        DEMO_TITLE_FIELD,
        "--tags-field",
        DEMO_TAGS_FIELD,
        "--out",
        out("features.jsonl"),
      ],
      { ...process.env, DATA_DIR: dataDir, PORT: new URL(stack.url).port, ADMIN_TOKEN },
    );
    say("features.jsonl written");
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const trained = spawnSync(
    "/usr/bin/python3",
    [
      join(ROOT, "training/train_xgboost.py"),
      "--input",
      out("features.jsonl"),
      "--model-out",
      out("model.json"),
      "--golden-out",
      out("golden.jsonl"),
      "--metrics-out",
      out("metrics.json"),
    ],
    { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" },
  );
  if (trained.status !== 0) throw new Error(`train_xgboost.py exited with ${trained.status}`);
  say(`trained: ${trained.stdout.trim()}`);

  relevance([
    "model",
    "export",
    "--from",
    "xgboost",
    "--input",
    out("model.json"),
    "--model-id",
    DEMO_TRAINING_MODEL_ID,
    "--title-field",
    DEMO_TITLE_FIELD,
    "--tags-field",
    DEMO_TAGS_FIELD,
    "--golden",
    out("golden.jsonl"),
    "--out",
    out("model-products.json"),
  ]);
  say("done");
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    process.stderr.write(`demo:train: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
