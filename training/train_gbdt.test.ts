import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Io, nodeIo } from "../apps/cli/src/io.ts";
import { runRelevance } from "../apps/cli/src/relevance.ts";
import { compileModel } from "../packages/relevance/core/src/artifact/compile.ts";
import { importXgboost } from "../packages/relevance/core/src/import/xgboost.ts";
import { mulberry32 as random } from "../packages/shared/kernel/src/seeded-random.ts";
import { FEATURES, predict, type Row, readRows, trainFromRows } from "./train_gbdt.ts";

/**
 * Rows whose label is a known function of three features plus noise: a step in jaccard, a slope
 * in title_coverage, nothing from the rest. `missingEvery` leaves topic_coherence out of some rows.
 */
function knownRows(count: number, seed: number, missingEvery = 0): Row[] {
  const r = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const values = FEATURES.map(() => r());
    values[1] = Math.floor(r() * 21); // hit_count
    if (missingEvery > 0 && i % missingEvery === 0) values[6] = Number.NaN;
    const label = (values[3] as number) > 0.5 ? 7 : 2;
    const y = label + 2 * (values[4] as number) + (r() - 0.5);
    const features = Object.fromEntries(
      FEATURES.map((n, k) => [n, Number.isNaN(values[k] as number) ? null : (values[k] as number)]),
    );
    return { values, label: y, split: null, features };
  });
}

const CATALOG = { rounds: 60, maxDepth: 3, eta: 0.2, minChildWeight: 3 };

describe("train_gbdt", () => {
  it("learns a known function far better than a constant on held-out rows", () => {
    const { metrics } = trainFromRows(knownRows(1000, 7), CATALOG);
    const m = metrics as { model: { rmse: number; spearman: number }; constantBaseline: { rmse: number } };
    // The noise alone is uniform on ±0.5: an RMSE of 0.29 is the floor; a constant is near 2.7.
    expect(m.constantBaseline.rmse).toBeGreaterThan(2.5);
    expect(m.model.rmse).toBeLessThan(0.5);
    expect(m.model.spearman).toBeGreaterThan(0.95);
  });

  it("writes a model `relevance model export --from xgboost --golden` accepts, the golden rows reproduced", async () => {
    const rows = knownRows(600, 11, 7);
    const result = trainFromRows(rows, CATALOG, 16);
    const dir = mkdtempSync(join(tmpdir(), "train-gbdt-"));
    writeFileSync(join(dir, "model.json"), JSON.stringify(result.xgboostJson));
    writeFileSync(join(dir, "golden.jsonl"), result.golden.map((g) => `${JSON.stringify(g)}\n`).join(""));
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = { ...nodeIo(), out: (t) => out.push(t), err: (t) => err.push(t) };
    const code = await runRelevance(
      [
        "model",
        "export",
        "--from",
        "xgboost",
        "--input",
        join(dir, "model.json"),
        "--model-id",
        "demo:products:v2",
        "--title-field",
        "title",
        "--tags-field",
        "tags",
        "--golden",
        join(dir, "golden.jsonl"),
        "--out",
        join(dir, "model-products.json"),
      ],
      io,
    );
    expect(err.join(""), err.join("")).not.toMatch(/error|cannot/);
    expect(code).toBe(0);
    expect(out.join("")).toMatch(/16 golden rows .* reproduced within 1e-5/);
    expect(JSON.parse(readFileSync(join(dir, "model-products.json"), "utf8")).modelId).toBe(
      "demo:products:v2",
    );
  });

  it("predicts, bit for bit, what the imported model predicts, missing values included", () => {
    const result = trainFromRows(knownRows(400, 3, 5), CATALOG);
    expect(result.model.trees).toHaveLength(CATALOG.rounds);
    const draft = importXgboost(JSON.parse(JSON.stringify(result.xgboostJson)));
    if (!draft.ok) throw new Error(JSON.stringify(draft.errors));
    const compiled = compileModel(draft.value);
    for (const row of knownRows(200, 99, 4)) {
      expect(compiled.predict(row.values)).toBe(predict(result.model, row.values));
    }
  });

  it("is deterministic: the same rows and seed give the same file", () => {
    const rows = knownRows(300, 5);
    const a = JSON.stringify(trainFromRows(rows, { ...CATALOG, subsample: 0.8, seed: 1 }).xgboostJson);
    const b = JSON.stringify(trainFromRows(rows, { ...CATALOG, subsample: 0.8, seed: 1 }).xgboostJson);
    const c = JSON.stringify(trainFromRows(rows, { ...CATALOG, subsample: 0.8, seed: 2 }).xgboostJson);
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it("reads features.jsonl as train_xgboost.py does: unlabelled rows skipped, bad rows named", () => {
    const line = (o: object) => `${JSON.stringify(o)}\n`;
    const features = Object.fromEntries(FEATURES.map((n) => [n, 1]));
    const rows = readRows(
      line({ q: "a", features, label: 3, split: "holdout" }) + line({ q: "b", features }) + "\n",
      "f.jsonl",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.split).toBe("holdout");
    expect(() => readRows(line({ q: "a", features: { nope: 1 }, label: 1 }), "f.jsonl")).toThrow(
      /f.jsonl line 1: features outside set v1: nope/,
    );
    expect(() => readRows(line({ q: "a", features, label: "x" }), "f.jsonl")).toThrow(
      /label must be a finite number/,
    );
  });
});
