import { MAX_NAME_LENGTH } from "../config.ts";
import { FEATURE_SET_V1, isFeatureV1 } from "../features.ts";
import { at, describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "../result.ts";
import type { ModelDraft, ObjectiveParams, Semantics, SourceInfo, TreeArrays } from "./model.ts";
import { baseMargin, knownObjectives, LIGHTGBM_SQRT_OBJECTIVES, outputTransform } from "./objectives.ts";
import { type TrainingProfile, validateTrainingProfile } from "./training-profile.ts";
import { validateTrees } from "./validate-trees.ts";

export const ARTIFACT_FORMAT = "relevance-model";
export const ARTIFACT_FORMAT_VERSION = 1;
/**
 * Workers KV's value limit: the ceiling of the artifact limit (`MODEL_MAX_BYTES` cannot go above it,
 * since an artifact is stored as one KV value).
 */
export const MAX_ARTIFACT_BYTES = 25 * 1024 * 1024;
/**
 * The artifact limit unless `MODEL_MAX_BYTES` says otherwise: the export refuses to write, the
 * upload to put, and the loader to parse a larger artifact. Parsing JSON costs several times its
 * size in memory for a moment, and a Worker isolate has 128 MB; 8 MiB is about 250,000 tree nodes,
 * far beyond any relevance model (the 300-tree depth-6 benchmark model is under 1 MiB).
 */
export const DEFAULT_ARTIFACT_MAX_BYTES = 8 * 1024 * 1024;
/** The environment variable that sets the artifact limit, in bytes. */
export const ARTIFACT_MAX_BYTES_ENV = "MODEL_MAX_BYTES";
export const WARN_ARTIFACT_BYTES = 1024 * 1024;
/** Predictions agree when |a - b| <= GOLDEN_TOLERANCE * max(1, |b|). */
export const GOLDEN_TOLERANCE = 1e-5;

export interface GoldenRow {
  features: Record<string, number | null>;
  prediction: number;
}

export interface Golden {
  /** Who computed the expected predictions: the training library ("xgboost 1.7.4") or "engine". */
  source: string;
  rows: GoldenRow[];
}

/** The versioned JSON document stored under `relevance_model:<modelId>` (docs/artifact-format.md). */
export interface ModelArtifact extends ModelDraft {
  format: typeof ARTIFACT_FORMAT;
  formatVersion: typeof ARTIFACT_FORMAT_VERSION;
  modelId: string;
  index: string;
  featureSet: "v1";
  trainedOn: { titleField: string | null; tagsField: string | null };
  golden: Golden;
  /** The training rows' feature and score distributions, when the export was given them. */
  trainingProfile?: TrainingProfile;
}

function nameOrNull(value: unknown, path: string, errors: Issue[]): void {
  if (value === null) return;
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_NAME_LENGTH) {
    errors.push(issue(path, `must be a non-empty string or null, got ${describeType(value)}`));
  }
}

function nonEmptyString(value: unknown, path: string, errors: Issue[]): void {
  if (typeof value !== "string" || value.length === 0) {
    errors.push(issue(path, `must be a non-empty string, got ${describeType(value)}`));
  }
}

export function validateFeatureRecord(
  input: unknown,
  path: string,
  known: ReadonlySet<string>,
  errors: Issue[],
): void {
  if (!isPlainObject(input)) {
    errors.push(
      issue(path, `must be an object of feature name to number or null, got ${describeType(input)}`),
    );
    return;
  }
  for (const [name, v] of Object.entries(input)) {
    if (!known.has(name))
      errors.push(issue(at(path, name), "is not a feature of this model or of feature set v1"));
    else if (v !== null && (typeof v !== "number" || !Number.isFinite(v))) {
      errors.push(issue(at(path, name), `must be a finite number or null, got ${describeType(v)}`));
    }
  }
}

function validateGolden(input: unknown, path: string, features: readonly string[], errors: Issue[]): void {
  if (!isPlainObject(input)) {
    errors.push(issue(path, `must be an object, got ${describeType(input)}`));
    return;
  }
  nonEmptyString(input.source, at(path, "source"), errors);
  if (!Array.isArray(input.rows)) {
    errors.push(issue(at(path, "rows"), `must be an array, got ${describeType(input.rows)}`));
    return;
  }
  const known = new Set<string>([...features, ...FEATURE_SET_V1]);
  input.rows.forEach((row: unknown, i: number) => {
    const rowPath = at(at(path, "rows"), i);
    if (!isPlainObject(row)) {
      errors.push(issue(rowPath, `must be an object, got ${describeType(row)}`));
      return;
    }
    validateFeatureRecord(row.features, at(rowPath, "features"), known, errors);
    if (typeof row.prediction !== "number" || !Number.isFinite(row.prediction)) {
      errors.push(
        issue(at(rowPath, "prediction"), `must be a finite number, got ${describeType(row.prediction)}`),
      );
    }
  });
}

