import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const BIN = join(ROOT, "node_modules/.bin/relevance");
const XGB = join(ROOT, "packages/relevance/core/fixtures/xgboost");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "relevance-profile-"));
});

function relevance(args: string[]) {
  const r = spawnSync(BIN, args, { cwd: dir, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const cases = JSON.parse(readFileSync(join(XGB, "missing_values.cases.json"), "utf8")) as {
  feature_names: string[];
  rows: (number | null)[][];
  predictions: number[];
};

/** The fixture's rows as a training file, the last one marked held out and one with a label. */
function trainingLines(): string {
  return cases.rows
    .map((row, i) =>
      JSON.stringify({
        q: `q${i}`,
        features: Object.fromEntries(cases.feature_names.map((n, j) => [n, row[j]])),
        label: i % 2,
        ...(i === cases.rows.length - 1 ? { split: "holdout" } : {}),
      }),
    )
    .join("\n");
}

const exportArgs = (out: string, extra: string[] = []) => [
  "model",
  "export",
  "--from",
  "xgboost",
  "--input",
  join(XGB, "missing_values.model.json"),
  "--model-id",
  "acme:products:v3",
  "--title-field",
  "null",
  "--tags-field",
  "null",
  "--out",
  out,
  ...extra,
];

describe("relevance model export --profile-rows", () => {
  it("stores the training rows' profile, scored by the exported model, the same bytes on every run", () => {
    writeFileSync(join(dir, "features.jsonl"), trainingLines());
    const a = relevance(exportArgs("model-products.json", ["--profile-rows", "features.jsonl"]));
    expect(a.stderr).toBe("");
    expect(a.code).toBe(0);
    const training = cases.rows.length - 1;
    expect(a.stdout).toMatch(new RegExp(`; training profile of ${training} rows\\n$`));
    relevance(exportArgs("again.json", ["--profile-rows", "features.jsonl"]));
    const text = readFileSync(join(dir, "model-products.json"), "utf8");
    expect(readFileSync(join(dir, "again.json"), "utf8")).toBe(text);

    const profile = JSON.parse(text).trainingProfile;
    expect(profile.rows).toBe(training);
    expect(Object.keys(profile.features)).toEqual(cases.feature_names);
    // The score part is the model's predictions on the training rows: their minimum and maximum.
    const scores = cases.predictions.slice(0, training);
    expect(profile.score.edges[0]).toBeCloseTo(Math.min(...scores), 5);
    expect(profile.score.edges.at(-1)).toBeCloseTo(Math.max(...scores), 5);

    const inspected = relevance(["model", "inspect", "--model", "model-products.json"]);
    expect(inspected.stdout).toMatch(new RegExp(`^profile +${training} training rows`, "m"));
    const json = JSON.parse(
      relevance(["model", "inspect", "--model", "model-products.json", "--json"]).stdout,
    );
    expect(json.trainingProfileRows).toBe(training);
  });

  it("leaves the profile out without the flag, and inspect says drift cannot be measured", () => {
    expect(relevance(exportArgs("model-products.json")).code).toBe(0);
    expect("trainingProfile" in JSON.parse(readFileSync(join(dir, "model-products.json"), "utf8"))).toBe(
      false,
    );
    const inspected = relevance(["model", "inspect", "--model", "model-products.json"]);
    expect(inspected.stdout).toMatch(/^profile +none \(drift cannot be measured/m);
  });

  it("refuses a row whose features are not of feature set v1, naming the line", () => {
    writeFileSync(join(dir, "bad.jsonl"), `${trainingLines()}\n{"features": {"price": 3}}\n`);
    const r = relevance(exportArgs("model-products.json", ["--profile-rows", "bad.jsonl"]));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/bad\.jsonl line \d+: features\.price/);
  });
});
