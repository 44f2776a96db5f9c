import {
  at,
  describeType,
  fail,
  type Issue,
  isPlainObject,
  issue,
  ok,
  type Result,
  tokenize,
} from "@relevance/core";
import { formatBytes, MAX_ERROR_DETAILS as MAX_DETAILS, shortPath } from "@shared/http";
import { jsonBytes } from "@shared/kernel";
import { DEFAULT_RANKING_RULES, rankingRulesSupported } from "./ranking-rules.ts";
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTES,
  MAX_RANKING_RULES,
  MAX_SETTINGS_BYTES,
  MAX_STOP_WORDS,
  MAX_SYNONYM_KEYS,
  MAX_SYNONYM_WORDS,
  MAX_TYPO_DISABLED_WORDS,
  MAX_TYPO_WORD_SIZE,
  MAX_WORD_CHARS,
} from "./settings-limits.ts";

// The customer settings: camelCase in the API, snake_case in the settings record and its KV copy.

/** Meilisearch's default ranking rules: the only list the embedded engine ranks by. */

/** Meilisearch's default typo tolerance. */
export const DEFAULT_TYPO_TOLERANCE: TypoTolerance = {
  enabled: true,
  minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
  disableOnWords: [],
  disableOnAttributes: [],
};

const SETTINGS = [
  ["searchableAttributes", "searchable_attributes", ["*"]],
  ["displayedAttributes", "displayed_attributes", ["*"]],
  ["filterableAttributes", "filterable_attributes", []],
  ["sortableAttributes", "sortable_attributes", []],
  ["synonyms", "synonyms", {}],
  ["stopWords", "stop_words", []],
  ["typoTolerance", "typo_tolerance", DEFAULT_TYPO_TOLERANCE],
  ["rankingRules", "ranking_rules", DEFAULT_RANKING_RULES],
] as const;

const ATTRIBUTE_LISTS = [
  "searchableAttributes",
  "displayedAttributes",
  "filterableAttributes",
  "sortableAttributes",
] as const;

/** Internal settings the customer API rejects in either spelling (4.3). */
export const INTERNAL_SETTINGS = ["relevanceTriggerConfig", "relevance_trigger_config"] as const;

/** A PATCH body: any subset of the settings; null resets one to its default. */
export interface SettingsPatch {
  searchableAttributes?: string[] | null;
  displayedAttributes?: string[] | null;
  filterableAttributes?: string[] | null;
  sortableAttributes?: string[] | null;
  synonyms?: Record<string, string[]> | null;
  stopWords?: string[] | null;
  /** Merged into the stored value (minWordSizeForTypos too), as Meilisearch merges it. */
  typoTolerance?: TypoTolerancePatch | null;
  rankingRules?: string[] | null;
}

export interface TypoTolerance {
  enabled: boolean;
  minWordSizeForTypos: { oneTypo: number; twoTypos: number };
  disableOnWords: string[];
  disableOnAttributes: string[];
}

export interface TypoTolerancePatch {
  enabled?: boolean;
  minWordSizeForTypos?: { oneTypo?: number; twoTypos?: number };
  disableOnWords?: string[];
  disableOnAttributes?: string[];
}

export interface CustomerSettings {
  searchableAttributes: string[];
  displayedAttributes: string[];
  filterableAttributes: string[];
  sortableAttributes: string[];
  synonyms: Record<string, string[]>;
  stopWords: string[];
  typoTolerance: TypoTolerance;
  rankingRules: string[];
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Stops collecting once 100 problems are known: a body of 200,000 bad words answers 100 of them. */
class Problems {
  readonly list: Issue[] = [];
  get full(): boolean {
    return this.list.length >= MAX_DETAILS;
  }
  add(path: string, message: string): void {
    if (!this.full) this.list.push(issue(shortPath(path), message));
  }
}

function checkText(problems: Problems, path: string, value: unknown, max: number): void {
  if (typeof value !== "string") problems.add(path, `must be a string, got ${describeType(value)}`);
  else if (value.length === 0) problems.add(path, "must not be empty");
  else if (value.length > max) {
    problems.add(path, `is ${value.length} characters, more than the limit of ${max}`);
  } else if (CONTROL.test(value)) problems.add(path, "must not contain control characters");
}

function checkList(
  problems: Problems,
  path: string,
  value: unknown,
  maxItems: number,
  maxChars: number,
  noun = "items",
): void {
  if (!Array.isArray(value)) {
    problems.add(path, `must be an array of strings or null, got ${describeType(value)}`);
    return;
  }
  // The count first: its items are not looked at, so an oversized list costs no more than its length.
  if (value.length > maxItems) {
    problems.add(path, `has ${value.length} ${noun}, more than the limit of ${maxItems}`);
    return;
  }
  for (let i = 0; i < value.length && !problems.full; i++)
    checkText(problems, at(path, i), value[i], maxChars);
}

/** A synonym, stop word or typo-exempt word must be one word as search tokenizes it. */
function checkOneWord(problems: Problems, path: string, value: unknown, what: string): void {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_WORD_CHARS) return;
  const words = tokenize(value).length;
  if (words !== 1) {
    problems.add(
      path,
      words === 0
        ? `${JSON.stringify(value)} has no letters or digits: it can never match a word`
        : `${JSON.stringify(value)} is ${words} words: ${what} must be single words`,
    );
  }
}