/** Structural validation of a parsed artifact; every problem is reported with its path. */
export function validateArtifact(input: unknown): Result<ModelArtifact> {
  if (!isPlainObject(input))
    return fail([issue("", `the artifact must be a JSON object, got ${describeType(input)}`)]);
  if (input.format !== ARTIFACT_FORMAT) {
    return fail([
      issue("format", `must be "${ARTIFACT_FORMAT}", got ${JSON.stringify(input.format) ?? "nothing"}`),
    ]);
  }
  if (input.formatVersion !== ARTIFACT_FORMAT_VERSION) {
    return fail([
      issue(
        "formatVersion",
        `${JSON.stringify(input.formatVersion) ?? "missing"} is not supported; this engine reads version ${ARTIFACT_FORMAT_VERSION}`,
      ),
    ]);
  }
  const errors: Issue[] = [];
  nonEmptyString(input.modelId, "modelId", errors);
  nonEmptyString(input.index, "index", errors);
  if (input.featureSet !== "v1")
    errors.push(issue("featureSet", `must be "v1", got ${JSON.stringify(input.featureSet)}`));

  const features = input.features;
  let nFeatures = 0;
  if (!Array.isArray(features) || features.length === 0) {
    errors.push(issue("features", "must be a non-empty array of feature names"));
  } else {
    nFeatures = features.length;
    const seen = new Set<string>();
    features.forEach((name: unknown, i: number) => {
      if (typeof name !== "string" || !isFeatureV1(name)) {
        errors.push(issue(at("features", i), `${JSON.stringify(name)} is not a feature of set v1`));
      } else if (seen.has(name)) {
        errors.push(issue(at("features", i), `${name} is listed twice`));
      } else seen.add(name);
    });
  }

  if (!isPlainObject(input.trainedOn)) {
    errors.push(issue("trainedOn", `must be an object, got ${describeType(input.trainedOn)}`));
  } else {
    nameOrNull(input.trainedOn.titleField, "trainedOn.titleField", errors);
    nameOrNull(input.trainedOn.tagsField, "trainedOn.tagsField", errors);
  }

  const semantics = input.semantics;
  if (semantics !== "xgboost" && semantics !== "lightgbm") {
    errors.push(issue("semantics", `must be "xgboost" or "lightgbm", got ${JSON.stringify(semantics)}`));
    return fail(errors);
  }
  const transform =
    typeof input.objective === "string" ? outputTransform(semantics, input.objective) : undefined;
  if (transform === undefined) {
    errors.push(
      issue(
        "objective",
        `must be one of ${knownObjectives(semantics).join(", ")}; got ${JSON.stringify(input.objective)}`,
      ),
    );
  } else if (semantics === "xgboost") {
    const margin = baseMargin(transform, input.baseScore as number);
    if (typeof margin === "string") errors.push(issue("baseScore", margin));
  } else if (input.baseScore !== 0) {
    errors.push(issue("baseScore", "must be 0 for LightGBM models (the initial score is in the first tree)"));
  }
  if (!isPlainObject(input.objectiveParams)) {
    errors.push(issue("objectiveParams", `must be an object, got ${describeType(input.objectiveParams)}`));
  } else {
    const sigmoid = input.objectiveParams.sigmoid;
    if (
      sigmoid !== undefined &&
      (typeof sigmoid !== "number" || !(sigmoid > 0) || !Number.isFinite(sigmoid))
    ) {
      errors.push(issue("objectiveParams.sigmoid", "must be a positive number"));
    }
    const sqrt = input.objectiveParams.sqrt;
    if (
      sqrt !== undefined &&
      !(sqrt === true && semantics === "lightgbm" && LIGHTGBM_SQRT_OBJECTIVES.has(input.objective as string))
    ) {
      errors.push(
        issue(
          "objectiveParams.sqrt",
          `must be absent, or true with a LightGBM objective among ${[...LIGHTGBM_SQRT_OBJECTIVES].join(", ")}`,
        ),
      );
    }
  }
  if (typeof input.averageOutput !== "boolean") errors.push(issue("averageOutput", "must be a boolean"));
  if (!isPlainObject(input.source)) {
    errors.push(issue("source", `must be an object, got ${describeType(input.source)}`));
  } else {
    if (input.source.library !== "xgboost" && input.source.library !== "lightgbm") {
      errors.push(issue("source.library", `must be "xgboost" or "lightgbm"`));
    }
    nonEmptyString(input.source.version, "source.version", errors);
    if (input.source.booster !== undefined) nonEmptyString(input.source.booster, "source.booster", errors);
    if (input.source.treeWeights !== undefined && input.source.treeWeights !== "folded") {
      errors.push(
        issue(
          "source.treeWeights",
          `must be "folded" when present, got ${describeType(input.source.treeWeights)}`,
        ),
      );
    }
  }
  if (nFeatures > 0) errors.push(...validateTrees(input.trees, "trees", nFeatures, semantics));
  if (Array.isArray(features)) validateGolden(input.golden, "golden", features as string[], errors);
  if (input.trainingProfile !== undefined && Array.isArray(features))
    validateTrainingProfile(input.trainingProfile, "trainingProfile", features as string[], errors);
  if (errors.length > 0) return fail(errors);

  return ok(input as unknown as ModelArtifact);
}

