/**
 * What the ingest path (the embedded IngestConsumer, the svcmon-ingest Lambda) accepts from the event
 * queue, checked against the clock it is handed (time sanity): a collector's
 * `resource_observed` event, and a run record (`collector_run`: the fields of `POST
 * /api/system/runs`, for jobs that report through the queue). A time more than the allowed skew ahead
 * of `now` refuses the message, naming the field and the skew: it is not acknowledged and ends in the
 * dead-letter queue, as every refused message does. Pure: `now` is a parameter.
 */
import { checkClockSkew, DEFAULT_MAX_CLOCK_SKEW_MS } from "./clock-skew.ts";
import type { ResourceEvent, RunStartRow } from "./ports.ts";
import type { NewRunRecord } from "./records.ts";
import { validateResourceEvent } from "./resource-event.ts";
import { isPlainObject, type Result } from "./result.ts";
import { validateRunRecord } from "./schemas/run-record.ts";
import { validateRunStart } from "./schemas/run-start.ts";

export const RUN_RECORD_KIND = "collector_run";
/** A run's start through the queue: the fields of `POST /api/system/runs/start`. */
export const RUN_START_KIND = "collector_run_start";

export type IngestMessage =
  | { kind: "resource_observed"; event: ResourceEvent }
  | { kind: "collector_run"; run: NewRunRecord }
  | { kind: "collector_run_start"; start: RunStartRow };

function json(body: string): Result<unknown> {
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    return { ok: false, errors: [{ path: "", message: "the message body is not valid JSON" }] };
  }
}

/** `validateResourceEvent`, then `observed_at` no more than `maxSkewMs` ahead of `now`. */
export function validateResourceEventAt(
  input: unknown,
  now: number,
  maxSkewMs: number = DEFAULT_MAX_CLOCK_SKEW_MS,
): Result<ResourceEvent> {
  const v = validateResourceEvent(input);
  if (!v.ok) return v;
  const ahead = checkClockSkew({ observed_at: v.value.observed_at }, now, maxSkewMs);
  return ahead.length > 0 ? { ok: false, errors: ahead } : v;
}

/** A `collector_run` message: the run record's checks (`validateRunRecord`), then its times against `now`. */
export function validateRunMessage(
  input: unknown,
  now: number,
  maxSkewMs: number = DEFAULT_MAX_CLOCK_SKEW_MS,
): Result<NewRunRecord> {
  if (!isPlainObject(input)) return { ok: false, errors: [{ path: "", message: "must be a JSON object" }] };
  if (input.kind !== RUN_RECORD_KIND) {
    return { ok: false, errors: [{ path: "kind", message: `must be "${RUN_RECORD_KIND}"` }] };
  }
  const { kind: _kind, ...record } = input;
  const v = validateRunRecord(record);
  if (!v.ok) return v;
  const ahead = checkClockSkew(
    { started_at: v.value.started_at, completed_at: v.value.completed_at },
    now,
    maxSkewMs,
  );
  return ahead.length > 0 ? { ok: false, errors: ahead } : v;
}

/**
 * A `collector_run_start` message: the start's checks (`validateRunStart`), `started_at` defaulting to
 * `now`, then no more than `maxSkewMs` ahead of it.
 */
export function validateRunStartMessage(
  input: Record<string, unknown>,
  now: number,
  maxSkewMs: number = DEFAULT_MAX_CLOCK_SKEW_MS,
): Result<RunStartRow> {
  const { kind: _kind, ...fields } = input;
  const v = validateRunStart(fields);
  if (!v.ok) return v;
  const start = { ...v.value, started_at: v.value.started_at ?? now };
  const ahead = checkClockSkew({ started_at: start.started_at }, now, maxSkewMs);
  return ahead.length > 0 ? { ok: false, errors: ahead } : { ok: true, value: start };
}

/**
 * A message body of the event queue, by its `kind`: `collector_run_start` and `collector_run` (when `runs` is true; otherwise
 * refused as not a resource event, as before) or a resource event. Every problem is named.
 */
export function parseIngestMessage(
  body: string,
  now: number,
  opts: { maxSkewMs?: number; runs?: boolean } = {},
): Result<IngestMessage> {
  const parsed = json(body);
  if (!parsed.ok) return parsed;
  const maxSkewMs = opts.maxSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  if ((opts.runs ?? true) && isPlainObject(parsed.value) && parsed.value.kind === RUN_RECORD_KIND) {
    const run = validateRunMessage(parsed.value, now, maxSkewMs);
    return run.ok ? { ok: true, value: { kind: RUN_RECORD_KIND, run: run.value } } : run;
  }
  if ((opts.runs ?? true) && isPlainObject(parsed.value) && parsed.value.kind === RUN_START_KIND) {
    const start = validateRunStartMessage(parsed.value, now, maxSkewMs);
    return start.ok ? { ok: true, value: { kind: RUN_START_KIND, start: start.value } } : start;
  }
  const event = validateResourceEventAt(parsed.value, now, maxSkewMs);
  return event.ok ? { ok: true, value: { kind: "resource_observed", event: event.value } } : event;
}

/** A resource event's message body, with its `observed_at` checked against `now`. */
export function parseResourceEventAt(
  body: string,
  now: number,
  maxSkewMs: number = DEFAULT_MAX_CLOCK_SKEW_MS,
): Result<ResourceEvent> {
  const parsed = json(body);
  return parsed.ok ? validateResourceEventAt(parsed.value, now, maxSkewMs) : parsed;
}
