/**
 * One observation of a cloud resource, the row shape of `svc.resources` (migration 7, contract in
 * docs/monitor-tables.md). Pure: validation and tag mapping, no I/O.
 */
import { at, type Issue, isPlainObject, type Result } from "./result.ts";

/** Table name collectors pass to `RowSink.write` for resource rows. */
export const RESOURCES_TABLE = "resources";

export const RESOURCE_TYPES = [
  "ec2_instance",
  "ebs_volume",
  "vpc",
  "subnet",
  "security_group",
  "nat_gateway",
] as const;

// A type alias, not an interface: rows are handed to RowSink.write as Record<string, unknown>.
export type ResourceRow = {
  resource_id: string;
  /** ec2_instance | ebs_volume | vpc | subnet | security_group | nat_gateway | ... (open set). */
  resource_type: string;
  arn: string;
  cloud_account_id: string;
  cloud_region: string;
  tags: Record<string, string>;
  /** Type-specific fields (instance type, state, size_gb, ...); stored as JSON text. */
  attributes: Record<string, unknown>;
  /** Epoch ms. */
  observed_at: number;
  run_id: string;
  collector: string;
};

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** DateTime64(3) range used by the stores: 1970-01-01 .. 2299-12-31. */
const MAX_MS = 10_413_791_999_999;

/** AWS `Tags: [{ Key, Value }]` → a map. Entries without a key are dropped; a missing value is "". */
export function tagsFromAws(
  tags: readonly { Key?: string; Value?: string }[] | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) {
    if (typeof t.Key === "string" && t.Key !== "") out[t.Key] = t.Value ?? "";
  }
  return out;
}

function text(value: unknown, path: string, errors: Issue[], nonEmpty: boolean): string {
  if (typeof value !== "string") {
    errors.push({ path, message: "must be a string" });
    return "";
  }
  if (nonEmpty && value === "") errors.push({ path, message: "must not be empty" });
  return value;
}

/** Checks one row before it is sent to the database; every problem is reported with its field. */
export function validateResourceRow(input: unknown, path = ""): Result<ResourceRow> {
  const errors: Issue[] = [];
  if (!isPlainObject(input))
    return { ok: false, errors: [{ path: path || "row", message: "must be an object" }] };
  const row = {
    resource_id: text(input.resource_id, at(path, "resource_id"), errors, true),
    resource_type: text(input.resource_type, at(path, "resource_type"), errors, true),
    arn: input.arn === undefined ? "" : text(input.arn, at(path, "arn"), errors, false),
    cloud_account_id: text(input.cloud_account_id, at(path, "cloud_account_id"), errors, true),
    cloud_region: text(input.cloud_region, at(path, "cloud_region"), errors, true),
    collector: text(input.collector, at(path, "collector"), errors, true),
    run_id: text(input.run_id, at(path, "run_id"), errors, true).toLowerCase(),
    tags: {} as Record<string, string>,
    attributes: {} as Record<string, unknown>,
    observed_at: 0,
  };
  if (row.run_id !== "" && !UUID_RE.test(row.run_id)) {
    errors.push({ path: at(path, "run_id"), message: "must be a UUID" });
  }
  const tags = input.tags ?? {};
  if (!isPlainObject(tags)) errors.push({ path: at(path, "tags"), message: "must be an object of strings" });
  else {
    for (const [k, v] of Object.entries(tags)) {
      if (typeof v !== "string") errors.push({ path: at(at(path, "tags"), k), message: "must be a string" });
      else row.tags[k] = v;
    }
  }
  const attrs = input.attributes ?? {};
  if (!isPlainObject(attrs)) errors.push({ path: at(path, "attributes"), message: "must be an object" });
  else row.attributes = attrs;
  const t = input.observed_at;
  if (typeof t !== "number" || !Number.isInteger(t) || t < 0 || t > MAX_MS) {
    errors.push({ path: at(path, "observed_at"), message: "must be epoch milliseconds (integer)" });
  } else row.observed_at = t;
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: row };
}
