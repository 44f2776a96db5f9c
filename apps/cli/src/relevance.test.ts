import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = join(ROOT, "node_modules/.bin/relevance");
const XGB = join(ROOT, "packages/relevance/core/fixtures/xgboost");
const LGB = join(ROOT, "packages/relevance/core/fixtures/lightgbm/leaves");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `relevance` bin, as `npx relevance` does, in a fresh process. */
function relevance(args: string[], input?: string, env: Record<string, string> = {}): Run {
  const r = spawnSync(BIN, args, { cwd: dir, input, encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "relevance-cli-"));
});

const cases = (name: string) =>
  JSON.parse(readFileSync(join(XGB, `${name}.cases.json`), "utf8")) as {
    feature_names: string[];
    rows: (number | null)[][];
    predictions: number[];
  };

function featureLines(name: string): string {
  const c = cases(name);
  return c.rows
    .map((row) =>
      JSON.stringify({ features: Object.fromEntries(c.feature_names.map((n, j) => [n, row[j]])) }),
    )
    .join("\n");
}

function exportArgs(name: string, out = "model-products.json"): string[] {
  return [
    "model",
    "export",
    "--from",
    "xgboost",
    "--input",
    join(XGB, `${name}.model.json`),
    "--model-id",
    "acme:products:v3",
    "--title-field",
    "title",
    "--tags-field",
    "null",
    "--out",
    out,
  ];
}

