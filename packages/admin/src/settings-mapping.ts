import { z } from "zod";

// The customer settings: camelCase in the API, snake_case in the settings record and its KV copy.

const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "must not contain control characters");

const attribute = text(256);
const word = text(256);
const attributeList = z.array(attribute).max(1000);

const SETTINGS = [
  ["searchableAttributes", "searchable_attributes", ["*"]],
  ["displayedAttributes", "displayed_attributes", ["*"]],
  ["filterableAttributes", "filterable_attributes", []],
  ["sortableAttributes", "sortable_attributes", []],
  ["synonyms", "synonyms", {}],
  ["stopWords", "stop_words", []],
] as const;

/** Internal settings the customer API rejects in either spelling (seed 1, 4.3). */
export const INTERNAL_SETTINGS = ["relevanceTriggerConfig", "relevance_trigger_config"] as const;

/** A PATCH body: any subset of the settings; null resets one to its default. Unknown keys are refused. */
export const SettingsPatch = z.strictObject({
  searchableAttributes: attributeList.nullable().optional(),
  displayedAttributes: attributeList.nullable().optional(),
  filterableAttributes: attributeList.nullable().optional(),
  sortableAttributes: attributeList.nullable().optional(),
  synonyms: z
    .record(word, z.array(word).max(100))
    .refine((value) => Object.keys(value).length <= 10_000, "must have at most 10000 entries")
    .nullable()
    .optional(),
  stopWords: z.array(word).max(10_000).nullable().optional(),
});
export type SettingsPatch = z.output<typeof SettingsPatch>;

export interface CustomerSettings {
  searchableAttributes: string[];
  displayedAttributes: string[];
  filterableAttributes: string[];
  sortableAttributes: string[];
  synonyms: Record<string, string[]>;
  stopWords: string[];
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
