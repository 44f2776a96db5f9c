import { FEATURE_SET_V1, formatIssues, MAX_PROFILE_ROWS, validateFeatureRecord } from "@relevance/core";
import { UserError } from "../io.ts";
import { readJsonLines } from "../jsonl.ts";

type FeatureRecord = Record<string, number | null>;

/**
 * The rows of a training file (the JSON lines the trainers read: {"features", "label"?, "split"?})
 * whose distributions the artifact's training profile records. Rows marked "split": "holdout" are
 * left out, as the trainers leave them out of training; labels do not matter to a distribution. A
 * model feature absent from a row counts as missing, as the trainers count it.
 */
export function readProfileRows(text: string, path: string, features: readonly string[]): FeatureRecord[] {
  // Counted before any line is parsed, so an oversized file costs no parsing.
  let lines = 0;
  for (const line of text.split("\n")) if (line.trim() !== "") lines++;
  if (lines > MAX_PROFILE_ROWS)
    throw new UserError(
      `${path}: has ${lines} rows, above the limit of ${MAX_PROFILE_ROWS} for --profile-rows; pass a sample`,
    );
  // A training file carries every v1 feature; the model may use fewer.
  const known = new Set<string>([...features, ...FEATURE_SET_V1]);
  const rows = readJsonLines(text, path, (value, where): FeatureRecord | null => {
    const row = value as Record<string, unknown>;
    if (typeof row !== "object" || row === null || Array.isArray(row))
      throw new UserError(`${where}: must be an object {features, label?, split?}`);
    const errors: { path: string; message: string }[] = [];
    validateFeatureRecord(row.features, "features", known, errors);
    if (errors.length > 0) throw new UserError(`${where}: ${formatIssues(errors)}`);
    if (row.split === "holdout") return null;
    const record = row.features as Record<string, number | null | undefined>;
    return Object.fromEntries(features.map((name) => [name, record[name] ?? null]));
  }).filter((r): r is FeatureRecord => r !== null);
  if (rows.length === 0)
    throw new UserError(`${path}: has no training rows; write one JSON line {"features": {...}} per row`);
  return rows;
}
