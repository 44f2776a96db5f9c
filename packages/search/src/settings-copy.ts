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

/** What search needs from an API key's KV copy (`apikey:<sha256>`): whose key it is. */
export function parseApiKeyCopy(text: string): Result<{ account: string }> {
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
  return ok({ account: value.system_account_id });
}

/** What search needs from an index or alias settings copy (`<account>-<index>`, written by the exporter). */
export interface SettingsView {
  type: "index" | "alias";
  /** Alias records: the index the alias points at. */
  aliasOf: string | undefined;
  primaryKey: string;
  searchableAttributes: string[];
  filterableAttributes: string[];
  /** As stored (snake_case, possibly absent or malformed): the scorer validates it. */
  relevanceTriggerConfig: unknown;
}

const DEFAULT_PRIMARY_KEY = "id";

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
  const v = json.value;
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
  if (errors.length > 0) return fail(errors);
  return ok({
    type: type as "index" | "alias",
    aliasOf: type === "alias" ? (aliasOf as string) : undefined,
    primaryKey: primaryKey as string,
    searchableAttributes,
    filterableAttributes,
    relevanceTriggerConfig: v.relevance_trigger_config,
  });
}
