import { baseMargin, type ModelArtifact, type OutputTransform, outputTransform } from "@relevance/core";
import { type FlagSpec, parseFlags } from "../args.ts";
import type { Io } from "../io.ts";
import { loadModelFile } from "./model-predict.ts";

export const inspectFlags: FlagSpec = {
  model: { type: "string", required: true, help: "the artifact, model-<index>.json" },
  json: { type: "boolean", help: "print the summary as JSON" },
};

/** Where the trees came from and how a margin becomes a prediction. */
export interface ModelOrigin {
  library: string;
  version: string;
  /** The source booster: recorded in the artifact, else the library's plain one (XGBoost gbtree). */
  booster: string | null;
  /** "folded" when the source's per-tree weights (XGBoost weight_drop) are in the leaves. */
  treeWeights: "folded" | "none";
  objective: string;
  /** prediction = transform(margin): identity, sigmoid or exp. */
  transform: OutputTransform;
  /** The margin every prediction starts from (XGBoost: base score through the link's inverse). */
  baseMargin: number;
}

export interface ModelSummary {
  modelId: string;
  index: string;
  format: string;
  /** `<library> <version>`, e.g. "xgboost 3.4.1". */
  source: string;
  origin: ModelOrigin;
  semantics: string;
  objective: string;
  /** LightGBM `binary sigmoid:<k>`. */
  sigmoid?: number;
  /** LightGBM `reg_sqrt`: the output is sign(x)·x² of the transform's result. */
  sqrt?: true;
  baseScore: number;
  trees: number;
  maxDepth: number;
  nodes: number;
  leaves: number;
  features: { name: string; splits: number }[];
  trainedOn: { titleField: string | null; tagsField: string | null };
  golden: { source: string; rows: number };
  /** How many training rows the artifact's drift profile describes, or null without one. */
  trainingProfileRows: number | null;
  bytes: number;
}

const TRANSFORM_TEXT: Record<OutputTransform, string> = {
  identity: "prediction = margin",
  sigmoid: "prediction = sigmoid(margin)",
  exp: "prediction = exp(margin)",
};
const BASE_LINK_TEXT: Record<OutputTransform, string> = {
  identity: "base score",
  sigmoid: "logit(base score)",
  exp: "log(base score)",
};

function origin(artifact: ModelArtifact): ModelOrigin {
  const transform = outputTransform(artifact.semantics, artifact.objective) as OutputTransform;
  const margin =
    artifact.semantics === "xgboost" ? Math.fround(baseMargin(transform, artifact.baseScore) as number) : 0;
  return {
    library: artifact.source.library,
    version: artifact.source.version,
    booster: artifact.source.booster ?? (artifact.source.library === "xgboost" ? "gbtree" : null),
    treeWeights: artifact.source.treeWeights ?? "none",
    objective: artifact.objective,
    transform,
    baseMargin: margin,
  };
}

/** One line: `xgboost 3.4.1, objective reg:squarederror, booster dart (tree weights folded into leaves)`. */
export function describeOrigin(o: ModelOrigin): string {
  const booster =
    o.booster === null
      ? ""
      : `, booster ${o.booster}${o.treeWeights === "folded" ? " (tree weights folded into leaves)" : ""}`;
  return `${o.library} ${o.version}, objective ${o.objective}${booster}`;
}

export function summarize(artifact: ModelArtifact, maxDepth: number, bytes: number): ModelSummary {
  const splits = new Array<number>(artifact.features.length).fill(0);
  let nodes = 0;
  let leaves = 0;
  for (const tree of artifact.trees) {
    nodes += tree.left.length;
    for (const f of tree.feature) {
      if (f >= 0) splits[f] = (splits[f] ?? 0) + 1;
      else leaves++;
    }
  }
  return {
    modelId: artifact.modelId,
    index: artifact.index,
    format: `${artifact.format} v${artifact.formatVersion}`,
    source: `${artifact.source.library} ${artifact.source.version}`,
    origin: origin(artifact),
    semantics: artifact.semantics,
    objective: artifact.objective,
    ...(artifact.objectiveParams.sigmoid !== undefined ? { sigmoid: artifact.objectiveParams.sigmoid } : {}),
    ...(artifact.objectiveParams.sqrt === true ? { sqrt: true as const } : {}),
    baseScore: artifact.baseScore,
    trees: artifact.trees.length,
    maxDepth,
    nodes,
    leaves,
    features: artifact.features.map((name, i) => ({ name, splits: splits[i] ?? 0 })),
    trainedOn: artifact.trainedOn,
    golden: { source: artifact.golden.source, rows: artifact.golden.rows.length },
    trainingProfileRows: artifact.trainingProfile?.rows ?? null,
    bytes,
  };
}

function outputText(s: ModelSummary): string {
  // reg_sqrt was trained on sqrt(label): LightGBM squares the output back, keeping its sign.
  if (s.sqrt === true) return "prediction = sign(margin) × margin² (reg_sqrt)";
  const k = s.sigmoid;
  return s.origin.transform === "sigmoid" && k !== undefined && k !== 1
    ? `prediction = sigmoid(${k} × margin)`
    : TRANSFORM_TEXT[s.origin.transform];
}

function render(s: ModelSummary): string {
  const lines = [
    `model id      ${s.modelId}`,
    `index         ${s.index}`,
    `format        ${s.format}`,
    `source        ${describeOrigin(s.origin)} (${s.semantics} split semantics)`,
    `objective     ${s.objective}, base score ${s.baseScore}`,
    `output        ${outputText(s)}, margin starts at ${s.semantics === "xgboost" ? `${BASE_LINK_TEXT[s.origin.transform]} = ` : ""}${s.origin.baseMargin}`,
    `trees         ${s.trees}, max depth ${s.maxDepth}, ${s.nodes} nodes (${s.leaves} leaves)`,
    `trained on    titleField ${JSON.stringify(s.trainedOn.titleField)}, tagsField ${JSON.stringify(s.trainedOn.tagsField)}`,
    `golden rows   ${s.golden.rows} from ${s.golden.source}, all reproduced`,
    `profile       ${s.trainingProfileRows === null ? "none (drift cannot be measured; export with --profile-rows)" : `${s.trainingProfileRows} training rows, per feature and score`}`,
    `size          ${s.bytes} bytes (${(s.bytes / 1024).toFixed(1)} KB)`,
    "features      name                     splits",
    ...s.features.map((f) => `              ${f.name.padEnd(24)} ${f.splits}`),
  ];
  return `${lines.join("\n")}\n`;
}

export async function modelInspect(argv: string[], io: Io): Promise<number> {
  const flags = parseFlags("model inspect", inspectFlags, argv);
  const path = flags.model as string;
  const text = await io.readText(path);
  const { artifact, model } = await loadModelFile(path, { ...io, readText: async () => text });
  const summary = summarize(artifact, model.maxDepth, new TextEncoder().encode(text).length);
  io.out(flags.json ? `${JSON.stringify(summary, null, 2)}\n` : render(summary));
  return 0;
}
