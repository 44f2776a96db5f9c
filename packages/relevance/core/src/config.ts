import { at, describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "./result.ts";

/** Admin API form (camelCase). */
export interface RelevanceTriggerConfig {
  modelId: string;
  titleField: string | null;
  tagsField: string | null;
}

/** Stored form in the settings record and its KV copy (snake_case, NULL allowed). */
export interface StoredRelevanceTriggerConfig {
  model_id: string;
  title_field: string | null;
  tags_field: string | null;
}

export const MAX_NAME_LENGTH = 256;
// C0, DEL and C1 controls; field names and model ids end up in logs and KV keys.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function checkName(value: unknown, path: string, nullable: boolean, errors: Issue[]): void {
  if (value === undefined) {
    errors.push(issue(path, nullable ? "is required (use null to skip these features)" : "is required"));
  } else if (value === null) {
    if (!nullable) errors.push(issue(path, "must be a string, not null"));
  } else if (typeof value !== "string") {
    errors.push(issue(path, `must be a string${nullable ? " or null" : ""}, got ${describeType(value)}`));
  } else if (value.length === 0) {
    errors.push(issue(path, "must not be empty"));
  } else if (value.length > MAX_NAME_LENGTH) {
    errors.push(issue(path, `must be at most ${MAX_NAME_LENGTH} characters`));
  } else if (CONTROL.test(value)) {
    errors.push(issue(path, "must not contain control characters"));
  }
}

type Keys = { modelId: string; titleField: string; tagsField: string };
const CAMEL: Keys = { modelId: "modelId", titleField: "titleField", tagsField: "tagsField" };
const SNAKE: Keys = { modelId: "model_id", titleField: "title_field", tagsField: "tags_field" };

/**
 * Why an index of `account` may not name `modelId`: it follows the `<system_account_id>:<index_name>:v<n>`
 * convention with another account in it. A model id off the convention is only a warning (the admin
 * API's), so it is not judged here.
 */
export function otherAccountModelProblem(modelId: string, account: string): string | null {
  const parts = parseModelId(modelId);
  if (parts === null || parts.account === account) return null;
  return `names a model of account ${parts.account}; an index of account ${account} may only use its own models (${account}:<index_name>:v<n>)`;
}

function validateWith(
  input: unknown,
  path: string,
  keys: Keys,
  account: string | undefined,
): Result<RelevanceTriggerConfig | null> {
  if (input === null) return ok(null);
  if (!isPlainObject(input))
    return fail([issue(path, `must be an object or null, got ${describeType(input)}`)]);
  const errors: Issue[] = [];
  const allowed = new Set(Object.values(keys));
  for (const key of Object.keys(input)) {
    if (!allowed.has(key)) errors.push(issue(at(path, key), "is not a known field"));
  }
  checkName(input[keys.modelId], at(path, keys.modelId), false, errors);
  checkName(input[keys.titleField], at(path, keys.titleField), true, errors);
  checkName(input[keys.tagsField], at(path, keys.tagsField), true, errors);
  if (errors.length === 0 && account !== undefined) {
    const other = otherAccountModelProblem(input[keys.modelId] as string, account);
    if (other !== null) errors.push(issue(at(path, keys.modelId), other));
  }
  if (errors.length > 0) return fail(errors);
  return ok({
    modelId: input[keys.modelId] as string,
    titleField: input[keys.titleField] as string | null,
    tagsField: input[keys.tagsField] as string | null,
  });
}

/**
 * Validates `relevanceTriggerConfig` as the admin API receives it; null disables scoring. With
 * `account` (the index's system account), a model id of another account is an error too.
 */
export function validateRelevanceTriggerConfig(
  input: unknown,
  path = "relevanceTriggerConfig",
  account?: string,
): Result<RelevanceTriggerConfig | null> {
  return validateWith(input, path, CAMEL, account);
}

/**
 * Validates `relevance_trigger_config` as stored (it may have come from a direct table edit), and
 * returns it in the camelCase form the rest of the code uses. With `account` (the record's system
 * account), a model id of another account makes it invalid: the search proxy does not score with it.
 */
export function validateStoredRelevanceTriggerConfig(
  input: unknown,
  path = "relevance_trigger_config",
  account?: string,
): Result<RelevanceTriggerConfig | null> {
  return validateWith(input, path, SNAKE, account);
}

export function toStoredConfig(config: RelevanceTriggerConfig): StoredRelevanceTriggerConfig {
  return { model_id: config.modelId, title_field: config.titleField, tags_field: config.tagsField };
}

export interface ModelIdParts {
  account: string;
  index: string;
  version: number;
}

const MODEL_ID = /^([^:\s]+):([A-Za-z0-9_-]{1,64}):v(\d{1,9})$/;

/** Parses the `<system_account_id>:<index_name>:v<n>` convention; null when an id does not follow it. */
export function parseModelId(modelId: string): ModelIdParts | null {
  const m = MODEL_ID.exec(modelId);
  if (m === null) return null;
  return { account: m[1] as string, index: m[2] as string, version: Number(m[3]) };
}

export const modelKey = (modelId: string): string => `relevance_model:${modelId}`;
