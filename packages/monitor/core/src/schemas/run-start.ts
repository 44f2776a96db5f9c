/**
 * A run's start, as `POST /api/system/runs/start` carries it (docs/monitor-api.md, "Run starts"): the
 * run_id its final run record will carry, the collector, account and region, and when it started
 * (absent: the server's clock). The fields have the run record's bounds and words.
 */
import { z } from "zod";
import {
  ACCOUNT_ID_CHARSET,
  ACCOUNT_ID_RE,
  COLLECTOR_NAME_CHARSET,
  COLLECTOR_NAME_RE,
  MAX_ACCOUNT_ID_CHARS,
  MAX_COLLECTOR_NAME_CHARS,
  MAX_REGION_CHARS,
  REGION_CHARSET,
  REGION_RE,
} from "../limits.ts";
import type { Result } from "../result.ts";
import { identifier, issuesOf, requiredOr, timestamp } from "./fields.ts";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const RunStartSchema = z
  .object(
    {
      run_id: z
        .string({ error: requiredOr("must be a UUID") })
        .refine((v) => UUID_RE.test(v), { error: "must be a UUID" })
        .meta({ format: "uuid", description: "The run_id the run's final record will carry." }),
      collector: identifier(MAX_COLLECTOR_NAME_CHARS, COLLECTOR_NAME_RE, COLLECTOR_NAME_CHARSET),
      cloud_account_id: identifier(MAX_ACCOUNT_ID_CHARS, ACCOUNT_ID_RE, ACCOUNT_ID_CHARSET),
      cloud_region: identifier(MAX_REGION_CHARS, REGION_RE, REGION_CHARSET),
      started_at: timestamp().nullish().meta({ description: "Absent: the server's clock." }),
    },
    { error: "must be an object" },
  )
  .meta({ id: "RunStart" });

/** A validated start; `started_at` absent until the caller fills in its clock. */
export interface RunStartRecord {
  run_id: string;
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  started_at?: number;
}

/** Validates a run start: run_id lower-cased, `started_at` epoch ms or absent. */
export function validateRunStart(input: unknown): Result<RunStartRecord> {
  const r = RunStartSchema.safeParse(input);
  if (!r.success) return { ok: false, errors: issuesOf(r.error) };
  const { started_at, run_id, ...rest } = r.data;
  const value: RunStartRecord = { run_id: run_id.toLowerCase(), ...rest };
  if (started_at != null) value.started_at = started_at;
  return { ok: true, value };
}
