// Trains a relevance model without Python: a small gradient-boosted regression-tree trainer
// (squared error, exact greedy splits, depth-limited, learning rate, L2 on leaf weights) that writes
// XGBoost's save_model JSON, so `relevance model export --from xgboost` imports it like a model from
// training/train_xgboost.py. That script stays the main path; this one needs nothing but Node, so
// tests and machines without XGBoost can run the whole loop.
//
// Reads the same JSON lines ({"q", "features": {name: number}, "label", "split"?}) and writes the
// same three files:
//
//   model.json     XGBoost 1.7 save_model JSON (objective reg:squarederror, base_score = the
//                  training labels' mean)
//   golden.jsonl   {"features", "prediction"} for held-out rows, as the exported artifact must
//                  predict them (`--golden`)
//   metrics.json   held-out RMSE and Spearman of the model and of a constant baseline
//
// Held-out rows: "split": "holdout" when any row has a split, else every fifth labelled row. The
// trainer follows XGBoost's float32 arithmetic where predictions are made: features and thresholds
// are compared as float32 (x < threshold goes left), leaf values are float32 and the trees' outputs
// are summed in float32, so what it predicts is what the artifact predicts. Deterministic: rows are
// subsampled only with --subsample < 1, by a PRNG seeded with --seed.
//
//   node training/train_gbdt.ts --input features.jsonl [--model-out model.json] [--golden-out golden.jsonl]
//     [--metrics-out metrics.json] [--rounds 150] [--max-depth 4] [--eta 0.05] [--min-child-weight 5]
//     [--lambda 1] [--subsample 1] [--seed 42] [--golden-rows 32]
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { FEATURE_SET_V1 } from "../packages/relevance/core/src/features.ts";
// mulberry32: a subsampled training run is the same every time.
import { mulberry32 as prng } from "../packages/shared/kernel/src/seeded-random.ts";

export const FEATURES: readonly string[] = FEATURE_SET_V1;
const f32 = Math.fround;

export interface Row {
  /** Feature set v1 in its canonical order; NaN = missing. */
  values: number[];
  label: number;
  split: "train" | "holdout" | null;
  features: Record<string, number | null>;
}

export interface GbdtParams {
  rounds: number;
  maxDepth: number;
  eta: number;
  minChildWeight: number;
  lambda: number;
  subsample: number;
  seed: number;
}

export const DEFAULT_PARAMS: GbdtParams = {
  rounds: 150,
  maxDepth: 4,
  eta: 0.05,
  minChildWeight: 5,
  lambda: 1,
  subsample: 1,
  seed: 42,
};

/** One tree in XGBoost's array layout: node 0 is the root; a leaf has left = right = -1. */
export interface Tree {
  left: number[];
  right: number[];
  feature: number[];
  /** Threshold of a split (float32), or the leaf's value (float32, learning rate applied). */
  value: number[];
  /** Where a missing value goes: always left here (missing values are grouped with the left side). */
  defaultLeft: number[];
  parent: number[];
  gain: number[];
  hessian: number[];
  /** Each node's unscaled weight, -G / (H + lambda): XGBoost's base_weights. */
  weight: number[];
}

export interface GbdtModel {
  /** The starting prediction (float32): the training labels' mean. */
  base: number;
  trees: Tree[];
  params: GbdtParams;
}

export class TrainingInputError extends Error {}

/** Parses the JSON lines train_xgboost.py reads; rows without a label are skipped, as there. */
export function readRows(text: string, path: string): Row[] {
  const rows: Row[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${path} line ${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new TrainingInputError(`${where}: not valid JSON`);
    }
    const r = row as { features?: unknown; label?: unknown; split?: unknown };
    if (typeof row !== "object" || row === null || typeof r.features !== "object" || r.features === null)
      throw new TrainingInputError(
        `${where}: must be an object with features (the output of relevance features log or export)`,
      );
    const features = r.features as Record<string, unknown>;
    const unknown = Object.keys(features).filter((k) => !FEATURES.includes(k));
    if (unknown.length > 0)
      throw new TrainingInputError(`${where}: features outside set v1: ${unknown.sort().join(", ")}`);
    const values = FEATURES.map((name) => {
      const v = features[name];
      if (v === undefined || v === null) return Number.NaN;
      if (typeof v !== "number" || !Number.isFinite(v))
        throw new TrainingInputError(`${where}: features.${name} must be a number or null`);
      return v;
    });
    if (r.label === undefined || r.label === null) return;
    if (typeof r.label !== "number" || !Number.isFinite(r.label))
      throw new TrainingInputError(`${where}: label must be a finite number`);
    if (r.split !== undefined && r.split !== null && r.split !== "train" && r.split !== "holdout")
      throw new TrainingInputError(`${where}: split must be "train" or "holdout"`);
    rows.push({
      values,
      label: r.label,
      split: (r.split ?? null) as Row["split"],
      features: Object.fromEntries(FEATURES.map((n) => [n, (features[n] ?? null) as number | null])),
    });
  });
  return rows;
}

