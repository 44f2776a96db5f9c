/** The rows of docs/limits.md for recording (the bounds of limits.ts and the Recorder's defaults). */
import type { LimitRow } from "@shared/kernel";
import { MAX_HIT_ID_CHARS, MAX_RECORDED_HIT_IDS, MAX_RECORDED_QUERY_CHARS } from "./limits.ts";
import { DEFAULT_RECORD_MAX_PER_SECOND, DEFAULT_RECORD_QUEUE_MAX } from "./recorder.ts";

export const RECORDING_LIMITS: LimitRow[] = [
  {
    area: "recording",
    field: "query",
    limit: MAX_RECORDED_QUERY_CHARS,
    unit: "characters",
    status: 0,
    note: "a served search's query is cut to it in the record (the search itself is not refused)",
  },
  {
    area: "recording",
    field: "hitIds",
    limit: MAX_RECORDED_HIT_IDS,
    unit: "items",
    status: 0,
    note: "the first hits' primary keys are recorded, in order; each cut to 511 characters",
  },
  {
    area: "recording",
    field: "hit id",
    limit: MAX_HIT_ID_CHARS,
    unit: "characters",
    status: 0,
    note: "a recorded primary key is cut to it",
  },
  {
    area: "recording",
    field: "recorded searches",
    limit: DEFAULT_RECORD_MAX_PER_SECOND,
    unit: "per second",
    status: 0,
    note: "per process or Worker isolate; beyond it the record is dropped and counted (rateLimited), the search is answered",
    env: "RECORD_MAX_PER_SECOND",
  },
  {
    area: "recording",
    field: "recording queue",
    limit: DEFAULT_RECORD_QUEUE_MAX,
    unit: "items",
    status: 0,
    note: "searches waiting for the store; beyond it dropped and counted (queueFull), the search is answered",
    env: "RECORD_QUEUE_MAX",
  },
];
