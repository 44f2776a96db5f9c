/**
 * The message a collector puts on the event queue for each resource it observed, and its validation.
 * Pure: no I/O, no clock. The ingest consumer refuses (does not acknowledge) anything that fails here.
 */
import type { ResourceEvent } from "./ports.ts";
import { at, type Issue, isPlainObject, type Result } from "./result.ts";

export const RESOURCE_EVENT_KIND = "resource_observed";

const TEXT_FIELDS = ["collector", "account_id", "region", "resource_type", "resource_id"] as const;
const MAX_TEXT = 1024;

export function validateResourceEvent(input: unknown, path = ""): Result<ResourceEvent> {
  if (!isPlainObject(input)) return { ok: false, errors: [{ path, message: "must be a JSON object" }] };
  const errors: Issue[] = [];
  if (input.kind !== RESOURCE_EVENT_KIND) {
    errors.push({ path: at(path, "kind"), message: `must be "${RESOURCE_EVENT_KIND}"` });
  }
  for (const f of TEXT_FIELDS) {
    const v = input[f];
    if (typeof v !== "string" || v === "") {
      errors.push({ path: at(path, f), message: "must be a non-empty string" });
    } else if (v.length > MAX_TEXT) {
      errors.push({ path: at(path, f), message: `must be at most ${MAX_TEXT} characters` });
    }
  }
  const t = input.observed_at;
  if (typeof t !== "number" || !Number.isInteger(t) || t < 0) {
    errors.push({
      path: at(path, "observed_at"),
      message: "must be epoch milliseconds (a non-negative integer)",
    });
  }
  const attrs = input.attributes ?? {};
  if (!isPlainObject(attrs)) errors.push({ path: at(path, "attributes"), message: "must be an object" });
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      kind: RESOURCE_EVENT_KIND,
      collector: input.collector as string,
      account_id: input.account_id as string,
      region: input.region as string,
      resource_type: input.resource_type as string,
      resource_id: input.resource_id as string,
      observed_at: t as number,
      attributes: attrs as Record<string, unknown>,
    },
  };
}

/** A message body: JSON first, then the event's fields. */
export function parseResourceEvent(body: string): Result<ResourceEvent> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, errors: [{ path: "", message: "the message body is not valid JSON" }] };
  }
  return validateResourceEvent(parsed);
}
