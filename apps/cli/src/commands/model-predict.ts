import { clampScore, formatIssues, isPlainObject, loadArtifact, rowFromRecord } from "@relevance/core";
import { type FlagSpec, parseFlags } from "../args.ts";
import { type Io, UserError } from "../io.ts";
import { readJsonLines } from "../jsonl.ts";

export const predictFlags: FlagSpec = {
  model: { type: "string", required: true, help: "the artifact, model-<index>.json" },
  input: {
    type: "string",
    required: true,
    help: 'JSON lines {"features": {name: number|null}}; - reads standard input',
  },
};

export async function loadModelFile(path: string, io: Io) {
  const loaded = loadArtifact(await io.readText(path), { checkGolden: true });
  if (!loaded.ok) throw new UserError(`${path}: ${formatIssues(loaded.errors)}`);
  return loaded.value;
}

export async function modelPredict(argv: string[], io: Io): Promise<number> {
  const flags = parseFlags("model predict", predictFlags, argv);
  const { model } = await loadModelFile(flags.model as string, io);
  const input = flags.input as string;
  // Every line is checked before anything is written: a bad line yields no partial output.
  const lines = readJsonLines(await io.readText(input), input, (value, where) => {
    if (!isPlainObject(value)) throw new UserError(`${where}: must be an object {"features": {...}}`);
    const row = rowFromRecord(model.features, value.features);
    if (!row.ok) throw new UserError(`${where}: ${formatIssues(row.errors)}`);
    const prediction = model.predict(row.value);
    return `${JSON.stringify({ prediction, score: clampScore(prediction) })}\n`;
  });
  io.out(lines.join(""));
  return 0;
}
