import {
  artifactFromDraft,
  artifactTooLargeMessage,
  DEFAULT_ARTIFACT_MAX_BYTES,
  type GoldenRow,
  type ModelArtifact,
  validateArtifact,
  WARN_ARTIFACT_BYTES,
} from "../artifact/artifact.ts";
import { compileModel } from "../artifact/compile.ts";
import { checkGolden, engineGoldenRows } from "../artifact/golden.ts";
import type { ModelDraft } from "../artifact/model.ts";
import { rowFromRecord } from "../artifact/rows.ts";
import { computeTrainingProfile, type TrainingProfile } from "../artifact/training-profile.ts";
import { parseModelId } from "../config.ts";
import { isFeatureV1 } from "../features.ts";
import { fail, issue, ok, type Result } from "../result.ts";

export interface BuildOptions {
  modelId: string;
  /** Defaults to the index named by a `<account>:<index>:v<n>` model id. */
  index?: string;
  titleField: string | null;
  tagsField: string | null;
  /** Predictions computed by the training library; each is checked against this engine. */
  golden?: { source: string; rows: GoldenRow[] };
  /** Refuse an artifact above this many bytes. Default 8 MiB (`MODEL_MAX_BYTES`); loaders refuse the same. */
  maxBytes?: number;
  /**
   * Training rows (feature name to value or null) to profile: each feature's quantile bins and the
   * model's own score on each row, stored as the artifact's `trainingProfile`.
   */
  profileRows?: readonly Record<string, number | null>[];
}

export interface BuiltArtifact {
  artifact: ModelArtifact;
  text: string;
  bytes: number;
  warnings: string[];
}

const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/** Turns an imported draft into the artifact `model-<index>.json`, refusing anything a loader would not take. */
export function buildArtifact(draft: ModelDraft, options: BuildOptions): Result<BuiltArtifact> {
  const outside = draft.features.filter((name) => !isFeatureV1(name));
  if (outside.length > 0) {
    return fail([issue("features", `feature names outside set v1: ${outside.join(", ")}`)]);
  }
  const index = options.index ?? parseModelId(options.modelId)?.index;
  if (index === undefined) {
    return fail([
      issue(
        "modelId",
        `${JSON.stringify(options.modelId)} does not follow <account>:<index>:v<n>; pass the index explicitly`,
      ),
    ]);
  }
  const model = compileModel(draft);
  const golden = options.golden ?? { source: "engine", rows: engineGoldenRows(draft, model) };
  let trainingProfile: TrainingProfile | undefined;
  if (options.profileRows !== undefined) {
    const scores: number[] = [];
    for (const [i, record] of options.profileRows.entries()) {
      const row = rowFromRecord(draft.features, record, `profileRows[${i}]`);
      if (!row.ok) return row;
      scores.push(model.predict(row.value));
    }
    trainingProfile = computeTrainingProfile(draft.features, options.profileRows, scores);
  }
  const artifact = artifactFromDraft(draft, {
    modelId: options.modelId,
    index,
    trainedOn: { titleField: options.titleField, tagsField: options.tagsField },
    golden,
    trainingProfile,
  });
  const goldenErrors = checkGolden(model, golden);
  if (goldenErrors.length > 0) return fail(goldenErrors);

  const text = `${JSON.stringify(artifact)}\n`;
  const bytes = utf8Length(text);
  const maxBytes = options.maxBytes ?? DEFAULT_ARTIFACT_MAX_BYTES;
  if (bytes > maxBytes) return fail([issue("", artifactTooLargeMessage(bytes, maxBytes))]);
  // The loader must accept exactly what we write.
  const reread = validateArtifact(JSON.parse(text));
  if (!reread.ok) return reread;
  const warnings =
    bytes > WARN_ARTIFACT_BYTES
      ? [`the artifact is ${bytes} bytes (above ${WARN_ARTIFACT_BYTES}); loading it at the edge costs time`]
      : [];
  return ok({ artifact, text, bytes, warnings });
}