/** The training and held-out rows, split as train_xgboost.py splits them. */
export function splitRows(rows: readonly Row[]): { train: Row[]; held: Row[] } {
  if (rows.some((r) => r.split !== null))
    return {
      train: rows.filter((r) => r.split !== "holdout"),
      held: rows.filter((r) => r.split === "holdout"),
    };
  return { train: rows.filter((_, i) => i % 5 !== 4), held: rows.filter((_, i) => i % 5 === 4) };
}

/** The leaf a row reaches: fround(x) < threshold goes left, a missing value takes the default side. */
export function leafOf(tree: Tree, values: readonly number[]): number {
  let n = 0;
  while (tree.left[n] !== -1) {
    const x = values[tree.feature[n] as number] as number;
    const goLeft = Number.isNaN(x) ? tree.defaultLeft[n] === 1 : f32(x) < (tree.value[n] as number);
    n = (goLeft ? tree.left[n] : tree.right[n]) as number;
  }
  return n;
}

/** The model's prediction as XGBoost (and the exported artifact) computes it: a float32 sum. */
export function predict(model: GbdtModel, values: readonly number[]): number {
  let sum = model.base;
  for (const tree of model.trees) sum = f32(sum + (tree.value[leafOf(tree, values)] as number));
  return sum;
}

interface Split {
  feature: number;
  threshold: number;
  gain: number;
}

/**
 * Grows one tree on the gradients (squared error: g = prediction - label, h = 1) of the rows in
 * `members`, level by level to `maxDepth`; `sorted[f]` lists every training row by feature f's
 * float32 value (missing values excluded).
 */
