import {
  describeType,
  fail,
  type Issue,
  isPlainObject,
  issue,
  ok,
  parseJson,
  type Result,
} from "@relevance/core";
import { type ApiKeyGrant, DEFAULT_RANKING_RULES, grantOf } from "@relevance/settings";
import type { TypoTolerance } from "./ports.ts";

// Re-exported: part of this package's API since before the rules moved to @relevance/settings.
export { DEFAULT_RANKING_RULES };

/** What search needs from an API key's KV copy (`apikey:<sha256>`): whose key it is, what it may do. */
export function parseApiKeyCopy(text: string): Result<{ account: string; grant: ApiKeyGrant }> {
  const json = parseJson(text, "the API key copy");
  if (!json.ok) return json;
  const value = json.value;
  if (
    !isPlainObject(value) ||
    typeof value.system_account_id !== "string" ||
    value.system_account_id === ""
  ) {
    return fail([issue("system_account_id", "must be a non-empty string")]);
  }
  // A copy without actions (exported before keys had scopes) may do everything, as the table says.
  return ok({ account: value.system_account_id, grant: grantOf(value) });
}

/** What search needs from an index or alias settings copy (`<account>-<index>`, written by the exporter). */
export interface SettingsView {
  type: "index" | "alias";
  /** Alias records: the index the alias points at. */
  aliasOf: string | undefined;
  primaryKey: string;
  searchableAttributes: string[];
  filterableAttributes: string[];
  displayedAttributes: string[];
  sortableAttributes: string[];
  synonyms: Record<string, string[]>;
  stopWords: string[];
  typoTolerance: TypoTolerance;
  rankingRules: string[];
  /** As stored (snake_case, possibly absent or malformed): the scorer validates it. */
  relevanceTriggerConfig: unknown;
  /**
   * `relevance_recording_config` as stored (`{sample_rate}`, possibly absent or malformed): which
   * share of the scored searches is recorded; @relevance/outcomes reads it (recordingSampleRate).
   */
  relevanceRecordingConfig: unknown;
  /**
   * `relevance_shadow_config` as stored (`{model_id, sample_rate}`, possibly absent or malformed):
   * the model that scores a sampled share of the scored searches after the answer has left;
   * @relevance/outcomes reads it (shadowConfigOf).
   */
  relevanceShadowConfig: unknown;
  /**
   * `relevance_canary_config` as stored (`{model_id, percent}`, possibly absent or malformed): the
   * candidate model that serves the score to a stable share of shoppers; @relevance/outcomes reads it
   * (canaryConfigOf).
   */
  relevanceCanaryConfig: unknown;
}

const DEFAULT_PRIMARY_KEY = "id";

/** Meilisearch's defaults, for copies written before a setting existed or without it set. */
export const DEFAULT_TYPO_TOLERANCE: TypoTolerance = {
  enabled: true,
  minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
  disableOnWords: [],
  disableOnAttributes: [],
};

function wordSize(value: unknown, fallback: number, path: string, errors: Issue[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    errors.push(issue(path, `must be a whole number >= 0, got ${describeType(value)}`));
    return fallback;
  }
  return value;
}

function typoToleranceOf(value: unknown, errors: Issue[]): TypoTolerance {
  if (value === undefined || value === null) return DEFAULT_TYPO_TOLERANCE;
  if (!isPlainObject(value)) {
    errors.push(issue("typo_tolerance", `must be an object, got ${describeType(value)}`));
    return DEFAULT_TYPO_TOLERANCE;
  }
  const enabled = value.enabled ?? true;
  if (typeof enabled !== "boolean") errors.push(issue("typo_tolerance.enabled", "must be a boolean"));
  const sizes = value.minWordSizeForTypos ?? {};
  const defaults = DEFAULT_TYPO_TOLERANCE.minWordSizeForTypos;
  let minWordSizeForTypos = defaults;
  if (!isPlainObject(sizes)) {
    errors.push(issue("typo_tolerance.minWordSizeForTypos", "must be an object"));
  } else {
    const path = "typo_tolerance.minWordSizeForTypos";
    minWordSizeForTypos = {
      oneTypo: wordSize(sizes.oneTypo, defaults.oneTypo, `${path}.oneTypo`, errors),
      twoTypos: wordSize(sizes.twoTypos, defaults.twoTypos, `${path}.twoTypos`, errors),
    };
  }
  return {
    enabled: enabled === true,
    minWordSizeForTypos,
    disableOnWords: stringList(value.disableOnWords, "typo_tolerance.disableOnWords", errors),
    disableOnAttributes: stringList(value.disableOnAttributes, "typo_tolerance.disableOnAttributes", errors),
  };
}