function checkWords(problems: Problems, path: string, value: unknown, max: number, what: string): void {
  const before = problems.list.length;
  checkList(problems, path, value, max, MAX_WORD_CHARS, "words");
  if (problems.list.length > before || !Array.isArray(value)) return;
  for (let i = 0; i < value.length && !problems.full; i++)
    checkOneWord(problems, at(path, i), value[i], what);
}

const TYPO_FIELDS = new Set(["enabled", "minWordSizeForTypos", "disableOnWords", "disableOnAttributes"]);

function checkWordSize(problems: Problems, path: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_TYPO_WORD_SIZE) {
    problems.add(
      path,
      `must be a whole number from 0 to ${MAX_TYPO_WORD_SIZE}, got ${JSON.stringify(value)}`,
    );
  }
}

function checkTypoTolerance(problems: Problems, value: unknown): void {
  if (!isPlainObject(value)) {
    problems.add("typoTolerance", `must be an object or null, got ${describeType(value)}`);
    return;
  }
  for (const key of Object.keys(value)) {
    if (!TYPO_FIELDS.has(key)) {
      problems.add(
        at("typoTolerance", key),
        key === "disableOnNumbers" ? "is not supported by the embedded engine" : "is not a known field",
      );
    }
  }
  if (value.enabled !== undefined && typeof value.enabled !== "boolean") {
    problems.add("typoTolerance.enabled", `must be a boolean, got ${describeType(value.enabled)}`);
  }
  const sizes = value.minWordSizeForTypos;
  if (sizes !== undefined) {
    const path = "typoTolerance.minWordSizeForTypos";
    if (!isPlainObject(sizes)) problems.add(path, `must be an object, got ${describeType(sizes)}`);
    else {
      for (const key of Object.keys(sizes)) {
        if (key !== "oneTypo" && key !== "twoTypos") problems.add(at(path, key), "is not a known field");
      }
      checkWordSize(problems, `${path}.oneTypo`, sizes.oneTypo);
      checkWordSize(problems, `${path}.twoTypos`, sizes.twoTypos);
    }
  }
  if (value.disableOnWords !== undefined) {
    checkWords(
      problems,
      "typoTolerance.disableOnWords",
      value.disableOnWords,
      MAX_TYPO_DISABLED_WORDS,
      "the words without typos",
    );
  }
  const attributes = value.disableOnAttributes;
  if (attributes !== undefined) {
    const before = problems.list.length;
    checkList(problems, "typoTolerance.disableOnAttributes", attributes, MAX_ATTRIBUTES, MAX_ATTRIBUTE_CHARS);
    if (problems.list.length === before && Array.isArray(attributes) && attributes.length > 0) {
      problems.add(
        "typoTolerance.disableOnAttributes",
        "is not supported by the embedded engine (only [] is accepted)",
      );
    }
  }
}

function checkRankingRules(problems: Problems, value: unknown): void {
  const before = problems.list.length;
  checkList(problems, "rankingRules", value, MAX_RANKING_RULES, MAX_ATTRIBUTE_CHARS, "rules");
  if (problems.list.length > before) return;
  if (!rankingRulesSupported(value as string[])) {
    problems.add(
      "rankingRules",
      `only the default ${JSON.stringify(DEFAULT_RANKING_RULES)} is supported, with "sort" at any position: the embedded engine cannot rank otherwise`,
    );
  }
}

function checkSynonyms(problems: Problems, value: unknown): void {
  if (!isPlainObject(value)) {
    problems.add("synonyms", `must be an object of word → synonyms, or null, got ${describeType(value)}`);
    return;
  }
  const words = Object.keys(value);
  if (words.length > MAX_SYNONYM_KEYS) {
    problems.add("synonyms", `has ${words.length} words, more than the limit of ${MAX_SYNONYM_KEYS}`);
    return;
  }
  for (const word of words) {
    if (problems.full) return;
    const path = at("synonyms", word);
    const before = problems.list.length;
    checkText(problems, path, word, MAX_WORD_CHARS);
    checkList(problems, path, value[word], MAX_SYNONYM_WORDS, MAX_WORD_CHARS, "synonyms");
    if (problems.list.length > before) continue;
    // Multi-word synonyms ("smart phone") would need phrase matching the embedded engine lacks.
    checkOneWord(problems, path, word, "synonyms");
    const list = value[word] as string[];
    for (let i = 0; i < list.length && !problems.full; i++) {
      checkOneWord(problems, at(path, i), list[i], "synonyms");
    }
  }
}

