// The whole outcome loop on `npm start`'s demo, every part in its own process as an operator runs
// it: the stack serves scored searches (DEMO=1: the demo shop and its model v1), the simulated
// shopper searches and clicks by its known rule (`npm run demo:shopper`), `relevance quality` reads
// the live report, `relevance features export --from-events` writes the training file, the
// Python-free trainer trains on it (training/train_gbdt.ts), `relevance model export` and
// `relevance rollout` put v2 in service, the shopper searches again and the report shows both
// models side by side.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_TOKEN, type RunningStack, spawnStack } from "@apps/local/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { node, ROOT, relevance as run } from "./test-support.ts";

interface ModelReport {
  modelId: string;
  searches: number;
  calibration: { status: string; groups?: { n: number; clickThrough: { rate: number } }[] };
  kendallTau: { status: string; value?: number; n: number };
  auc: { status: string; value?: number };
}

let stack: RunningStack;
let dataDir: string;
let work: string;
let account: string;
let apiKey: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "outcomes-loop-"));
  work = mkdtempSync(join(tmpdir(), "outcomes-loop-work-"));
  stack = await spawnStack({ DATA_DIR: dataDir, DEMO: "1" });
  const ready = await stack.waitFor((l) => l.message === "demo data ready", 120_000);
  account = ready.systemAccountId as string;
  apiKey = ready.apiKey as string;
}, 180_000);

afterAll(async () => {
  await stack?.kill("SIGTERM");
});

describe("serve, click, export, train, upload, roll out, measure (npm start's demo)", () => {
  const env = () => ({ DATA_DIR: dataDir, PORT: new URL(stack.url).port, ADMIN_TOKEN });
  const relevance = (args: string[]) => run(work, args, env());
  const target = () => ["--env", "local", "--account", account, "--index", "products"];
  const shop = (searches: number, seed: number) =>
    node(
      [
        join(ROOT, "apps/local/src/shopper.ts"),
        "--url",
        stack.url,
        "--data-dir",
        dataDir,
        "--searches",
        String(searches),
        "--seed",
        String(seed),
        "--rate",
        "200",
      ],
      work,
    );
  /** The report once the recorder has written at least `searches` of `modelId`'s searches (it batches each second). */
  const qualityOnce = async (modelId: string, searches: number): Promise<ModelReport[]> => {
    for (let i = 0; ; i++) {
      const r = await relevance(["quality", ...target(), "--since", "1d", "--json"]);
      expect(r.code, r.stderr).toBe(0);
      const models = JSON.parse(r.stdout).report.models as ModelReport[];
      const found = models.find((m) => m.modelId === modelId);
      if ((found?.searches ?? 0) >= searches || i >= 40) return models;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  it("measures the demo model on the shopper's clicks, retrains from them and serves v2", async () => {
    const v1 = `${account}:products:v1`;
    const v2 = `${account}:products:v2`;

    // 1. Shoppers search and click: every answer carries a queryUid, every click is accepted.
    const first = await shop(1000, 1);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/shopper: 1000 searches \(1000 scored/);
    expect(first.stdout).not.toMatch(/without a queryUid|failed|refused/);

    // 2. The live report of the demo model: calibration by decile, τ and AUC with their samples.
    const before = await qualityOnce(v1, 1000);
    const served = before.find((m) => m.modelId === v1) as ModelReport;
    expect(served.searches).toBeGreaterThanOrEqual(1000);
    expect(served.calibration.status).toBe("ok");
    const groups = served.calibration.groups ?? [];
    expect(groups.reduce((s, g) => s + g.n, 0)).toBe(served.searches);
    // The demo model predicts the shopper's clicks: the top-scored decile is clicked more than the bottom one.
    expect((groups.at(-1)?.clickThrough.rate ?? 0) > (groups[0]?.clickThrough.rate ?? 1)).toBe(true);
    expect(served.kendallTau.status).toBe("ok");
    expect(served.kendallTau.value ?? 0).toBeGreaterThan(0.3);
    expect(served.auc.status).toBe("ok");
    const text = await relevance(["quality", ...target(), "--since", "1d"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(v1);
    expect(text.stdout).toMatch(/τ|tau/i);

    // 3. Export the training file from the outcomes: the features as served, the label measured.
    const exported = await relevance([
      "features",
      "export",
      "--from-events",
      ...target(),
      "--since",
      "1d",
      "--out",
      "features.jsonl",
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const rows = readFileSync(join(work, "features.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { label: number; impressions: number; clicks: number; modelId: string });
    expect(rows.length).toBeGreaterThan(50);
    for (const r of rows) {
      expect(r.modelId).toBe(v1);
      expect(r.impressions).toBeGreaterThanOrEqual(5);
      expect(r.label).toBeCloseTo((10 * r.clicks) / r.impressions, 10);
    }

    // 4. Train without Python, export the artifact with its golden rows, roll it out.
    const trained = await node(
      [join(ROOT, "training/train_gbdt.ts"), "--input", "features.jsonl", "--rounds", "60"],
      work,
    );
    expect(trained.code, trained.stderr).toBe(0);
    const metrics = JSON.parse(readFileSync(join(work, "metrics.json"), "utf8"));
    expect(metrics).toBeTypeOf("object");
    const artifact = await relevance([
      "model",
      "export",
      "--from",
      "xgboost",
      "--input",
      "model.json",
      "--golden",
      "golden.jsonl",
      "--model-id",
      v2,
      "--title-field",
      "title",
      "--tags-field",
      "tags",
      "--out",
      "model-products.json",
    ]);
    expect(artifact.code, artifact.stderr).toBe(0);
    const rollout = await relevance([
      "rollout",
      ...target(),
      "--file",
      "model-products.json",
      "--api-key",
      apiKey,
    ]);
    expect(rollout.code, rollout.stderr + rollout.stdout).toBe(0);

    // 5. Shoppers search again: v2 serves, and the report has both models side by side.
    const second = await shop(300, 2);
    expect(second.code, second.stderr).toBe(0);
    const after = await qualityOnce(v2, 300);
    expect(after.find((m) => m.modelId === v2)?.searches).toBeGreaterThanOrEqual(300);
    expect(after.find((m) => m.modelId === v1)?.searches).toBeGreaterThanOrEqual(served.searches);
  }, 300_000);
});
