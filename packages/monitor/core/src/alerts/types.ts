/**
 * Shapes shared by the alert rules and the alert state machine. Everything here is plain
 * JSON: the state is persisted as-is and loaded again after a restart.
 */
import type { EpochMs } from "../records.ts";
import { hash64 } from "./hash.ts";

export const ALERT_RULES = [
  "collector_failure",
  "collector_stale",
  "account_no_access",
  "dead_letter_queue",
  "disk_high",
  "account_unscanned",
  "collector_duration",
  "collector_hung",
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
  collector_duration: "warning",
  collector_hung: "warning",
};

/** One alert is one rule and one subject; its key is `rule|subject`. */
export function alertKey(rule: AlertRule, subject: string): string {
  return `${rule}|${subject}`;
}

/**
 * The stable key of one alert in notifications (Alertmanager's `fingerprint`): 16 hex digits, a hash of
 * rule and subject, so the firing, reminder and resolved messages of an alert (any episode) share it.
 */
export function alertFingerprint(rule: AlertRule, subject: string): string {
  return hash64(alertKey(rule, subject));
}

/** The collector of a `collector_failure` or `collector_hung` subject (`collector/account/region`). */
export function failureSubjectParts(subject: string): { collector: string; account: string; region: string } {
  const parts = subject.split("/");
  if (parts.length < 3) return { collector: subject, account: "", region: "" };
  return {
    collector: parts.slice(0, -2).join("/"),
    account: parts.at(-2) as string,
    region: parts.at(-1) as string,
  };
}

/**
 * The id of the element of the `/system` page that shows an alert's subject (the fragment of its
 * link, before percent-encoding): `collector-<name>` (collector failures and staleness),
 * `account-<id>`, `queue-<name>`, `analytics-db` (disk).
 */
export function alertAnchor(rule: AlertRule, subject: string): string {
  switch (rule) {
    case "collector_failure":
    case "collector_hung":
      return `collector-${failureSubjectParts(subject).collector}`;
    case "collector_stale":
    case "collector_duration":
      return `collector-${subject}`;
    case "account_no_access":
    case "account_unscanned":
      return `account-${subject}`;
    case "dead_letter_queue":
      return `queue-${subject}`;
    case "disk_high":
      return "analytics-db";
  }
}

/** `<base>/system#<anchor>`; null without a base URL. A trailing `/` of the base is dropped. */
export function alertLink(
  publicUrl: string | null | undefined,
  rule: AlertRule,
  subject: string,
): string | null {
  if (publicUrl === null || publicUrl === undefined || publicUrl.trim() === "") return null;
  return `${publicUrl.trim().replace(/\/+$/, "")}/system#${encodeURIComponent(alertAnchor(rule, subject))}`;
}

/**
 * What holds an alert back (Alertmanager: an inhibition; a silence too). `alert`: another
 * alert is the cause, e.g. an account in `no_access` mutes the collector failures in that account;
 * `silence`: a silence matches it (`silences.ts`).
 */
export type MutedBy = MutedByAlert | MutedBySilence | MutedByMaintenance;

export interface MutedByAlert {
  kind: "alert";
  rule: AlertRule;
  subject: string;
  fingerprint: string;
}

/** A silence (Alertmanager's model): a person held the alert back until `endsAt`. */
export interface MutedBySilence {
  kind: "silence";
  id: string;
  author: string;
  reason: string;
  endsAt: EpochMs;
}

/** A maintenance window (`maintenance.ts`) covers the alert until `endsAt` (its current occurrence's end). */
export interface MutedByMaintenance {
  kind: "maintenance";
  id: string;
  author: string;
  reason: string;
  endsAt: EpochMs;
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
  /** Why muted: what holds it back (null or absent when not muted). */
  mutedBy?: MutedBy | null;
  /** Why muted, in words (null or absent when not muted). */
  mutedReason?: string | null;
  /** The last error text of the failing collector behind the alert, when there is one. */
  lastError?: string | null;
  at: EpochMs;
}
