// Public surface of the pure relevance core. Nothing here performs I/O or reads a clock.
export * from "./artifact/artifact.ts";
export { CompiledModel, compileModel } from "./artifact/compile.ts";
export { checkGolden, engineGoldenRows, withinTolerance } from "./artifact/golden.ts";
export {
  type LoadedModel,
  type LoadOptions,
  loadArtifact,
  parseArtifact,
  parseJson,
} from "./artifact/load.ts";
export * from "./artifact/model.ts";
export {
  applyTransform,
  baseMargin,
  knownObjectives,
  type OutputTransform,
  outputTransform,
} from "./artifact/objectives.ts";
export { recordFromRow, rowFromRecord } from "./artifact/rows.ts";
export * from "./artifact/training-profile.ts";
export { validateTree, validateTrees } from "./artifact/validate-trees.ts";
export * from "./config.ts";
export * from "./features.ts";
export { type BuildOptions, type BuiltArtifact, buildArtifact } from "./import/build-artifact.ts";
export { importLightgbm, parseLightgbmObjective } from "./import/lightgbm.ts";
export { importXgboost, parseBaseScore } from "./import/xgboost.ts";
export * from "./result.ts";
export { clampScore } from "./score.ts";
export { nfkc, tokenize, tokenSet } from "./tokenize.ts";
