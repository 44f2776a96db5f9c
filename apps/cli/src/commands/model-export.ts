import { basename } from "node:path";
import {
  buildArtifact,
  formatIssues,
  type GoldenRow,
  importLightgbm,
  importXgboost,
  type ModelDraft,
  parseJson,
  type Result,
  validateFeatureRecord,
} from "@relevance/core";
import { type FlagSpec, nullable, parseFlags, USAGE_EXIT } from "../args.ts";
import { type Io, UserError } from "../io.ts";
import { readJsonLines } from "../jsonl.ts";
import { artifactLimit, maxBytesFlag } from "../procedures/validate.ts";
import { readProfileRows } from "./profile-rows.ts";

export const exportFlags: FlagSpec = {
  from: { type: "string", required: true, help: "xgboost (save_model JSON) or lightgbm (dump_model JSON)" },
  input: { type: "string", required: true, help: "the model file the training library wrote" },
  "model-id": { type: "string", required: true, help: "<account>:<index>:v<n>" },
  "title-field": {
    type: "string",
    required: true,
    help: "hit field with titles the model was trained on, or null",
  },
  "tags-field": {
    type: "string",
    required: true,
    help: "hit field with tags the model was trained on, or null",
  },
  out: { type: "string", required: true, help: "the artifact to write, model-<index>.json" },
  index: { type: "string", help: "index name when the model id does not follow the convention" },
  golden: {
    type: "string",
    help: "JSON lines {features, prediction} predicted by the training library; each is checked",
  },
  "profile-rows": {
    type: "string",
    help: "training rows (JSON lines {features, ...}, as the trainers read) to store as the training profile for drift",
  },
  objective: { type: "string", help: "LightGBM objective when the dump lacks one (e.g. regression, binary)" },
  ...maxBytesFlag,
};

function readGolden(
  text: string,
  path: string,
  features: readonly string[],
  source: string,
): { source: string; rows: GoldenRow[] } {
  const known = new Set(features);
  const rows = readJsonLines(text, path, (value, where) => {
    const errors: { path: string; message: string }[] = [];
    const row = value as Record<string, unknown>;
    if (typeof row !== "object" || row === null)
      throw new UserError(`${where}: must be an object {features, prediction}`);
    validateFeatureRecord(row.features, "features", known, errors);
    if (typeof row.prediction !== "number") errors.push({ path: "prediction", message: "must be a number" });
    if (errors.length > 0) throw new UserError(`${where}: ${formatIssues(errors)}`);
    return { features: row.features as GoldenRow["features"], prediction: row.prediction as number };
  });
  if (rows.length === 0)
    throw new UserError(
      `${path}: has no rows; write one JSON line {"features": {...}, "prediction": p} per golden row, or drop --golden`,
    );
  return { source, rows };
}

export async function modelExport(argv: string[], io: Io): Promise<number> {
  const flags = parseFlags("model export", exportFlags, argv);
  const from = flags.from as string;
  if (from !== "xgboost" && from !== "lightgbm")
    throw new UserError(`--from must be xgboost or lightgbm, got ${from}`, USAGE_EXIT);
  const input = flags.input as string;
  const out = flags.out as string;
  const maxBytes = artifactLimit(flags);

  const json = parseJson(await io.readText(input), input);
  if (!json.ok) throw new UserError(formatIssues(json.errors));
  const imported: Result<ModelDraft> =
    from === "xgboost"
      ? importXgboost(json.value)
      : importLightgbm(json.value, { objective: flags.objective as string | undefined });
  if (!imported.ok) throw new UserError(`${input}: ${formatIssues(imported.errors)}`);
  const draft = imported.value;

  const goldenPath = flags.golden as string | undefined;
  const golden = goldenPath
    ? readGolden(
        await io.readText(goldenPath),
        goldenPath,
        draft.features,
        `${draft.source.library} ${draft.source.version}`,
      )
    : undefined;
  const profilePath = flags["profile-rows"] as string | undefined;
  const profileRows = profilePath
    ? readProfileRows(await io.readText(profilePath), profilePath, draft.features)
    : undefined;
  const built = buildArtifact(draft, {
    modelId: flags["model-id"] as string,
    index: flags.index as string | undefined,
    titleField: nullable(flags["title-field"] as string),
    tagsField: nullable(flags["tags-field"] as string),
    golden,
    maxBytes,
    profileRows,
  });
  if (!built.ok) throw new UserError(`cannot export ${input}: ${formatIssues(built.errors)}`);
  const { artifact, text, bytes, warnings } = built.value;

  const expectedName = `model-${artifact.index}.json`;
  if (basename(out) !== expectedName)
    warnings.push(`the artifact for index ${artifact.index} is usually named ${expectedName}`);
  await io.writeTextAtomic(out, text);
  for (const w of warnings) io.err(`warning: ${w}\n`);
  const nodes = artifact.trees.reduce((n, t) => n + t.left.length, 0);
  io.out(
    `wrote ${out}: ${artifact.modelId}, ${artifact.trees.length} trees, ${nodes} nodes, ${(bytes / 1024).toFixed(1)} KB; ` +
      `${artifact.golden.rows.length} golden rows from ${artifact.golden.source} reproduced within 1e-5` +
      (artifact.trainingProfile ? `; training profile of ${artifact.trainingProfile.rows} rows` : "") +
      "\n",
  );
  return 0;
}
