import {
  fail,
  type Issue,
  isPlainObject,
  issue,
  modelKey,
  parseArtifact,
  parseModelId,
  type RelevanceTriggerConfig,
  type Result,
  validateRelevanceTriggerConfig,
  validateStoredRelevanceTriggerConfig,
} from "@relevance/core";
import type { Kv } from "@relevance/settings";

export const BODY_KEY = "relevanceTriggerConfig";

/**
 * The admin PUT body: an object whose only key is `relevanceTriggerConfig`, either null
 * or `{modelId, titleField, tagsField}` as the core validates it. With `account` (the path's system
 * account), a `modelId` of another account (`<other>:<index>:v<n>`) is refused too. Every problem is
 * returned.
 */
export function validatePutBody(input: unknown, account?: string): Result<RelevanceTriggerConfig | null> {
  if (!isPlainObject(input)) {
    return fail([issue("", `must be an object with the one key ${BODY_KEY}`)]);
  }
  const errors: Issue[] = [];
  for (const key of Object.keys(input)) {
    if (key !== BODY_KEY)
      errors.push(issue(key, `is not a known field; the body has the one key ${BODY_KEY}`));
  }
  if (!Object.hasOwn(input, BODY_KEY)) {
    errors.push(issue(BODY_KEY, "is required (null disables scoring)"));
    return fail(errors);
  }
  const config = validateRelevanceTriggerConfig(input[BODY_KEY], BODY_KEY, account);
  if (!config.ok) return fail([...errors, ...config.errors]);
  return errors.length > 0 ? fail(errors) : config;
}

/** What the admin GET shows of a stored `relevance_trigger_config`. */
export interface ConfigView {
  relevanceTriggerConfig: RelevanceTriggerConfig | null | unknown;
  /**
   * Present only when the stored value is malformed or names another account's model (a direct
   * table edit): then `relevanceTriggerConfig` is the stored value as is, and the search proxy does
   * not score.
   */
  storedConfigProblems?: Issue[];
}

export function configView(stored: unknown, account?: string): ConfigView {
  if (stored === undefined) return { relevanceTriggerConfig: null };
  const valid = validateStoredRelevanceTriggerConfig(stored, undefined, account);
  if (valid.ok) return { relevanceTriggerConfig: valid.value };
  return { relevanceTriggerConfig: stored, storedConfigProblems: valid.errors };
}

const show = (name: string | null): string => (name === null ? "null" : JSON.stringify(name));

/**
 * Warnings, never errors (upload and configure are independent procedures): the artifact is not
 * uploaded yet or does not load, the model id does not follow the convention, or the artifact was
 * trained on other title/tags field names than the configured ones.
 */
export async function configWarnings(kv: Kv, config: RelevanceTriggerConfig): Promise<string[]> {
  const warnings: string[] = [];
  const key = modelKey(config.modelId);
  if (parseModelId(config.modelId) === null) {
    warnings.push(
      `modelId ${JSON.stringify(config.modelId)} does not follow <system_account_id>:<index_name>:v<n>`,
    );
  }
  const text = await kv.get(key);
  if (text === null) {
    warnings.push(`no model artifact under ${key} yet; the index is not scored until it is uploaded`);
    return warnings;
  }
  const artifact = parseArtifact(text);
  if (!artifact.ok) {
    warnings.push(`the value under ${key} is not a valid model artifact; the index is not scored`);
    return warnings;
  }
  const trained = artifact.value.trainedOn;
  if (trained.titleField !== config.titleField) {
    warnings.push(
      `the model was trained with titleField ${show(trained.titleField)}, not ${show(config.titleField)}; its title features will be wrong`,
    );
  }
  if (trained.tagsField !== config.tagsField) {
    warnings.push(
      `the model was trained with tagsField ${show(trained.tagsField)}, not ${show(config.tagsField)}; its tag features will be wrong`,
    );
  }
  return warnings;
}

/** `If-Match: "<version>"`, `W/"<version>"` or a bare number; `*` matches any version. */
export function parseIfMatch(header: string | undefined): number | "any" | "absent" | "invalid" {
  if (header === undefined) return "absent";
  const value = header.trim();
  if (value === "*") return "any";
  const m = /^(?:W\/)?"(\d{1,15})"$|^(\d{1,15})$/.exec(value);
  if (m === null) return "invalid";
  return Number(m[1] ?? m[2]);
}