/**
 * A PATCH body, checked by hand rather than by a schema library: every bound (items, characters) is
 * checked before the items it bounds, at most 100 problems are collected, and the work is one pass
 * over the body (a 1 MiB body of 10,000 synonyms costs a few milliseconds). Unknown keys are refused.
 */
export function validateSettingsPatch(input: unknown): Result<SettingsPatch> {
  if (!isPlainObject(input)) return fail([issue("", `must be an object, got ${describeType(input)}`)]);
  const problems = new Problems();
  const known = new Set<string>(SETTINGS.map(([camel]) => camel));
  for (const key of Object.keys(input)) {
    if (!known.has(key)) problems.add(key, "is not a known field");
  }
  for (const name of ATTRIBUTE_LISTS) {
    const value = input[name];
    if (value !== undefined && value !== null) {
      checkList(problems, name, value, MAX_ATTRIBUTES, MAX_ATTRIBUTE_CHARS);
    }
  }
  if (input.synonyms !== undefined && input.synonyms !== null) checkSynonyms(problems, input.synonyms);
  if (input.stopWords !== undefined && input.stopWords !== null) {
    checkWords(problems, "stopWords", input.stopWords, MAX_STOP_WORDS, "stop words");
  }
  if (input.typoTolerance !== undefined && input.typoTolerance !== null) {
    checkTypoTolerance(problems, input.typoTolerance);
  }
  if (input.rankingRules !== undefined && input.rankingRules !== null) {
    checkRankingRules(problems, input.rankingRules);
  }
  if (problems.list.length > 0) return fail(problems.list);
  const patch = input as SettingsPatch;
  // The patch's own values are part of the settings after it, so a patch over the total is refused
  // before the record is read.
  const sizeProblem = settingsSizeProblem(patchValues(patch));
  return sizeProblem === null ? ok(patch) : fail([sizeProblem]);
}

function patchValues(patch: SettingsPatch): Partial<CustomerSettings> {
  const values: Record<string, unknown> = {};
  for (const [camel] of SETTINGS) {
    const value = patch[camel];
    if (value !== undefined && value !== null) values[camel] = value;
  }
  return values;
}

/** The 422 detail when `settings` take more than 256 KiB as JSON; null when they fit. */
export function settingsSizeProblem(settings: Partial<CustomerSettings>): Issue | null {
  const bytes = jsonBytes(settings);
  if (bytes <= MAX_SETTINGS_BYTES) return null;
  return issue(
    "settings",
    `the settings would take ${bytes} bytes, more than the limit of ${formatBytes(MAX_SETTINGS_BYTES)} (all eight together, as GET answers them)`,
  );
}

/** The customer view of a settings record: only the eight customer settings, with their defaults. */
export function customerSettings(attributes: Record<string, unknown>): CustomerSettings {
  const view: Record<string, unknown> = {};
  for (const [camel, snake, fallback] of SETTINGS) view[camel] = attributes[snake] ?? fallback;
  view.typoTolerance = mergeTypoTolerance(DEFAULT_TYPO_TOLERANCE, attributes.typo_tolerance);
  return view as unknown as CustomerSettings;
}

/** `patch` merged over `base` (minWordSizeForTypos field by field), as Meilisearch merges it. */
function mergeTypoTolerance<T extends TypoTolerancePatch>(base: T, patch: unknown): T {
  if (!isPlainObject(patch)) return base;
  const typed = patch as TypoTolerancePatch;
  const merged: TypoTolerancePatch = { ...base, ...typed };
  if (base.minWordSizeForTypos !== undefined || typed.minWordSizeForTypos !== undefined) {
    merged.minWordSizeForTypos = { ...base.minWordSizeForTypos, ...typed.minWordSizeForTypos };
  }
  return merged as T;
}

/**
 * The 422 detail when the settings after a PATCH are inconsistent in a way no one field shows
 * (Meilisearch: `oneTypo` must not exceed `twoTypos`); null when they are consistent.
 */
export function mergedSettingsProblem(settings: CustomerSettings): Issue | null {
  const { oneTypo, twoTypos } = settings.typoTolerance.minWordSizeForTypos;
  if (oneTypo <= twoTypos) return null;
  return issue(
    "typoTolerance.minWordSizeForTypos",
    `oneTypo (${oneTypo}) must not be greater than twoTypos (${twoTypos})`,
  );
}

/** The record's attributes with `patch` applied (null removes a setting, so its default applies). */
export function applySettingsPatch(
  attributes: Record<string, unknown>,
  patch: SettingsPatch,
): Record<string, unknown> {
  const next = { ...attributes };
  for (const [camel, snake] of SETTINGS) {
    const value = patch[camel];
    if (value === null) delete next[snake];
    else if (camel === "typoTolerance" && value !== undefined) {
      next[snake] = mergeTypoTolerance(isPlainObject(next[snake]) ? next[snake] : {}, value);
    } else if (value !== undefined) next[snake] = value;
  }
  return next;
}