function synonymsOf(value: unknown, errors: Issue[]): Record<string, string[]> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) {
    errors.push(issue("synonyms", `must be an object of word → words, got ${describeType(value)}`));
    return {};
  }
  const synonyms: Record<string, string[]> = Object.create(null);
  for (const [word, list] of Object.entries(value)) {
    synonyms[word] = stringList(list, `synonyms.${word}`, errors);
  }
  return synonyms;
}

function stringList(value: unknown, path: string, errors: Issue[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    errors.push(issue(path, `must be an array of strings, got ${describeType(value)}`));
    return [];
  }
  return value;
}

/**
 * Reads a settings copy. The relevance config is passed through untouched: a malformed one must
 * only cost the score (the scorer logs it), never the search.
 */
export function parseSettingsCopy(text: string): Result<SettingsView> {
  const json = parseJson(text, "the settings copy");
  if (!json.ok) return json;
  return settingsView(json.value);
}

/**
 * The same reading of a settings copy already in memory (the change stream hands the record itself):
 * no JSON round trip inside one process.
 */
export function settingsView(v: unknown): Result<SettingsView> {
  if (!isPlainObject(v)) return fail([issue("", `must be an object, got ${describeType(v)}`)]);
  const errors: Issue[] = [];
  const type = v.type ?? "index";
  if (type !== "index" && type !== "alias") errors.push(issue("type", 'must be "index" or "alias"'));
  const aliasOf = v.alias_of;
  if (type === "alias" && (typeof aliasOf !== "string" || aliasOf === "")) {
    errors.push(issue("alias_of", "must be a non-empty string on an alias record"));
  }
  const primaryKey = v.primary_key ?? DEFAULT_PRIMARY_KEY;
  if (typeof primaryKey !== "string" || primaryKey === "") {
    errors.push(issue("primary_key", "must be a non-empty string"));
  }
  const searchableAttributes = stringList(v.searchable_attributes, "searchable_attributes", errors);
  const filterableAttributes = stringList(v.filterable_attributes, "filterable_attributes", errors);
  const displayedAttributes =
    v.displayed_attributes === undefined || v.displayed_attributes === null
      ? ["*"]
      : stringList(v.displayed_attributes, "displayed_attributes", errors);
  const sortableAttributes = stringList(v.sortable_attributes, "sortable_attributes", errors);
  const synonyms = synonymsOf(v.synonyms, errors);
  const stopWords = stringList(v.stop_words, "stop_words", errors);
  const typoTolerance = typoToleranceOf(v.typo_tolerance, errors);
  const rankingRules =
    v.ranking_rules === undefined || v.ranking_rules === null
      ? DEFAULT_RANKING_RULES
      : stringList(v.ranking_rules, "ranking_rules", errors);
  if (errors.length > 0) return fail(errors);
  return ok({
    type: type as "index" | "alias",
    aliasOf: type === "alias" ? (aliasOf as string) : undefined,
    primaryKey: primaryKey as string,
    searchableAttributes,
    filterableAttributes,
    displayedAttributes,
    sortableAttributes,
    synonyms,
    stopWords,
    typoTolerance,
    rankingRules,
    relevanceTriggerConfig: v.relevance_trigger_config,
    relevanceRecordingConfig: v.relevance_recording_config,
    relevanceShadowConfig: v.relevance_shadow_config,
    relevanceCanaryConfig: v.relevance_canary_config,
  });
}