function growTree(
  grad: Float64Array,
  members: Uint8Array,
  sorted: readonly Int32Array[],
  data: readonly Float32Array[],
  p: GbdtParams,
): Tree {
  const tree: Tree = {
    left: [],
    right: [],
    feature: [],
    value: [],
    defaultLeft: [],
    parent: [],
    gain: [],
    hessian: [],
    weight: [],
  };
  const n = grad.length;
  // node[i]: the node row i is in, -1 when it is not in the tree (out of the subsample) or settled.
  const node = new Int32Array(n).fill(-1);
  let G0 = 0;
  let H0 = 0;
  for (let i = 0; i < n; i++) {
    if (members[i] === 0) continue;
    node[i] = 0;
    G0 += grad[i] as number;
    H0 += 1;
  }
  const addNode = (parent: number, G: number, H: number) => {
    tree.left.push(-1);
    tree.right.push(-1);
    tree.feature.push(0);
    tree.value.push(0);
    tree.defaultLeft.push(0);
    tree.parent.push(parent);
    tree.gain.push(0);
    tree.hessian.push(H);
    tree.weight.push(-G / (H + p.lambda));
    return tree.left.length - 1;
  };
  const sums = new Map<number, { G: number; H: number }>([[0, { G: G0, H: H0 }]]);
  addNode(2147483647, G0, H0);
  let open = [0];
  const score = (G: number, H: number) => (G * G) / (H + p.lambda);
  for (let depth = 0; depth < p.maxDepth && open.length > 0; depth++) {
    const best = new Map<number, Split>();
    // Missing values of a node's feature: their gradient sums, grouped with the left side.
    for (let f = 0; f < FEATURES.length; f++) {
      const col = data[f] as Float32Array;
      const missG = new Map<number, number>();
      const missH = new Map<number, number>();
      for (let i = 0; i < n; i++) {
        const k = node[i] as number;
        if (k < 0 || !Number.isNaN(col[i] as number)) continue;
        missG.set(k, (missG.get(k) ?? 0) + (grad[i] as number));
        missH.set(k, (missH.get(k) ?? 0) + 1);
      }
      const run = new Map<number, { G: number; H: number; last: number }>();
      for (const k of open) run.set(k, { G: missG.get(k) ?? 0, H: missH.get(k) ?? 0, last: Number.NaN });
      for (const i of sorted[f] as Int32Array) {
        const k = node[i] as number;
        if (k < 0) continue;
        const r = run.get(k);
        if (r === undefined) continue;
        const x = col[i] as number;
        // A threshold between the previous value and this one: rows so far go left.
        if (!Number.isNaN(r.last) && x > r.last) {
          const total = sums.get(k) as { G: number; H: number };
          const GR = total.G - r.G;
          const HR = total.H - r.H;
          if (r.H >= p.minChildWeight && HR >= p.minChildWeight) {
            const gain = score(r.G, r.H) + score(GR, HR) - score(total.G, total.H);
            const current = best.get(k);
            if (gain > 1e-12 && (current === undefined || gain > current.gain)) {
              let threshold = f32((r.last + x) / 2);
              // The float32 midpoint must separate the two values: else split at the larger one.
              if (!(r.last < threshold && threshold <= x)) threshold = x;
              best.set(k, { feature: f, threshold, gain });
            }
          }
        }
        r.G += grad[i] as number;
        r.H += 1;
        r.last = x;
      }
    }
    const next: number[] = [];
    const children = new Map<number, [number, number]>();
    for (const k of open) {
      const split = best.get(k);
      if (split === undefined) continue;
      tree.feature[k] = split.feature;
      tree.value[k] = split.threshold;
      tree.defaultLeft[k] = 1;
      tree.gain[k] = split.gain;
      children.set(k, [-1, -1]);
    }
    // Sums of the children, then the children themselves (left before right, as XGBoost numbers them).
    const childSums = new Map<number, { GL: number; HL: number; GR: number; HR: number }>();
    for (const k of children.keys()) childSums.set(k, { GL: 0, HL: 0, GR: 0, HR: 0 });
    for (let i = 0; i < n; i++) {
      const k = node[i] as number;
      const s = k < 0 ? undefined : childSums.get(k);
      if (s === undefined) continue;
      const x = (data[tree.feature[k] as number] as Float32Array)[i] as number;
      const goLeft = Number.isNaN(x) || x < (tree.value[k] as number);
      if (goLeft) {
        s.GL += grad[i] as number;
        s.HL += 1;
      } else {
        s.GR += grad[i] as number;
        s.HR += 1;
      }
    }
    for (const [k, s] of childSums) {
      const l = addNode(k, s.GL, s.HL);
      const r = addNode(k, s.GR, s.HR);
      tree.left[k] = l;
      tree.right[k] = r;
      sums.set(l, { G: s.GL, H: s.HL });
      sums.set(r, { G: s.GR, H: s.HR });
      children.set(k, [l, r]);
      next.push(l, r);
    }
    for (let i = 0; i < n; i++) {
      const k = node[i] as number;
      const c = k < 0 ? undefined : children.get(k);
      if (c === undefined) {
        if (k >= 0 && !children.has(k)) node[i] = -1; // settled in a leaf
        continue;
      }
      const x = (data[tree.feature[k] as number] as Float32Array)[i] as number;
      node[i] = Number.isNaN(x) || x < (tree.value[k] as number) ? c[0] : c[1];
    }
    open = next;
  }
  // Leaves hold their weight times the learning rate, in float32 (XGBoost's split_conditions of a leaf).
  for (let k = 0; k < tree.left.length; k++) {
    if (tree.left[k] === -1) tree.value[k] = f32(p.eta * (tree.weight[k] as number));
  }
  return tree;
}

