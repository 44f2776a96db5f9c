// The demo: the committed model (training/demo/) and npm start's first-start seeding.
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadArtifact, rowFromRecord } from "@relevance/core";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_QUERY, DEMO_TRAINING_DIR, demoArtifact, demoModelId } from "./demo.ts";
import { generateDemoQueries } from "./demo-queries.ts";
import { type RunningStack, spawnStack } from "./test-support.ts";

const training = (name: string) => readFileSync(join(DEMO_TRAINING_DIR, name), "utf8");
const jsonLines = <T>(name: string): T[] =>
  training(name)
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);

function ranks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]?.[0] === order[i]?.[0]) j++;
    for (let k = i; k <= j; k++) r[order[k]?.[1] as number] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

function pearson(a: readonly number[], b: readonly number[]): number {
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(a);
  const mb = mean(b);
  let num = 0;
  let da = 0;
  let db = 0;
  a.forEach((x, i) => {
    const y = b[i] as number;
    num += (x - ma) * (y - mb);
    da += (x - ma) ** 2;
    db += (y - mb) ** 2;
  });
  return num / Math.sqrt(da * db);
}

const rmse = (p: readonly number[], y: readonly number[]) =>
  Math.sqrt(p.reduce((s, x, i) => s + (x - (y[i] as number)) ** 2, 0) / p.length);

describe("the committed demo model (training/demo/)", () => {
  const committed = training("model-products.json");

  it("loads and reproduces its golden rows (XGBoost's own predictions)", () => {
    const loaded = loadArtifact(committed, { checkGolden: true });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const { artifact } = loaded.value;
    expect(artifact.modelId).toBe("demo:products:v1");
    expect(artifact.index).toBe("products");
    expect(artifact.trainedOn).toEqual({ titleField: "title", tagsField: "tags" });
    expect(artifact.golden.source).toMatch(/^xgboost \d/);
    expect(artifact.golden.rows).toEqual(jsonLines("golden.jsonl"));
  });

  it("is what npm start uploads, except for the account in the model id", () => {
    const seeded = JSON.parse(demoArtifact("acct_0123456789ab"));
    expect(seeded.modelId).toBe(demoModelId("acct_0123456789ab"));
    expect({ ...seeded, modelId: "demo:products:v1" }).toEqual(JSON.parse(committed));
  });

  it("has the held-out metrics of metrics.json, recomputed here with the engine", () => {
    const metrics = JSON.parse(training("metrics.json"));
    const rows = jsonLines<{ features: Record<string, number>; label: number; split: string }>(
      "features.jsonl",
    );
    const loaded = loadArtifact(committed);
    if (!loaded.ok) throw new Error("the committed model does not load");
    const { model } = loaded.value;
    const held = rows.filter((r) => r.split === "holdout");
    const train = rows.filter((r) => r.split === "train");
    expect(held.length).toBe(metrics.rows.heldOut);
    expect(train.length).toBe(metrics.rows.train);
    const predictions = held.map((r) => {
      const row = rowFromRecord(model.features, r.features);
      if (!row.ok) throw new Error("row");
      return model.predict(row.value);
    });
    const labels = held.map((r) => r.label);
    expect(rmse(predictions, labels)).toBeCloseTo(metrics.model.rmse, 4);
    expect(pearson(ranks(predictions), ranks(labels))).toBeCloseTo(metrics.model.spearman, 4);
    const constant = train.reduce((s, r) => s + r.label, 0) / train.length;
    expect(constant).toBeCloseTo(metrics.constantBaseline.value, 5);
    expect(
      rmse(
        held.map(() => constant),
        labels,
      ),
    ).toBeCloseTo(metrics.constantBaseline.rmse, 5);
    expect(metrics.model.rmse).toBeLessThan(metrics.constantBaseline.rmse);
  });

  it("was trained on the generated queries, whose labels are measured (0 to 10 in steps of 1)", () => {
    const queries = jsonLines<Record<string, unknown>>("queries.jsonl");
    expect(queries.map(({ label: _, ...q }) => q)).toEqual(generateDemoQueries());
    for (const q of queries) expect(Number.isInteger(q.label) && (q.label as number) <= 10).toBe(true);
    expect(jsonLines<{ q: string }>("features.jsonl").map((r) => r.q)).toEqual(queries.map((q) => q.q));
  });
});

