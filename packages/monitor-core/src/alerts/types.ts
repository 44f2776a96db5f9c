/**
 * Shapes shared by the alert rules and the alert state machine (spec §6). Everything here is plain
 * JSON: the state is persisted as-is and loaded again after a restart.
 */
import type { EpochMs } from "../records.ts";

export const ALERT_RULES = [
  "collector_failure",
  "collector_stale",
  "account_no_access",
  "dead_letter_queue",
  "disk_high",
  "account_unscanned",
] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

export type Severity = "warning" | "critical";

export const RULE_SEVERITY: Record<AlertRule, Severity> = {
  collector_failure: "warning",
  collector_stale: "critical",
  account_no_access: "warning",
  dead_letter_queue: "critical",
  disk_high: "warning",
  account_unscanned: "warning",
};

/** One alert is one rule and one subject; its key is `rule|subject`. */
export function alertKey(rule: AlertRule, subject: string): string {
  return `${rule}|${subject}`;
}

/** A rule that holds at `at` for one subject. Absence of a condition means "not firing". */
export interface Condition {
  key: string;
  rule: AlertRule;
  /** collector, `collector/account/region`, account id, queue name or `analytics_db`. */
  subject: string;
  severity: Severity;
  /** Human-readable why (first line of the notification item). */
  detail: string;
  /** Muted alerts keep their state but never notify or remind. */
  muted: boolean;
  at: EpochMs;
}