/** The draft fields of an artifact, in a fixed key order so that exports are byte-for-byte reproducible. */
export function artifactFromDraft(
  draft: ModelDraft,
  meta: {
    modelId: string;
    index: string;
    trainedOn: ModelArtifact["trainedOn"];
    golden: Golden;
    trainingProfile?: TrainingProfile;
  },
): ModelArtifact {
  const artifact: ModelArtifact = {
    format: ARTIFACT_FORMAT,
    formatVersion: ARTIFACT_FORMAT_VERSION,
    modelId: meta.modelId,
    index: meta.index,
    featureSet: "v1",
    features: draft.features,
    trainedOn: meta.trainedOn,
    semantics: draft.semantics,
    objective: draft.objective,
    objectiveParams: draft.objectiveParams,
    baseScore: draft.baseScore,
    averageOutput: draft.averageOutput,
    source: draft.source,
    trees: draft.trees.map(compactTree),
    golden: meta.golden,
  };
  if (meta.trainingProfile !== undefined) artifact.trainingProfile = meta.trainingProfile;
  return artifact;
}

function compactTree(tree: TreeArrays): TreeArrays {
  const out: TreeArrays = {
    left: tree.left,
    right: tree.right,
    feature: tree.feature,
    value: tree.value,
    defaultLeft: tree.defaultLeft,
  };
  if (tree.missingType !== undefined) out.missingType = tree.missingType;
  return out;
}

export type { ObjectiveParams, Semantics, SourceInfo };

/**
 * The artifact limit from `MODEL_MAX_BYTES` (a whole number of bytes from 1 to 25 MiB); unset or
 * empty means the 8 MiB default. Anything else is a configuration error naming the variable.
 */
export function artifactMaxBytes(value: string | undefined): Result<number> {
  if (value === undefined || value.trim() === "") return ok(DEFAULT_ARTIFACT_MAX_BYTES);
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > MAX_ARTIFACT_BYTES) {
    return fail([
      issue(
        ARTIFACT_MAX_BYTES_ENV,
        `must be a whole number of bytes from 1 to ${MAX_ARTIFACT_BYTES} (the KV value limit), got ${JSON.stringify(value)}`,
      ),
    ]);
  }
  return ok(n);
}

/** UTF-8 length of `text`, counted without encoding it (an artifact may be megabytes). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The artifact text's UTF-8 size when it is above `maxBytes`, else null. A UTF-16 code unit is 1 to
 * 3 bytes, so most texts are decided from their length alone; only the others are counted.
 */
export function artifactOversize(text: string, maxBytes: number): number | null {
  if (text.length * 3 <= maxBytes) return null;
  if (text.length > maxBytes) return utf8ByteLength(text);
  const bytes = utf8ByteLength(text);
  return bytes > maxBytes ? bytes : null;
}

/** The one-line refusal of an artifact above the limit, naming both sizes. */
export function artifactTooLargeMessage(bytes: number, maxBytes: number): string {
  return `the artifact is ${bytes} bytes, above the limit of ${maxBytes} bytes (${ARTIFACT_MAX_BYTES_ENV})`;
}
