import { fail, issue, ok, type Result } from "../result.ts";
import { type ModelArtifact, validateArtifact } from "./artifact.ts";
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

/**
 * Parse, validate and compile an artifact. `checkGolden` re-computes the golden rows so that a
 * loader can refuse an artifact this engine would evaluate differently from its source.
 */
export function loadArtifact(text: string, options: { checkGolden?: boolean } = {}): Result<LoadedModel> {
  const parsed = parseArtifact(text);
  if (!parsed.ok) return parsed;
  const model = compileModel(parsed.value);
  if (options.checkGolden) {
    const errors = checkGolden(model, parsed.value.golden);
    if (errors.length > 0) return fail(errors);
  }
  return ok({ artifact: parsed.value, model });
}
