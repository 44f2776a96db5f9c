// Relevance-core micro-benchmarks (docs/benchmarks.md). Run with `npm run bench`.
// Targets are reported, never asserted: the exit code is 0 even when one is missed.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import type { CompiledModel, FeatureInput } from "../../packages/relevance/core/src/index.ts";
import {
  buildArtifact,
  computeFeaturesV1,
  FEATURE_SET_V1,
  formatIssues,
  importXgboost,
  loadArtifact,
  withinTolerance,
} from "../../packages/relevance/core/src/index.ts";
import { mulberry32 } from "../../packages/relevance/core/src/test-support/prng.ts";
import { percentile } from "./report.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURES = `${ROOT}packages/relevance/core/fixtures/xgboost/`;
const RESULTS_DIR = `${ROOT}bench-results/`;
const PYTHON = "/usr/bin/python3";

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

/** Accumulates every result so the JIT cannot drop the measured work. */
let sink = 0;

interface Stats {
  /** Median per-operation time over the samples, in microseconds. */
  medianUs: number;
  /** p99 (nearest rank) of the per-sample means, in microseconds. */
  p99Us: number;
  minUs: number;
  maxUs: number;
  samples: number;
  /** Operations per sample: each sample is the mean of this many back-to-back calls. */
  opsPerSample: number;
}

/**
 * `run(n)` performs n operations and returns a number derived from their results. We warm up,
 * then time `samples` runs of `opsPerSample` operations each and keep the per-operation mean of
 * each run; the statistics are over those means.
 */
function measure(
  run: (n: number) => number,
  opts: { opsPerSample: number; samples: number; warmupOps: number },
): Stats {
  sink += run(opts.warmupOps);
  const perOp: number[] = [];
  for (let s = 0; s < opts.samples; s++) {
    const t0 = process.hrtime.bigint();
    sink += run(opts.opsPerSample);
    const t1 = process.hrtime.bigint();
    perOp.push(Number(t1 - t0) / 1e3 / opts.opsPerSample);
  }
  perOp.sort((a, b) => a - b);
  return {
    medianUs: percentile(perOp, 50),
    p99Us: percentile(perOp, 99),
    minUs: perOp[0] as number,
    maxUs: perOp[perOp.length - 1] as number,
    samples: opts.samples,
    opsPerSample: opts.opsPerSample,
  };
}

// ---------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------

interface Cases {
  feature_names: string[];
  rows: (number | null)[][];
  predictions: number[];
}

interface BenchModel {
  name: string;
  text: string;
  bytes: number;
  model: CompiledModel;
  rows: Float64Array[];
  /** The same rows as canonical feature-set-v1 vectors, for predictV1. */
  v1Rows: Float64Array[];
}

function prepareModel(name: string): BenchModel {
  const modelJson: unknown = JSON.parse(readFileSync(`${FIXTURES}${name}.model.json`, "utf8"));
  const cases = JSON.parse(readFileSync(`${FIXTURES}${name}.cases.json`, "utf8")) as Cases;
  const draft = importXgboost(modelJson);
  if (!draft.ok) throw new Error(`${name}: import failed: ${formatIssues(draft.errors)}`);
  const built = buildArtifact(draft.value, {
    modelId: "bench:products:v1",
    titleField: "title",
    tagsField: "tags",
  });
  if (!built.ok) throw new Error(`${name}: buildArtifact failed: ${formatIssues(built.errors)}`);
  const loaded = loadArtifact(built.value.text);
  if (!loaded.ok) throw new Error(`${name}: loadArtifact failed: ${formatIssues(loaded.errors)}`);
  const model = loaded.value.model;
  const rows = cases.rows.map((r) => Float64Array.from(r, (v) => (v === null ? Number.NaN : v)));
  const v1Rows = rows.map((row) => {
    const v = new Float64Array(FEATURE_SET_V1.length);
    FEATURE_SET_V1.forEach((f, k) => {
      const j = cases.feature_names.indexOf(f);
      v[k] = j < 0 ? Number.NaN : (row[j] as number);
    });
    return v;
  });
  // Sanity: a benchmark of a wrong predictor is worthless.
  rows.forEach((row, i) => {
    const expected = cases.predictions[i] as number;
    const got = model.predict(row);
    const gotV1 = model.predictV1(v1Rows[i] as Float64Array);
    if (!withinTolerance(got, expected) || !withinTolerance(gotV1, expected)) {
      throw new Error(`${name} row ${i}: predicted ${got} / ${gotV1}, XGBoost ${expected}`);
    }
  });
  return { name, text: built.value.text, bytes: built.value.bytes, model, rows, v1Rows };
}

