import { at, describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "@relevance/core";
import { formatBytes } from "@relevance/http";
import { shortPath } from "./body.ts";
import { jsonBytes } from "./json-size.ts";
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTES,
  MAX_DETAILS,
  MAX_SETTINGS_BYTES,
  MAX_STOP_WORDS,
  MAX_SYNONYM_KEYS,
  MAX_SYNONYM_WORDS,
  MAX_WORD_CHARS,
} from "./limits.ts";

// The customer settings: camelCase in the API, snake_case in the settings record and its KV copy.

const SETTINGS = [
  ["searchableAttributes", "searchable_attributes", ["*"]],
  ["displayedAttributes", "displayed_attributes", ["*"]],
  ["filterableAttributes", "filterable_attributes", []],
  ["sortableAttributes", "sortable_attributes", []],
  ["synonyms", "synonyms", {}],
  ["stopWords", "stop_words", []],
] as const;

const ATTRIBUTE_LISTS = [
  "searchableAttributes",
  "displayedAttributes",
  "filterableAttributes",
  "sortableAttributes",
] as const;

/** Internal settings the customer API rejects in either spelling (seed 1, 4.3). */
export const INTERNAL_SETTINGS = ["relevanceTriggerConfig", "relevance_trigger_config"] as const;

/** A PATCH body: any subset of the settings; null resets one to its default. */
export interface SettingsPatch {
  searchableAttributes?: string[] | null;
  displayedAttributes?: string[] | null;
  filterableAttributes?: string[] | null;
  sortableAttributes?: string[] | null;
  synonyms?: Record<string, string[]> | null;
  stopWords?: string[] | null;
}

export interface CustomerSettings {
  searchableAttributes: string[];
  displayedAttributes: string[];
  filterableAttributes: string[];
  sortableAttributes: string[];
  synonyms: Record<string, string[]>;
  stopWords: string[];
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
    checkText(problems, path, word, MAX_WORD_CHARS);
    checkList(problems, path, value[word], MAX_SYNONYM_WORDS, MAX_WORD_CHARS, "synonyms");
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
    checkList(problems, "stopWords", input.stopWords, MAX_STOP_WORDS, MAX_WORD_CHARS, "words");
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
    `the settings would take ${bytes} bytes, more than the limit of ${formatBytes(MAX_SETTINGS_BYTES)} (all six together, as GET answers them)`,
  );
}

/** The customer view of a settings record: only the six customer settings, with their defaults. */
export function customerSettings(attributes: Record<string, unknown>): CustomerSettings {
  const view: Record<string, unknown> = {};
  for (const [camel, snake, fallback] of SETTINGS) view[camel] = attributes[snake] ?? fallback;
  return view as unknown as CustomerSettings;
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
    else if (value !== undefined) next[snake] = value;
  }
  return next;
}
