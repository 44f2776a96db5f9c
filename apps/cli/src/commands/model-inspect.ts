import type { ModelArtifact } from "@relevance/core";
import { type FlagSpec, parseFlags } from "../args.ts";
import type { Io } from "../io.ts";
import { loadModelFile } from "./model-predict.ts";

export const inspectFlags: FlagSpec = {
  model: { type: "string", required: true, help: "the artifact, model-<index>.json" },
  json: { type: "boolean", help: "print the summary as JSON" },
};

export interface ModelSummary {
  modelId: string;
  index: string;
  format: string;
  source: string;
  semantics: string;
  objective: string;
  baseScore: number;
  trees: number;
  maxDepth: number;
  nodes: number;
  leaves: number;
  features: { name: string; splits: number }[];
  trainedOn: { titleField: string | null; tagsField: string | null };
  golden: { source: string; rows: number };
  bytes: number;
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
    semantics: artifact.semantics,
    objective: artifact.objective,
    baseScore: artifact.baseScore,
    trees: artifact.trees.length,
    maxDepth,
    nodes,
    leaves,
    features: artifact.features.map((name, i) => ({ name, splits: splits[i] ?? 0 })),
    trainedOn: artifact.trainedOn,
    golden: { source: artifact.golden.source, rows: artifact.golden.rows.length },
    bytes,
  };
}

function render(s: ModelSummary): string {
  const lines = [
    `model id      ${s.modelId}`,
    `index         ${s.index}`,
    `format        ${s.format}`,
    `source        ${s.source} (${s.semantics} split semantics)`,
    `objective     ${s.objective}, base score ${s.baseScore}`,
    `trees         ${s.trees}, max depth ${s.maxDepth}, ${s.nodes} nodes (${s.leaves} leaves)`,
    `trained on    titleField ${JSON.stringify(s.trainedOn.titleField)}, tagsField ${JSON.stringify(s.trainedOn.tagsField)}`,
    `golden rows   ${s.golden.rows} from ${s.golden.source}, all reproduced`,
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
