/**
 * What the /system page renders: the JSON bodies of `GET /api/system/status`,
 * `GET /api/system/collectors/failures` and `GET /api/system/silences`, the types of their schemas
 * (schemas/), with the fields the page renders without made optional (a 503 body carries only part
 * of the status). The server renders the first response from these; the browser client re-renders
 * from the same bodies.
 */
import type { z } from "zod";
import type { HealthSchema } from "../schemas/common.ts";
import type { MaintenanceListSchema, MaintenanceWindowSchema } from "../schemas/maintenance.ts";
import type { FailuresSchema, RunPointSchema, SilenceSchema, SilencesSchema } from "../schemas/resources.ts";
import type {
  AlertSchema,
  AnalyticsDbSchema,
  CollectorStatusSchema,
  OwnCostSchema,
  QueueStatusSchema,
  StatusSchema,
  StatusUnavailableSchema,
  TriageSchema,
  TriageSubjectSchema,
  WarningSchema,
} from "../schemas/status.ts";

/** Some fields of `T` may be missing: what the page renders without. */
type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export type Health = z.infer<typeof HealthSchema>;

export type CollectorJson = Optional<
  z.infer<typeof CollectorStatusSchema>,
  "registered_at" | "new_until" | "registered_by" | "schedule" | "next_expected_run" | "duration"
>;

export type WarningJson = z.infer<typeof WarningSchema>;

export type TriageFaultJson = z.infer<typeof TriageSubjectSchema>;

export type TriageJson = Optional<
  z.infer<typeof TriageSchema>,
  "reasons" | "since" | "last_success_at" | "last_error" | "last_error_at" | "at_fault" | "runs"
>;

export type QueueJson = Optional<
  z.infer<typeof QueueStatusSchema>,
  "depth" | "in_flight" | "dead_letter_queue" | "dead_letter_depth" | "error" | "source" | "read_at"
>;

export type AlertJson = Partial<z.infer<typeof AlertSchema>>;

export type OwnCostJson = Partial<z.infer<typeof OwnCostSchema>>;

/** The database's figures, or (503) only that it is unreachable and why. */
export type AnalyticsDbJson = Partial<z.infer<typeof AnalyticsDbSchema>> &
  Partial<z.infer<typeof StatusUnavailableSchema>["analytics_db"]>;

type Status = z.infer<typeof StatusSchema>;

export type StatusJson = Partial<
  Omit<Status, "collectors" | "alerts" | "triage" | "queues" | "analytics_db" | "own_cost" | "overall_health">
> & {
  collectors?: CollectorJson[];
  analytics_db?: AnalyticsDbJson;
  overall_health?: Health | null;
  alerts?: AlertJson[];
  triage?: TriageJson[];
  queues?: QueueJson[];
  own_cost?: OwnCostJson | null;
};

type Failures = z.infer<typeof FailuresSchema>;
type FailuresCollector = Failures["collectors"][number];

/** A run in a card's run-history chart. */
export type RunPointJson = z.infer<typeof RunPointSchema>;

export type FailuresJson = Optional<Omit<Failures, "collectors">, "generated_at"> & {
  collectors: Optional<FailuresCollector, "recent_runs">[];
};

export type SilenceJson = Optional<z.infer<typeof SilenceSchema>, "matchers" | "created_at">;

export type SilencesJson = Optional<Omit<z.infer<typeof SilencesSchema>, "silences">, "generated_at"> & {
  silences: SilenceJson[];
};

export type MaintenanceWindowJson = z.infer<typeof MaintenanceWindowSchema>;

export type MaintenanceListJson = Optional<z.infer<typeof MaintenanceListSchema>, "generated_at">;

/** Everything one render of the page needs. */
export interface PageState {
  /** The latest status body that was read (null: none yet). */
  status: StatusJson | null;
  /** When `status` was read (ISO). */
  statusAt: string | null;
  failures: FailuresJson | null;
  /** null: this deployment keeps no silences (no section). */
  silences: SilencesJson | null;
  /** null or absent: this deployment keeps no maintenance windows (no section). */
  maintenance?: MaintenanceListJson | null;
  /** What failed in the latest refresh, in words (the page is then marked stale). */
  problems: string[];
  /** The database was unreachable in the latest refresh: why. */
  dbDown?: string | null;
  /** The part of a 503 status body that does not live in the database (fresh queue health). */
  partialQueues?: StatusJson | null;
  /** The session's CSRF token when the page may create silences (a silence store is configured). */
  csrf: string | null;
}