/** Trains on `rows` with squared error; deterministic for the same rows and parameters. */
export function trainGbdt(
  rows: readonly Pick<Row, "values" | "label">[],
  params: Partial<GbdtParams> = {},
): GbdtModel {
  const p = { ...DEFAULT_PARAMS, ...params };
  if (rows.length === 0) throw new TrainingInputError("no training rows");
  const n = rows.length;
  const data = FEATURES.map((_, f) => Float32Array.from(rows, (r) => r.values[f] as number));
  const sorted = data.map((col) => {
    const idx = Array.from({ length: n }, (_, i) => i).filter((i) => !Number.isNaN(col[i] as number));
    idx.sort((a, b) => (col[a] as number) - (col[b] as number) || a - b);
    return Int32Array.from(idx);
  });
  const base = f32(rows.reduce((s, r) => s + r.label, 0) / n);
  const pred = new Float32Array(n).fill(base);
  const grad = new Float64Array(n);
  const members = new Uint8Array(n);
  const random = prng(p.seed);
  const trees: Tree[] = [];
  const values32 = rows.map((r) => r.values);
  for (let round = 0; round < p.rounds; round++) {
    for (let i = 0; i < n; i++) {
      grad[i] = (pred[i] as number) - (rows[i]?.label as number);
      members[i] = p.subsample >= 1 || random() < p.subsample ? 1 : 0;
    }
    const tree = growTree(grad, members, sorted, data, p);
    trees.push(tree);
    for (let i = 0; i < n; i++)
      pred[i] = f32((pred[i] as number) + (tree.value[leafOf(tree, values32[i] as number[])] as number));
  }
  return { base, trees, params: p };
}

/** XGBoost's float formatting is not needed: JSON numbers of float32 values read back exactly. */
function xgbTree(tree: Tree, id: number) {
  const nodes = tree.left.length;
  return {
    base_weights: tree.weight.map(f32),
    categories: [],
    categories_nodes: [],
    categories_segments: [],
    categories_sizes: [],
    default_left: tree.defaultLeft,
    id,
    left_children: tree.left,
    loss_changes: tree.gain.map(f32),
    parents: tree.parent,
    right_children: tree.right,
    split_conditions: tree.value,
    split_indices: tree.feature,
    split_type: tree.left.map(() => 0),
    sum_hessian: tree.hessian,
    tree_param: {
      num_deleted: "0",
      num_feature: String(FEATURES.length),
      num_nodes: String(nodes),
      size_leaf_vector: "0",
    },
  };
}

/** The model as XGBoost 1.7's save_model JSON (what `relevance model export --from xgboost` reads). */
export function toXgboostJson(model: GbdtModel): object {
  return {
    learner: {
      // XGBoost keeps string attributes with a model; this one says which trainer wrote it.
      attributes: { trainer: "training/train_gbdt.ts" },
      feature_names: [...FEATURES],
      feature_types: FEATURES.map(() => "float"),
      gradient_booster: {
        model: {
          gbtree_model_param: {
            num_parallel_tree: "1",
            num_trees: String(model.trees.length),
            size_leaf_vector: "0",
          },
          tree_info: model.trees.map(() => 0),
          trees: model.trees.map(xgbTree),
        },
        name: "gbtree",
      },
      learner_model_param: {
        base_score: String(model.base),
        boost_from_average: "1",
        num_class: "0",
        num_feature: String(FEATURES.length),
        num_target: "1",
      },
      objective: { name: "reg:squarederror", reg_loss_param: { scale_pos_weight: "1" } },
    },
    version: [1, 7, 4],
  };
}

function ranks(x: readonly number[]): number[] {
  const order = x.map((_, i) => i).sort((a, b) => (x[a] as number) - (x[b] as number) || a - b);
  const r = new Array<number>(x.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && x[order[j + 1] as number] === x[order[i] as number]) j++;
    for (let k = i; k <= j; k++) r[order[k] as number] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

/** Spearman's rho; null when either side is constant (a constant ranks nothing). */
export function spearman(a: readonly number[], b: readonly number[]): number | null {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < ra.length; i++) {
    const da = (ra[i] as number) - ma;
    const db = (rb[i] as number) - mb;
    cov += da * db;
    va += da * da;
    vb += db * db;
  }
  return va === 0 || vb === 0 ? null : cov / Math.sqrt(va * vb);
}

export const rmse = (pred: readonly number[], label: readonly number[]): number =>
  Math.sqrt(pred.reduce((s, p, i) => s + (p - (label[i] as number)) ** 2, 0) / pred.length);

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export interface TrainResult {
  model: GbdtModel;
  xgboostJson: object;
  golden: { features: Record<string, number | null>; prediction: number }[];
  metrics: Record<string, unknown>;
}

