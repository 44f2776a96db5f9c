import { FEATURE_SET_V1 } from "../features.ts";
import { at, describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "../result.ts";

const V1 = new Set<string>(FEATURE_SET_V1);

/**
 * Turns `{name: number | null}` into a row in the model's column order (null = missing = NaN).
 * Every model feature must be present, so a typo cannot silently become a missing value; other
 * feature-set-v1 names are accepted and ignored (a model may use a subset).
 */
export function rowFromRecord(
  features: readonly string[],
  input: unknown,
  path = "features",
): Result<Float64Array> {
  if (!isPlainObject(input))
    return fail([
      issue(path, `must be an object of feature name to number or null, got ${describeType(input)}`),
    ]);
  const errors: Issue[] = [];
  const columns = new Map(features.map((name, i) => [name, i]));
  const row = new Float64Array(features.length);
  for (const [name, value] of Object.entries(input)) {
    if (!columns.has(name) && !V1.has(name)) {
      errors.push(issue(at(path, name), "is not a feature of this model or of feature set v1"));
    } else if (value !== null && (typeof value !== "number" || !Number.isFinite(value))) {
      errors.push(
        issue(at(path, name), `must be a finite number or null (missing), got ${describeType(value)}`),
      );
    }
  }
  features.forEach((name, i) => {
    const value = input[name];
    if (value === undefined) errors.push(issue(at(path, name), "is absent (use null for a missing value)"));
    row[i] = typeof value === "number" ? value : Number.NaN;
  });
  return errors.length > 0 ? fail(errors) : ok(row);
}

/** The inverse of rowFromRecord, for golden rows and reports. */
export function recordFromRow(
  features: readonly string[],
  row: ArrayLike<number>,
): Record<string, number | null> {
  const record: Record<string, number | null> = {};
  features.forEach((name, i) => {
    const v = row[i] as number;
    record[name] = Number.isNaN(v) ? null : v;
  });
  return record;
}
