// The gated rollout on `npm start`'s demo, every part in its own process: the seeded simulated
// shopper searches and clicks by its known rule while `relevance rollout --shadow-first` holds the
// candidate in shadow (and as a canary for a share of the shoppers) and waits on the live comparison.
// A v2 trained on the shoppers' clicks is promoted; a v3 trained on the same rows with the labels
// turned upside down predicts the clicks worse and is refused, leaving v2 serving.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_TOKEN, type RunningStack, spawnStack } from "@apps/local/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { node, ROOT, relevance as run } from "./test-support.ts";

let stack: RunningStack;
let dataDir: string;
let work: string;
let account: string;
let apiKey: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "gated-rollout-"));
  work = mkdtempSync(join(tmpdir(), "gated-rollout-work-"));
  stack = await spawnStack({ DATA_DIR: dataDir, DEMO: "1" });
  const ready = await stack.waitFor((l) => l.message === "demo data ready", 120_000);
  account = ready.systemAccountId as string;
  apiKey = ready.apiKey as string;
}, 180_000);

afterAll(async () => {
  await stack?.kill("SIGTERM");
});

describe("relevance rollout --shadow-first on live shoppers (npm start's demo)", () => {
  const env = () => ({ DATA_DIR: dataDir, PORT: new URL(stack.url).port, ADMIN_TOKEN });
  const relevance = (args: string[], cwd = work) => run(cwd, args, env());
  const target = () => ["--env", "local", "--account", account, "--index", "products"];
  const shop = (searches: number, seed: number) =>
    node(
      [
        join(ROOT, "apps/local/src/shopper.ts"),
        ...["--url", stack.url, "--data-dir", dataDir, "--searches", String(searches)],
        ...["--seed", String(seed), "--rate", "200"],
      ],
      work,
    );
  const gated = (file: string) =>
    relevance([
      "rollout",
      ...target(),
      ...["--file", file, "--api-key", apiKey, "--json"],
      ...["--shadow-first", "--min-outcomes", "150", "--margin", "0.05", "--deadline", "10m", "--poll", "1"],
      ...["--canary", "20"],
    ]);
  /** Trains on `rows` in its own folder and exports the artifact as `modelId`. */
  const trainAndExport = async (name: string, rows: string, modelId: string): Promise<string> => {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "features.jsonl"), rows);
    const trained = await node(
      [join(ROOT, "training/train_gbdt.ts"), "--input", "features.jsonl", "--rounds", "60"],
      dir,
    );
    expect(trained.code, trained.stderr).toBe(0);
    const exported = await relevance(
      [
        "model",
        "export",
        ...["--from", "xgboost", "--input", "model.json", "--golden", "golden.jsonl"],
        ...[
          "--model-id",
          modelId,
          "--title-field",
          "title",
          "--tags-field",
          "tags",
          "--out",
          "model.json.artifact",
        ],
      ],
      dir,
    );
    expect(exported.code, exported.stderr).toBe(0);
    return join(dir, "model.json.artifact");
  };
  const servingModel = async (): Promise<string | null> => {
    const res = await fetch(`${stack.url}/api/v1/indexes/products/search`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ q: "shoes", relevanceScore: true }),
    });
    await res.arrayBuffer();
    return res.headers.get("x-relevance-model");
  };
  const shadowConfig = async (): Promise<unknown> => {
    const res = await fetch(
      `${stack.url}/api/v1/admin/accounts/${account}/indexes/products/relevance-shadow-config`,
      { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    return ((await res.json()) as { relevanceShadowConfig: unknown }).relevanceShadowConfig;
  };

  let trainingRows = "";

  it("promotes a v2 trained on the shoppers' clicks once it has judged it on their live searches", async () => {
    const v1 = `${account}:products:v1`;
    const v2 = `${account}:products:v2`;
    // The outcomes v2 learns from: 1,000 searches of the seeded shopper on v1.
    const first = await shop(1000, 1);
    expect(first.code, first.stderr).toBe(0);
    for (let i = 0; ; i++) {
      const exported = await relevance([
        "features",
        "export",
        "--from-events",
        ...target(),
        ...["--since", "1d", "--out", "features.jsonl"],
      ]);
      expect(exported.code, exported.stderr).toBe(0);
      trainingRows = readFileSync(join(work, "features.jsonl"), "utf8");
      if (trainingRows.trim().split("\n").length > 50 || i >= 20) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const artifact = await trainAndExport("v2", trainingRows, v2);

    // The gated rollout waits on live traffic: the shopper comes back while it waits.
    const rolling = gated(artifact);
    const second = await shop(900, 2);
    expect(second.code, second.stderr).toBe(0);
    const rollout = await rolling;
    expect(rollout.code, rollout.stderr + rollout.stdout).toBe(0);
    const out = JSON.parse(rollout.stdout) as {
      steps: { step: string; message: string }[];
      to: string;
      gate: { decision: string; numbers: { withClick: number; candidateAuc: number } };
    };
    expect(out.steps.map((s) => s.step)).toEqual(
      expect.arrayContaining([
        "relevance-shadow-config",
        "relevance-canary-config",
        "gate",
        "switch",
        "done",
      ]),
    );
    // v2 accumulated paired scores beside v1 before it was judged.
    expect(out.gate.decision).toBe("promote");
    expect(out.gate.numbers.withClick).toBeGreaterThanOrEqual(150);
    expect(out.to).toBe(v2);
    expect(await servingModel()).toBe(v2);
    expect(await shadowConfig()).toBeNull();
    // The report still holds the pair v1 → v2 as it was judged.
    const q = await relevance(["quality", ...target(), "--since", "1d", "--json"]);
    const comparisons = JSON.parse(q.stdout).report.comparisons as {
      servingModelId: string;
      shadowModelId: string;
      pairs: number;
    }[];
    expect(comparisons.find((c) => c.servingModelId === v1 && c.shadowModelId === v2)?.pairs).toBeGreaterThan(
      150,
    );
  }, 420_000);

  it("refuses a v3 that predicts the clicks worse, with the numbers, and leaves v2 serving", async () => {
    const v2 = `${account}:products:v2`;
    const v3 = `${account}:products:v3`;
    expect(trainingRows).not.toBe("");
    // The same rows with the label upside down: high where shoppers did not click.
    const inverted = trainingRows
      .trim()
      .split("\n")
      .map((line) => {
        const row = JSON.parse(line) as { label: number };
        return JSON.stringify({ ...row, label: 10 - row.label });
      })
      .join("\n");
    const artifact = await trainAndExport("v3", `${inverted}\n`, v3);
    const rolling = gated(artifact);
    const third = await shop(900, 3);
    expect(third.code, third.stderr).toBe(0);
    const rollout = await rolling;
    expect(rollout.code).toBe(1);
    expect(rollout.stderr).toMatch(
      /refused: candidate AUC 0\.\d{3} is 0\.\d{3} below the serving model's 0\.\d{3}/,
    );
    expect(rollout.stderr).toContain(`${v2} keeps serving products`);
    expect(await servingModel()).toBe(v2);
    expect(await shadowConfig()).toBeNull();
  }, 420_000);
});