describe("relevance model export | predict | inspect (the real bin in a child process)", () => {
  it("exports an XGBoost model whose predictions equal XGBoost's, through files", () => {
    const exported = relevance(exportArgs("missing_values"));
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/^wrote model-products\.json: acme:products:v3, 30 trees/);
    const artifact = JSON.parse(readFileSync(join(dir, "model-products.json"), "utf8"));
    expect(artifact.trainedOn).toEqual({ titleField: "title", tagsField: null });

    writeFileSync(join(dir, "rows.jsonl"), featureLines("missing_values"));
    const predicted = relevance([
      "model",
      "predict",
      "--model",
      "model-products.json",
      "--input",
      "rows.jsonl",
    ]);
    expect(predicted.code).toBe(0);
    const outputs = predicted.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const expected = cases("missing_values").predictions;
    expect(outputs).toHaveLength(expected.length);
    outputs.forEach((o, i) => {
      expect(Math.abs(o.prediction - (expected[i] as number))).toBeLessThanOrEqual(
        1e-5 * Math.max(1, Math.abs(expected[i] as number)),
      );
      expect(o.score).toBe(Math.min(10, Math.max(0, o.prediction)));
    });
  });

  it("reads rows from standard input with --input -", () => {
    relevance(exportArgs("binary_logistic"));
    const first = featureLines("binary_logistic").split("\n").slice(0, 3).join("\n");
    const r = relevance(["model", "predict", "--model", "model-products.json", "--input", "-"], first);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(3);
  });

  it("refuses to export an artifact above MODEL_MAX_BYTES or --max-bytes, naming its size and the limit, writing nothing", () => {
    const byEnv = relevance(exportArgs("binary_logistic"), undefined, { MODEL_MAX_BYTES: "1000" });
    expect(byEnv.code).toBe(1);
    expect(byEnv.stderr.trim().split("\n")).toHaveLength(1);
    expect(byEnv.stderr).toMatch(
      /the artifact is \d+ bytes, above the limit of 1000 bytes \(MODEL_MAX_BYTES\)/,
    );
    const byFlag = relevance([...exportArgs("binary_logistic"), "--max-bytes", "2000"]);
    expect(byFlag.code).toBe(1);
    expect(byFlag.stderr).toMatch(/above the limit of 2000 bytes/);
    expect(readdirSync(dir)).toEqual([]);
    expect(relevance(exportArgs("binary_logistic"), undefined, { MODEL_MAX_BYTES: "" }).code).toBe(0);
  });

  it("refuses a MODEL_MAX_BYTES above the 25 MiB KV value limit as a usage error", () => {
    const r = relevance(exportArgs("binary_logistic"), undefined, {
      MODEL_MAX_BYTES: String(26 * 1024 * 1024),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/MODEL_MAX_BYTES: must be a whole number of bytes from 1 to 26214400/);
  });

  it("stores the training library's predictions as golden rows with --golden", () => {
    const c = cases("reg_logistic");
    const golden = c.rows
      .slice(0, 10)
      .map((row, i) =>
        JSON.stringify({
          features: Object.fromEntries(c.feature_names.map((n, j) => [n, row[j]])),
          prediction: c.predictions[i],
        }),
      )
      .join("\n");
    writeFileSync(join(dir, "golden.jsonl"), golden);
    const r = relevance([...exportArgs("reg_logistic"), "--golden", "golden.jsonl"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/10 golden rows from xgboost 1\.7\.4 reproduced within 1e-5/);
  });

  it("imports a LightGBM dump given its objective, then refuses feature names outside set v1", () => {
    // The leaves fixture uses non-v1 feature names, so export refuses it after importing.
    const r = relevance([
      "model",
      "export",
      "--from",
      "lightgbm",
      "--input",
      join(LGB, "lg_dart_breast_cancer.json"),
      "--objective",
      "binary",
      "--model-id",
      "a:b:v1",
      "--title-field",
      "null",
      "--tags-field",
      "null",
      "--out",
      "model-b.json",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^relevance model export: cannot export .*: features: feature names outside set v1: Column_0, /,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("inspects an artifact: trees, depth, nodes, features, trained fields, source, size", () => {
    relevance(exportArgs("bench_120x3"));
    const r = relevance(["model", "inspect", "--model", "model-products.json"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/trees\s+120, max depth 3, 1800 nodes \(960 leaves\)/);
    expect(r.stdout).toMatch(/source\s+xgboost 1\.7\.4/);
    expect(r.stdout).toMatch(/trained on\s+titleField "title", tagsField null/);
    expect(r.stdout).toMatch(/size\s+\d+ bytes/);
    const json = JSON.parse(
      relevance(["model", "inspect", "--model", "model-products.json", "--json"]).stdout,
    );
    expect(json.features.map((f: { name: string }) => f.name)).toHaveLength(9);
    expect(r.stdout).toMatch(
      /source\s+xgboost 1\.7\.4, objective reg:squarederror, booster gbtree \(xgboost/,
    );
    expect(r.stdout).toMatch(/output\s+prediction = margin, margin starts at base score = 0\.5\n/);
    expect(json.origin).toEqual({
      library: "xgboost",
      version: "1.7.4",
      booster: "gbtree",
      treeWeights: "none",
      objective: "reg:squarederror",
      transform: "identity",
      baseMargin: 0.5,
    });
  });

  it("inspect names the booster and the folded tree weights of a dart model, and the link", () => {
    for (const [name, version, booster] of [
      ["v3/dart_binary_logistic", "3.4.1", "gbtree"],
      ["v1/dart_binary_logistic", "1.7.4", "dart"],
    ] as const) {
      expect(relevance(exportArgs(name)).code).toBe(0);
      const r = relevance(["model", "inspect", "--model", "model-products.json"]);
      expect(r.stdout).toContain(
        `source        xgboost ${version}, objective binary:logistic, booster ${booster} (tree weights folded into leaves) (xgboost split semantics)\n`,
      );
      expect(r.stdout).toMatch(
        /output\s+prediction = sigmoid\(margin\), margin starts at logit\(base score\) = /,
      );
      const json = JSON.parse(
        relevance(["model", "inspect", "--model", "model-products.json", "--json"]).stdout,
      );
      expect(json.origin).toMatchObject({
        library: "xgboost",
        version,
        booster,
        treeWeights: "folded",
        transform: "sigmoid",
      });
    }
  });

  it("inspect says when a LightGBM model squares its output back (reg_sqrt)", () => {
    const input = join(ROOT, "packages/relevance/core/fixtures/lightgbm/reg_sqrt.model.json");
    const args = [
      "model",
      "export",
      "--from",
      "lightgbm",
      "--input",
      input,
      "--model-id",
      "acme:products:v3",
    ];
    expect(
      relevance([...args, "--title-field", "title", "--tags-field", "null", "--out", "model-products.json"])
        .code,
    ).toBe(0);
    const r = relevance(["model", "inspect", "--model", "model-products.json"]);
    expect(r.stdout).toMatch(/output\s+prediction = sign\(margin\) × margin² \(reg_sqrt\)/);
    const json = JSON.parse(
      relevance(["model", "inspect", "--model", "model-products.json", "--json"]).stdout,
    );
    expect(json).toMatchObject({ objective: "regression", sqrt: true, origin: { library: "lightgbm" } });
  });

  it("prints help listing every command", () => {
    const r = relevance(["--help"]);
    expect(r.code).toBe(0);
    for (const c of [
      "model export",
      "model predict",
      "model inspect",
      "model upload",
      "model get",
      "model delete",
      "config get",
      "config set",
      "config disable",
      "config edit-table",
      "verify",
      "rollout",
      "rollback",
      "prune",
    ])
      expect(r.stdout).toMatch(new RegExp(`^  ${c} +\\S`, "m"));
    const verify = relevance(["verify", "--help"]);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(
      /--env <value> +environment: local, dev, staging, preprod, prod \(required\)/,
    );
    expect(verify.stdout).toMatch(/--json +print one JSON object/);
  });
});

describe("relevance: bad input gives one line on stderr, a non-zero exit, and no output file", () => {
  it("refuses a malformed dart model and writes nothing", () => {
    const doc = JSON.parse(readFileSync(join(XGB, "squarederror_explicit_base.model.json"), "utf8"));
    doc.learner.gradient_booster.name = "dart";
    writeFileSync(join(dir, "dart.json"), JSON.stringify(doc));
    const r = relevance([
      "model",
      "export",
      "--from",
      "xgboost",
      "--input",
      "dart.json",
      "--model-id",
      "a:products:v1",
      "--title-field",
      "title",
      "--tags-field",
      "tags",
      "--out",
      "model-products.json",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^relevance model export: dart\.json: learner\.gradient_booster\.gbtree: must be the \{"name": "gbtree", "model": \.\.\.\} object of a dart booster$/m,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(readdirSync(dir)).toEqual(["dart.json"]);
  });

  it("refuses malformed JSON input without a stack trace", () => {
    writeFileSync(join(dir, "broken.json"), '{"learner": ');
    const r = relevance([
      "model",
      "export",
      "--from",
      "xgboost",
      "--input",
      "broken.json",
      "--model-id",
      "a:p:v1",
      "--title-field",
      "t",
      "--tags-field",
      "null",
      "--out",
      "model-p.json",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^relevance model export: broken\.json is not valid JSON/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, "model-p.json"))).toBe(false);
  });

  it("names the file and line of a bad prediction row, and prints no partial output", () => {
    relevance(exportArgs("squarederror_default_base"));
    const lines = featureLines("squarederror_default_base").split("\n").slice(0, 3);
    lines.push(JSON.stringify({ features: { ...JSON.parse(lines[0] as string).features, jaccard: "high" } }));
    lines.push(JSON.stringify({ features: { ...JSON.parse(lines[0] as string).features, price: 3 } }));
    writeFileSync(join(dir, "rows.jsonl"), lines.join("\n"));
    const r = relevance(["model", "predict", "--model", "model-products.json", "--input", "rows.jsonl"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "relevance model predict: rows.jsonl line 4: features.jaccard: must be a finite number or null (missing), got a string\n",
    );
  });

  it("refuses rows with unknown feature names or absent model features", () => {
    relevance(exportArgs("squarederror_default_base"));
    const r = relevance(
      ["model", "predict", "--model", "model-products.json", "--input", "-"],
      '{"features": {"price": 3}}\n',
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /line 1: features\.price: is not a feature of this model or of feature set v1 \(and 9 more\)/,
    );
  });

  it("refuses a corrupted artifact when predicting", () => {
    relevance(exportArgs("squarederror_default_base"));
    const artifact = JSON.parse(readFileSync(join(dir, "model-products.json"), "utf8"));
    artifact.trees[4].left[0] = 999;
    writeFileSync(join(dir, "model-products.json"), JSON.stringify(artifact));
    const r = relevance(["model", "predict", "--model", "model-products.json", "--input", "-"], "");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "relevance model predict: model-products.json: trees[4].left[0]: child index 999 is out of range (the tree has 31 nodes)\n",
    );
  });

  it("says which file it cannot read", () => {
    const r = relevance(["model", "inspect", "--model", "nope.json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("relevance model inspect: cannot read nope.json: no such file\n");
  });

  it("treats unknown flags, missing flags and unknown commands as usage errors (exit 2)", () => {
    expect(relevance(["model", "predict", "--model", "m.json"]).stderr).toMatch(/--input is required/);
    expect(relevance(["model", "predict", "--model", "m.json", "--input", "-", "--fast"]).code).toBe(2);
    expect(relevance(["model", "train"]).code).toBe(2);
    expect(
      relevance([
        "model",
        "export",
        "--from",
        "catboost",
        "--input",
        "x",
        "--model-id",
        "a",
        "--title-field",
        "t",
        "--tags-field",
        "t",
        "--out",
        "o",
      ]).stderr,
    ).toMatch(/--from must be xgboost or lightgbm/);
  });
});
