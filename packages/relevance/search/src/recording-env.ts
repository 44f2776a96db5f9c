// The recording's tuning variables, read the same wherever the search app runs (npm start, the
// Worker): RECORD_MAX_PER_SECOND, RECORD_QUEUE_MAX, EVENTS_PER_KEY_PER_SECOND (docs/limits.md).
import {
  DEFAULT_RECORD_MAX_PER_SECOND,
  DEFAULT_RECORD_QUEUE_MAX,
  MAX_RECORD_MAX_PER_SECOND,
  MAX_RECORD_QUEUE_MAX,
} from "@relevance/outcomes";
import { DEFAULT_EVENTS_PER_KEY_PER_SECOND, MAX_EVENTS_PER_KEY_PER_SECOND } from "./events.ts";

export interface RecordingTuning {
  maxPerSecond: number;
  queueMax: number;
  eventsPerKeyPerSecond: number;
}

/** Each variable: its default and its allowed whole-number range. */
export const RECORDING_VARIABLES: ReadonlyArray<[keyof RecordingTuning, string, number, number]> = [
  ["maxPerSecond", "RECORD_MAX_PER_SECOND", DEFAULT_RECORD_MAX_PER_SECOND, MAX_RECORD_MAX_PER_SECOND],
  ["queueMax", "RECORD_QUEUE_MAX", DEFAULT_RECORD_QUEUE_MAX, MAX_RECORD_QUEUE_MAX],
  [
    "eventsPerKeyPerSecond",
    "EVENTS_PER_KEY_PER_SECOND",
    DEFAULT_EVENTS_PER_KEY_PER_SECOND,
    MAX_EVENTS_PER_KEY_PER_SECOND,
  ],
];

/** The tuning of `env` (unset: defaults), or every problem, each naming its variable. */
export function recordingTuning(
  env: Record<string, unknown>,
): { ok: true; value: RecordingTuning } | { ok: false; problems: { name: string; message: string }[] } {
  const value: RecordingTuning = {
    maxPerSecond: DEFAULT_RECORD_MAX_PER_SECOND,
    queueMax: DEFAULT_RECORD_QUEUE_MAX,
    eventsPerKeyPerSecond: DEFAULT_EVENTS_PER_KEY_PER_SECOND,
  };
  const problems: { name: string; message: string }[] = [];
  for (const [field, name, , max] of RECORDING_VARIABLES) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    const text = String(raw).trim();
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < 1 || n > max) {
      problems.push({
        name,
        message: `${name} must be a whole number from 1 to ${max}, got ${JSON.stringify(raw)}`,
      });
    } else value[field] = n;
  }
  return problems.length === 0 ? { ok: true, value } : { ok: false, problems };
}
