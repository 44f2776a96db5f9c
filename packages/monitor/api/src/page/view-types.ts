/**
 * What the /system page renders: the JSON bodies of `GET /api/system/status`,
 * `GET /api/system/collectors/failures` and `GET /api/system/silences`, typed as loosely as the
 * page reads them (every field may be missing: a 503 body carries only part of the status). The
 * server renders the first response from these; the browser client re-renders from the same bodies.
 */

export type Health = "green" | "amber" | "red" | "new";

export interface CollectorJson {
  name: string;
  last_run: string | null;
  status: string | null;
  minutes_ago: number | null;
  health: Health;
  registered_at?: string | null;
  new_until?: string | null;
  registered_by?: string | null;
}

export interface WarningJson {
  kind: string;
  subject: string;
  message: string;
}

export interface TriageFaultJson {
  cloud_account_id: string;
  cloud_region: string;
  consecutive_failures: number;
  last_status: string;
  last_run_at: string | null;
  last_success_at: string | null;
}

export interface TriageJson {
  collector: string;
  health: Health;
  reasons?: string[];
  since?: string | null;
  last_success_at?: string | null;
  last_error?: string | null;
  last_error_at?: string | null;
  at_fault?: TriageFaultJson[];
  runs?: { href?: string; command?: string };
}

export interface QueueJson {
  name: string;
  status: string;
  depth?: number | null;
  in_flight?: number | null;
  dead_letter_queue?: string | null;
  dead_letter_depth?: number | null;
  error?: string | null;
}

export interface AlertJson {
  rule?: string;
  subject?: string;
  severity?: string;
  since?: string;
  notified?: boolean;
  fingerprint?: string;
  summary?: string;
  last_error?: string | null;
  muted?: boolean;
  muted_by?:
    | { kind: "alert"; rule: string; subject: string; fingerprint?: string }
    | { kind: "silence"; id: string; author: string; reason?: string; endsAt: number }
    | null;
  reason?: string | null;
}

export interface OwnCostJson {
  currency?: string | null;
  node?: string;
  month_to_date?: number | null;
  last_30_days_total?: number | null;
  outside_any_node?: {
    currency?: string | null;
    last_30_days_total?: number | null;
    by_reason?: { reason: string; last_30_days_total: number }[];
  };
  data_through?: string | null;
  as_of?: string | null;
  other_currencies?: { currency: string; month_to_date: number }[];
  daily?: { day: string; cost: number }[];
  untagged_service_resources?: {
    resource_id: string;
    cloud_account_id: string;
    cloud_region?: string | null;
    reason: string;
    source?: string;
  }[];
}

export interface AnalyticsDbJson {
  status?: string;
  error?: string;
  disk_used_gb?: number | null;
  disk_total_gb?: number | null;
  svc_disk_used_gb?: number | null;
  disk_used_ratio?: number | null;
  query_p50_ms?: number | null;
  query_p95_ms?: number | null;
  query_p99_ms?: number | null;
  query_samples?: number | null;
  active_queries?: number | null;
  source?: Record<string, string>;
}

export interface StatusJson {
  collectors?: CollectorJson[];
  accounts?: Record<string, number>;
  analytics_db?: AnalyticsDbJson;
  generated_at?: string;
  overall_health?: Health | null;
  unscanned_accounts?: { account_id: string; account_name?: string | null; last_scanned_at: string | null }[];
  new_accounts?: {
    account_id: string;
    account_name?: string | null;
    first_active_at: string | null;
    new_until: string | null;
  }[];
  warnings?: WarningJson[];
  alerts?: AlertJson[];
  triage?: TriageJson[];
  queues?: QueueJson[];
  queues_error?: string;
  own_cost?: OwnCostJson | null;
  own_cost_error?: string;
}

export interface RunPointJson {
  /** ISO time the run completed. */
  completed_at: string;
  status: string;
  duration_ms: number | null;
}

export interface FailuresJson {
  generated_at?: string;
  days: string[];
  collectors: {
    name: string;
    failures: number[];
    total: number;
    latest_run: {
      status: string;
      completed_at: string;
      duration_ms: number | null;
      events_produced: number;
      error: string;
    } | null;
    /** The latest runs, oldest first (the card's run-history chart). */
    recent_runs?: RunPointJson[];
  }[];
}

export interface SilenceJson {
  id: string;
  matchers?: { rule?: string; subject?: { op: string; value: string } };
  author: string;
  reason: string;
  starts_at: string;
  ends_at: string;
  state: string;
}

export interface SilencesJson {
  silences: SilenceJson[];
}

/** Everything one render of the page needs. */
export interface PageState {
  /** The latest status body that was read (null: none yet). */
  status: StatusJson | null;
  /** When `status` was read (ISO). */
  statusAt: string | null;
  failures: FailuresJson | null;
  /** null: this deployment keeps no silences (no section). */
  silences: SilencesJson | null;
  /** What failed in the latest refresh, in words (the page is then marked stale). */
  problems: string[];
  /** The database was unreachable in the latest refresh: why. */
  dbDown?: string | null;
  /** The part of a 503 status body that does not live in the database (fresh queue health). */
  partialQueues?: StatusJson | null;
  /** The session's CSRF token when the page may create silences (a silence store is configured). */
  csrf: string | null;
}
