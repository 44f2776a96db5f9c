import { fail, issue, ok, type Result } from "../result.ts";
import {
  artifactOversize,
  artifactTooLargeMessage,
  DEFAULT_ARTIFACT_MAX_BYTES,
  type ModelArtifact,
  validateArtifact,
} from "./artifact.ts";
import { type CompiledModel, compileModel } from "./compile.ts";
import { checkGolden } from "./golden.ts";

export interface LoadedModel {
  artifact: ModelArtifact;
  model: CompiledModel;
}

export function parseJson(text: string, what: string): Result<unknown> {
  try {
    return ok(JSON.parse(text));
  } catch (error) {
    return fail([issue("", `${what} is not valid JSON (${(error as Error).message})`)]);
  }
}

export function parseArtifact(text: string): Result<ModelArtifact> {
  const json = parseJson(text, "the artifact");
  return json.ok ? validateArtifact(json.value) : json;
}

export interface LoadOptions {
  /** Re-compute the golden rows, so that a loader can refuse an artifact this engine would evaluate differently from its source. */
  checkGolden?: boolean;
  /** Refuse a text above this many UTF-8 bytes before parsing it. Default 8 MiB (`MODEL_MAX_BYTES`). */
  maxBytes?: number;
}

/**
 * Parse, validate and compile an artifact. The size is checked first: parsing JSON costs several
 * times the text's size in memory, so an oversized artifact is refused before `JSON.parse` runs.
 */
export function loadArtifact(text: string, options: LoadOptions = {}): Result<LoadedModel> {
  const maxBytes = options.maxBytes ?? DEFAULT_ARTIFACT_MAX_BYTES;
  const oversize = artifactOversize(text, maxBytes);
  if (oversize !== null) return fail([issue("", artifactTooLargeMessage(oversize, maxBytes))]);
  const parsed = parseArtifact(text);
  if (!parsed.ok) return parsed;
  const model = compileModel(parsed.value);
  if (options.checkGolden) {
    const errors = checkGolden(model, parsed.value.golden);
    if (errors.length > 0) return fail(errors);
  }
  return ok({ artifact: parsed.value, model });
}