/** The whole run on parsed rows: split, train, held-out metrics, golden rows. */
export function trainFromRows(
  rows: readonly Row[],
  params: Partial<GbdtParams> = {},
  goldenRows = 32,
): TrainResult {
  const { train, held } = splitRows(rows);
  if (train.length < 10 || held.length < 2)
    throw new TrainingInputError(
      `needs at least 10 training and 2 held-out labelled rows, got ${train.length} and ${held.length}`,
    );
  const model = trainGbdt(train, params);
  const predicted = held.map((r) => predict(model, r.values));
  const labels = held.map((r) => r.label);
  const trainMean = train.reduce((s, r) => s + r.label, 0) / train.length;
  const metrics = {
    trainer: "training/train_gbdt.ts",
    params: { objective: "reg:squarederror", ...model.params },
    rows: { train: train.length, heldOut: held.length },
    heldOutLabelMean: labels.reduce((s, x) => s + x, 0) / labels.length,
    model: { rmse: round6(rmse(predicted, labels)), spearman: nullable6(spearman(predicted, labels)) },
    constantBaseline: {
      value: round6(trainMean),
      rmse: round6(
        rmse(
          held.map(() => trainMean),
          labels,
        ),
      ),
      spearman: null,
    },
  };
  const step = Math.max(1, Math.floor(held.length / Math.max(1, goldenRows)));
  const golden: TrainResult["golden"] = [];
  for (let i = 0; i < held.length && golden.length < goldenRows; i += step) {
    golden.push({ features: (held[i] as Row).features, prediction: predicted[i] as number });
  }
  return { model, xgboostJson: toXgboostJson(model), golden, metrics };
}

const nullable6 = (x: number | null) => (x === null ? null : round6(x));

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      input: { type: "string" },
      "model-out": { type: "string", default: "model.json" },
      "golden-out": { type: "string", default: "golden.jsonl" },
      "metrics-out": { type: "string", default: "metrics.json" },
      "golden-rows": { type: "string", default: "32" },
      rounds: { type: "string", default: String(DEFAULT_PARAMS.rounds) },
      "max-depth": { type: "string", default: String(DEFAULT_PARAMS.maxDepth) },
      eta: { type: "string", default: String(DEFAULT_PARAMS.eta) },
      "min-child-weight": { type: "string", default: String(DEFAULT_PARAMS.minChildWeight) },
      lambda: { type: "string", default: String(DEFAULT_PARAMS.lambda) },
      subsample: { type: "string", default: String(DEFAULT_PARAMS.subsample) },
      seed: { type: "string", default: String(DEFAULT_PARAMS.seed) },
    },
  });
  const fail = (message: string): never => {
    process.stderr.write(`train_gbdt: ${message}\n`);
    process.exit(1);
  };
  if (values.input === undefined) fail("usage: node training/train_gbdt.ts --input features.jsonl [options]");
  const num = (name: keyof typeof values, min: number, max: number, integer = false): number => {
    const v = Number(values[name]);
    if (!Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v)))
      fail(`--${name} must be ${integer ? "an integer" : "a number"} from ${min} to ${max}`);
    return v;
  };
  const params: GbdtParams = {
    rounds: num("rounds", 1, 10_000, true),
    maxDepth: num("max-depth", 1, 12, true),
    eta: num("eta", 1e-6, 1),
    minChildWeight: num("min-child-weight", 0, 1e9),
    lambda: num("lambda", 0, 1e9),
    subsample: num("subsample", 1e-6, 1),
    seed: num("seed", 0, 2 ** 32 - 1, true),
  };
  try {
    const input = values.input as string;
    let text = "";
    try {
      text = readFileSync(input, "utf8");
    } catch (error) {
      fail(`cannot read ${input}: ${(error as NodeJS.ErrnoException).code}`);
    }
    const result = trainFromRows(readRows(text, input), params, num("golden-rows", 1, 10_000, true));
    writeFileSync(values["model-out"] as string, JSON.stringify(result.xgboostJson));
    writeFileSync(
      values["golden-out"] as string,
      result.golden.map((g) => `${JSON.stringify(g)}\n`).join(""),
    );
    writeFileSync(values["metrics-out"] as string, `${JSON.stringify(result.metrics, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result.metrics)}\n`);
  } catch (error) {
    if (error instanceof TrainingInputError) fail(error.message);
    throw error;
  }
}