describe("npm start with DEMO=1 on an empty data folder", () => {
  const running: RunningStack[] = [];
  afterAll(async () => {
    for (const s of running) await s.kill("SIGTERM");
  });

  /** Runs the printed curl with fetch: its URL, headers and body, as the shell would send them. */
  async function runCurl(curl: string) {
    const m = /^curl -s -X POST (\S+) -H @'([^']+)' -H '([^']+)' -d '([^']+)'$/.exec(curl);
    if (m === null) throw new Error(`not the expected curl: ${curl}`);
    expect(curl).not.toMatch(/rk_/);
    // The key's header line, owner-only, as curl's -H @file reads it.
    const file = m[2] as string;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const header = (h: string) => h.trim().split(": ") as [string, string];
    const res = await fetch(m[1] as string, {
      method: "POST",
      headers: Object.fromEntries([header(readFileSync(file, "utf8")), header(m[3] as string)]),
      body: m[4],
    });
    const body = (await res.json()) as { query: string; hits: unknown[]; relevanceScore?: number };
    return { status: res.status, model: res.headers.get("x-relevance-model"), body };
  }

  it("ends with a working scored-search curl, and a restart reuses the demo account and model", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "demo-start-"));
    const t0 = performance.now();
    const first = await spawnStack({ DATA_DIR: dataDir, DEMO: "1" });
    running.push(first);
    const ready = await first.waitFor(
      (l) => typeof l.curl === "string" && l.message !== "demo data ready",
      20_000,
    );
    const firstStartMs = performance.now() - t0;
    expect(ready.firstStart).toBe(true);
    expect(ready.model).toBe("uploaded");
    expect(ready.modelId).toBe(demoModelId(ready.account as string));
    expect(first.lines.every((l) => !("raw" in l))).toBe(true); // every log line is JSON

    const scored = await runCurl(ready.curl as string);
    expect(scored.status).toBe(200);
    expect(scored.body.query).toBe(DEMO_QUERY);
    expect(scored.body.hits).toHaveLength(20);
    expect(scored.body.relevanceScore).toBeGreaterThanOrEqual(0);
    expect(scored.body.relevanceScore).toBeLessThanOrEqual(10);
    expect(scored.model).toBe(ready.modelId);
    // The alias is configured too.
    const viaAlias = await runCurl((ready.curl as string).replace("/indexes/products/", "/indexes/catalog/"));
    expect(viaAlias.model).toBe(ready.modelId);
    expect(viaAlias.body.relevanceScore).toBe(scored.body.relevanceScore);
    const count = await fetch(`${first.url}/api/v1/indexes/products/documents?limit=1`, {
      headers: {
        "x-api-key": (await first.waitFor((l) => l.message === "demo data ready")).apiKey as string,
      },
    });
    expect(((await count.json()) as { total: number }).total).toBe(10_000);
    await first.kill("SIGTERM");

    const second = await spawnStack({ DATA_DIR: dataDir, DEMO: "1" });
    running.push(second);
    const again = await second.waitFor(
      (l) => typeof l.curl === "string" && l.message !== "demo data ready",
      20_000,
    );
    expect(again.firstStart).toBe(false);
    expect(again.model).toBe("present");
    expect(again.account).toBe(ready.account);
    const rescored = await runCurl(again.curl as string);
    expect(rescored.body.relevanceScore).toBe(scored.body.relevanceScore);
    process.stdout.write(`first start to a scored search: ${Math.round(firstStartMs)} ms\n`);
  }, 45_000);
});