function predictRunner(model: CompiledModel, rows: readonly Float64Array[]): (n: number) => number {
  let i = 0;
  return (n) => {
    let sum = 0;
    for (let k = 0; k < n; k++) {
      sum += model.predict(rows[i] as Float64Array);
      if (++i === rows.length) i = 0;
    }
    return sum;
  };
}

function predictV1Runner(model: CompiledModel, rows: readonly Float64Array[]): (n: number) => number {
  let i = 0;
  return (n) => {
    let sum = 0;
    for (let k = 0; k < n; k++) {
      sum += model.predictV1(rows[i] as Float64Array);
      if (++i === rows.length) i = 0;
    }
    return sum;
  };
}

function loadRunner(text: string, checkGolden: boolean): (n: number) => number {
  return (n) => {
    let sum = 0;
    for (let k = 0; k < n; k++) {
      const r = loadArtifact(text, { checkGolden });
      if (!r.ok) throw new Error(`loadArtifact failed: ${formatIssues(r.errors)}`);
      sum += r.value.model.numNodes;
    }
    return sum;
  };
}

// ---------------------------------------------------------------------------------------------
// Deterministic hits for computeFeaturesV1
// ---------------------------------------------------------------------------------------------

const WORDS = `
wireless bluetooth headphones earbuds speaker portable waterproof charger cable usb adapter
laptop notebook tablet phone case cover screen protector keyboard mouse monitor stand desk
chair office ergonomic lamp led light bulb smart home camera security doorbell router mesh
coffee maker espresso machine grinder kettle electric toaster blender mixer kitchen knife
set stainless steel pan pot frying nonstick cast iron skillet baking tray oven glove apron
towel bath cotton linen bed sheet pillow duvet blanket throw cushion curtain rug carpet
sofa table dining wooden oak walnut pine bamboo glass ceramic mug cup bowl plate spoon fork
running shoes sneakers boots sandals hiking trail jacket rain coat winter down vest hoodie
shirt sweater jeans shorts trousers dress skirt sock hat cap scarf gloves belt wallet bag
backpack travel suitcase carry luggage duffel tote leather canvas nylon black white grey
red blue green navy beige brown pink yellow orange purple silver gold rose small medium
large extra slim fit classic vintage modern premium pro max mini ultra lite plus kids men
women unisex baby toddler toy puzzle game board card lego building blocks dinosaur doll
book novel cookbook guide edition hardcover paperback notebook pen pencil marker paint
brush canvas easel garden hose plant pot seeds soil fertilizer lawn mower trimmer drill
driver screwdriver hammer wrench tool kit toolbox battery rechargeable solar power bank
yoga mat dumbbell kettlebell resistance band bike helmet bottle water thermos flask tent
sleeping camping stove lantern fishing rod reel dog cat pet food treats leash collar bed
shampoo conditioner soap lotion cream serum sunscreen razor trimmer toothbrush perfume
organic vegan gluten free tea green chocolate dark honey olive oil pasta rice spice
2024 4k hd 1080p 256gb 512gb 1tb 10w 65w x200 v2
café crème brûlée größe weiß schwarz müsli käse bücher straße naïve jalapeño
日本 東京 抹茶 緑茶 ラーメン 寿司 한국 서울 中文 北京
`
  .trim()
  .split(/\s+/);

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const intIn = (rand: () => number, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

/** Title-case some words and join a few with punctuation, as shop titles do. */
function titleWord(rand: () => number, word: string): string {
  const r = rand();
  if (r < 0.3) return word.charAt(0).toUpperCase() + word.slice(1);
  if (r < 0.35) return word.toUpperCase();
  return word;
}

function makeInput(rand: () => number, hitCount: number): FeatureInput {
  const query = Array.from({ length: intIn(rand, 2, 4) }, () => pick(rand, WORDS));
  const hits = Array.from({ length: hitCount }, (_, i) => {
    const words = Array.from({ length: intIn(rand, 4, 10) }, () => pick(rand, WORDS));
    // Search results usually contain some query words, and the first ones more often.
    const relevance = 0.8 - (0.5 * i) / Math.max(1, hitCount);
    for (const q of query) if (rand() < relevance) words[intIn(rand, 0, words.length - 1)] = q;
    const title = words.map((w) => titleWord(rand, w)).join(rand() < 0.2 ? " - " : " ");
    const tags = Array.from({ length: intIn(rand, 2, 6) }, () =>
      rand() < 0.2 ? `${pick(rand, WORDS)} ${pick(rand, WORDS)}` : pick(rand, WORDS),
    );
    return { id: `sku-${hitCount}-${i}`, title, tags, price: Math.round(rand() * 50000) / 100 };
  });
  return {
    query: query.map((w) => titleWord(rand, w)).join(" "),
    hits,
    estimatedTotalHits: hitCount + Math.floor(rand() * 100000),
    titleField: "title",
    tagsField: "tags",
  };
}

function featuresRunner(inputs: readonly FeatureInput[]): (n: number) => number {
  const out = new Float64Array(9);
  let i = 0;
  return (n) => {
    let sum = 0;
    for (let k = 0; k < n; k++) {
      computeFeaturesV1(inputs[i] as FeatureInput, out);
      sum += (out[3] as number) + (out[6] as number) + (out[7] as number);
      if (++i === inputs.length) i = 0;
    }
    return sum;
  };
}

// ---------------------------------------------------------------------------------------------
// XGBoost reference
// ---------------------------------------------------------------------------------------------

interface XgboostTimings {
  xgboost_version: string;
  single_row_inplace_us: number;
  single_row_dmatrix_us: number;
  batch_per_row_us: number;
  batch_rows: number;
}

function xgboostAvailable(): boolean {
  try {
    execFileSync(PYTHON, ["-c", "import xgboost"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function runXgboost(name: string): XgboostTimings {
  const out = execFileSync(PYTHON, ["bench_xgboost.py", `${name}.model.json`, `${name}.cases.json`], {
    cwd: FIXTURES,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(out.trim().split("\n").pop() as string) as XgboostTimings;
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

interface Line {
  operation: string;
  stats: Stats;
  /** Target median in microseconds; undefined for informational lines. */
  targetUs?: number;
}

const fmtUs = (us: number): string =>
  us < 1
    ? `${(us * 1000).toFixed(0)} ns`
    : us < 1000
      ? `${us.toFixed(2)} µs`
      : `${(us / 1000).toFixed(3)} ms`;

function status(line: Line): "ok" | "MISSED" | "-" {
  if (line.targetUs === undefined) return "-";
  return line.stats.medianUs <= line.targetUs ? "ok" : "MISSED";
}

function printTable(lines: readonly Line[]): void {
  const rows = [
    ["operation", "median", "p99", "target", "result"],
    ...lines.map((l) => [
      l.operation,
      fmtUs(l.stats.medianUs),
      fmtUs(l.stats.p99Us),
      l.targetUs === undefined ? "-" : `≤ ${fmtUs(l.targetUs)}`,
      status(l),
    ]),
  ];
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] as string).length))) ?? [];
  const fmt = (r: string[]): string =>
    r
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number)))
      .join("  ");
  console.log(fmt(rows[0] as string[]));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows.slice(1)) console.log(fmt(r));
}

