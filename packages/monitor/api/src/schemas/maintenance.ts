/**
 * Maintenance windows as the API answers them (`/api/system/maintenance`, the status body's
 * `maintenance`): what was stored, and what it means at the time of the answer. The request body is
 * `MaintenanceRequestSchema` of @monitor/core.
 */
import { z } from "zod";
import { isoOrNull, isoTime } from "./common.ts";

export const MaintenanceScopeSchema = z
  .union([
    z.object({ collectors: z.array(z.string()) }),
    z.object({ accounts: z.array(z.string()) }),
    z.object({ all: z.literal(true) }),
  ])
  .meta({ id: "MaintenanceScope", description: "{collectors: [...]}, {accounts: [...]} or {all: true}." });

export const MaintenanceWindowSchema = z
  .object({
    id: z.string(),
    scope: MaintenanceScopeSchema,
    author: z.string(),
    reason: z.string(),
    created_at: isoTime(),
    kind: z.enum(["once", "recurring"]),
    schedule: z.string().nullable().meta({ description: "Recurring: the cron expression; else null." }),
    timezone: z.string().nullable().meta({ description: "Recurring: its IANA time zone; else null." }),
    duration_minutes: z.int().nullable().meta({ description: "Recurring: each occurrence's length." }),
    ended_at: isoOrNull("Ended early (DELETE) at; null while it runs its course."),
    active: z.boolean().meta({ description: "In effect now: the alerts it covers are muted." }),
    starts_at: isoOrNull("The occurrence in effect, else the next one: its start; null when none is left."),
    ends_at: isoOrNull("The occurrence in effect, else the next one: its end; null when none is left."),
    next_start: isoOrNull("The start of the next occurrence after now (not the one in effect); null: none."),
    state: z.enum(["active", "pending", "over"]),
  })
  .meta({ id: "MaintenanceWindow" });

export const MaintenanceListSchema = z.object({
  generated_at: isoTime(),
  maintenance: z.array(MaintenanceWindowSchema),
});