function main(): void {
  const started = Date.now();
  const m120 = prepareModel("bench_120x3");
  const m300 = prepareModel("bench_300x6");
  const lines: Line[] = [];
  const add = (operation: string, stats: Stats, targetUs?: number): Stats => {
    const line: Line = { operation, stats };
    if (targetUs !== undefined) line.targetUs = targetUs;
    lines.push(line);
    process.stderr.write(`  ${operation}: ${fmtUs(stats.medianUs)}\n`);
    return stats;
  };

  // 1. Predict one row (batched: a sample is the mean of many back-to-back calls).
  const p120 = add(
    `predict 120 trees depth 3 (${m120.model.numNodes} nodes)`,
    measure(predictRunner(m120.model, m120.rows), { opsPerSample: 10_000, samples: 101, warmupOps: 200_000 }),
    0.5,
  );
  const p300 = add(
    `predict 300 trees depth 6 (${m300.model.numNodes} nodes)`,
    measure(predictRunner(m300.model, m300.rows), { opsPerSample: 2_000, samples: 101, warmupOps: 40_000 }),
    10,
  );
  add(
    "predictV1 120x3 (canonical v1 vector)",
    measure(predictV1Runner(m120.model, m120.v1Rows), {
      opsPerSample: 10_000,
      samples: 101,
      warmupOps: 200_000,
    }),
  );
  add(
    "predictV1 300x6 (canonical v1 vector)",
    measure(predictV1Runner(m300.model, m300.v1Rows), {
      opsPerSample: 2_000,
      samples: 101,
      warmupOps: 40_000,
    }),
  );

  // 2. Load = JSON.parse + validate + compile (each sample is one call).
  const kb = m120.bytes / 1024;
  add(
    `load 120x3 artifact (${kb.toFixed(1)} KB)`,
    measure(loadRunner(m120.text, false), { opsPerSample: 1, samples: 301, warmupOps: 100 }),
    1000,
  );
  add(
    "load 120x3 artifact, checkGolden: true",
    measure(loadRunner(m120.text, true), { opsPerSample: 1, samples: 301, warmupOps: 100 }),
  );
  add(
    `load 300x6 artifact (${(m300.bytes / 1024).toFixed(0)} KB)`,
    measure(loadRunner(m300.text, false), { opsPerSample: 1, samples: 51, warmupOps: 10 }),
  );

  // 3. Features over deterministic synthetic result sets (cycled so inputs vary).
  const rand = mulberry32(0x5eed);
  const inputs20 = Array.from({ length: 64 }, () => makeInput(rand, 20));
  const inputs100 = Array.from({ length: 32 }, () => makeInput(rand, 100));
  add(
    "computeFeaturesV1, 20 hits",
    measure(featuresRunner(inputs20), { opsPerSample: 20, samples: 301, warmupOps: 5_000 }),
    20,
  );
  add(
    "computeFeaturesV1, 100 hits",
    measure(featuresRunner(inputs100), { opsPerSample: 4, samples: 301, warmupOps: 1_000 }),
    200,
  );

  // 4. XGBoost's own numbers (after our timings, so the two never share the CPU).
  let xgboost: Record<string, unknown> = { available: false };
  const ratios: { model: string; oursUs: number; xgb: XgboostTimings }[] = [];
  if (xgboostAvailable()) {
    const x120 = runXgboost("bench_120x3");
    const x300 = runXgboost("bench_300x6");
    ratios.push({ model: "bench_120x3", oursUs: p120.medianUs, xgb: x120 });
    ratios.push({ model: "bench_300x6", oursUs: p300.medianUs, xgb: x300 });
    xgboost = {
      available: true,
      version: x120.xgboost_version,
      models: Object.fromEntries(
        ratios.map((r) => [
          r.model,
          {
            ...r.xgb,
            oursPredictMedianUs: r.oursUs,
            ratioVsSingleRowInplace: r.oursUs / r.xgb.single_row_inplace_us,
            ratioVsSingleRowDmatrix: r.oursUs / r.xgb.single_row_dmatrix_us,
            ratioVsBatchPerRow: r.oursUs / r.xgb.batch_per_row_us,
          },
        ]),
      ),
    };
  }

  const machine = {
    cpu: os.cpus()[0]?.model ?? "unknown",
    cpus: os.cpus().length,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
  };

  console.log(`\nrelevance-core benchmark — ${new Date().toISOString()}`);
  console.log(`${machine.cpu} (${machine.cpus} CPUs), ${machine.platform}, Node ${machine.node}\n`);
  printTable(lines);
  if (ratios.length > 0) {
    console.log(`\nXGBoost ${(xgboost as { version: string }).version} (nthread=1), ratio = ours / xgboost`);
    const rows = [
      ["model", "ours predict", "xgb 1-row inplace", "ratio", "xgb batch/row", "ratio"],
      ...ratios.map((r) => [
        r.model,
        fmtUs(r.oursUs),
        fmtUs(r.xgb.single_row_inplace_us),
        (r.oursUs / r.xgb.single_row_inplace_us).toFixed(4),
        fmtUs(r.xgb.batch_per_row_us),
        (r.oursUs / r.xgb.batch_per_row_us).toFixed(2),
      ]),
    ];
    const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] as string).length))) ?? [];
    for (const r of rows) {
      console.log(
        r
          .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)))
          .join("  "),
      );
    }
  } else {
    console.log("\nXGBoost reference skipped: `/usr/bin/python3 -c 'import xgboost'` failed.");
  }

  const missed = lines.filter((l) => status(l) === "MISSED");
  console.log(
    missed.length === 0
      ? "\nAll targets met."
      : `\nMISSED ${missed.length} target(s): ${missed.map((l) => l.operation).join("; ")}`,
  );

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `${RESULTS_DIR}relevance-core.json`;
  const report = {
    date: new Date().toISOString(),
    machine,
    artifact120x3: { bytes: m120.bytes, kb: kb },
    artifact300x6: { bytes: m300.bytes, kb: m300.bytes / 1024 },
    results: lines.map((l) => ({
      operation: l.operation,
      ...l.stats,
      targetUs: l.targetUs ?? null,
      status: status(l),
    })),
    xgboost,
    missed: missed.map((l) => l.operation),
    durationSeconds: (Date.now() - started) / 1000,
    sink,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`Results written to ${file} (${report.durationSeconds.toFixed(1)} s)`);
}

main();
