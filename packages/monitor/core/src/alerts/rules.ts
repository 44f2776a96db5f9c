/**
 * Alert rules: pure functions from what the status endpoint already computes to
 * the list of conditions that hold at `now`. No I/O, no clock reads.
 */

import { formatSpan, type OpenRunState } from "@monitor/jobs";
import type { UnscannedAccount } from "../coverage.ts";
import type { FailureStreak } from "../failures.ts";
import type { CollectorHealth } from "../health.ts";
import type { AccountRecord, EpochMs } from "../records.ts";
import { CONSECUTIVE_FAILURES_THRESHOLD } from "../records.ts";
import type { AlertState } from "./state-machine.ts";
import {
  type AlertRule,
  alertFingerprint,
  alertKey,
  type Condition,
  type MutedBy,
  RULE_SEVERITY,
} from "./types.ts";

/** Disk fires strictly above this ratio... */
export const DISK_FIRE_ABOVE = 0.8;
/** ...and, once firing, resolves only strictly below this one (hysteresis). */
export const DISK_RESOLVE_BELOW = 0.75;
export const DISK_SUBJECT = "analytics_db";

export interface AlertInput {
  /**
   * `collectorsHealth(...)`: `health === "red"` means no success within 2 × interval (for one that
   * never succeeded, counted from its registration). `new` (waiting for a first run) never fires, nor
   * does a collector failing within that grace (amber: its failures are `collector_failure`'s).
   */
  collectors: readonly CollectorHealth[];
  /** `failureStreaks(...)` (or `failingSubjects`); streaks ≥ 3 fire. */
  streaks: readonly FailureStreak[];
  /** `latestAccounts(...)`: the latest version of each account. */
  accounts: readonly AccountRecord[];
  /** Accounts whose role assumption currently fails (reported by collectors), if known. */
  role_assumption_failing?: readonly string[];
  /** `coverage(...).unscanned`. */
  unscanned: readonly UnscannedAccount[];
  /** Known dead-letter queue depths, one per dead-letter queue. */
  dead_letter_queues: readonly { queue: string; depth: number }[];
  /**
   * Why some dead-letter depths are unknown this round (a queue or the whole read failed); null or
   * absent when every configured queue was read. An unknown depth neither raises nor resolves: a
   * dead-letter alert firing in `previous` whose queue is not in `dead_letter_queues` keeps firing.
   */
  dead_letter_unread?: string | null;
  /** Used / total disk of the analytics DB, 0..1; null when unknown (keeps the previous status). */
  disk_used_ratio: number | null;
  /**
   * The error text of each collector's latest run when that run failed (by collector name), for the
   * `collector_stale` alert's last error. Absent: not known.
   */
  collector_last_errors?: Readonly<Record<string, string>>;
  /**
   * Each collector's durations judged (`judgeDurations` of @monitor/jobs): too long, too short or too
   * often raise `collector_duration`; absent or any other verdict, nothing.
   */
  durations?: readonly { collector: string; verdict: string; detail: string | null }[];
  /**
   * The open runs (started, no final record yet) as `openRunStates` judged them; each `hung` one
   * fires `collector_hung` for its collector/account/region. Absent: none known.
   */
  open_runs?: readonly OpenRunState[];
}

/** What an alert carries besides its detail: why it is muted, the collector's last error. */
interface Extra {
  muted?: boolean;
  mutedBy?: MutedBy | null;
  mutedReason?: string | null;
  lastError?: string | null;
}

/**
 * Conditions holding at `now`, sorted by key. `previous` is the stored alert state, needed only for
 * the disk hysteresis (and to keep the disk alert as it was while the ratio is unknown).
 */
export function evaluateConditions(input: AlertInput, now: EpochMs, previous?: AlertState): Condition[] {
  const out: Condition[] = [];
  const add = (rule: AlertRule, subject: string, detail: string, extra: Extra = {}): void => {
    const muted = extra.muted ?? false;
    out.push({
      key: alertKey(rule, subject),
      rule,
      subject,
      severity: RULE_SEVERITY[rule],
      detail,
      muted,
      ...(muted && extra.mutedBy != null ? { mutedBy: extra.mutedBy } : {}),
      ...(muted && extra.mutedReason != null ? { mutedReason: extra.mutedReason } : {}),
      ...(extra.lastError != null && extra.lastError !== "" ? { lastError: extra.lastError } : {}),
      at: now,
    });
  };

  const noAccess = new Map<string, string>();
  for (const a of input.accounts) {
    if (a.svc_status === "no_access") noAccess.set(a.account_id, `account ${a.account_name} is no_access`);
  }
  for (const id of input.role_assumption_failing ?? []) {
    if (!noAccess.has(id)) noAccess.set(id, `role assumption into account ${id} fails`);
  }
  for (const [id, detail] of noAccess) add("account_no_access", id, detail);

  // A `new` collector that has runs is one waiting for its new upstream collectors: its failures are
  // its dependency gate saying so, not a fault of its own (docs/monitor-rules.md, "Dependencies").
  const waiting = new Set(input.collectors.filter((c) => c.health === "new").map((c) => c.name));
  for (const s of input.streaks) {
    if (s.consecutive_failures < CONSECUTIVE_FAILURES_THRESHOLD || waiting.has(s.collector)) continue;
    const subject = `${s.collector}/${s.cloud_account_id}/${s.cloud_region}`;
    const err = s.last_error === "" ? "" : `: ${s.last_error}`;
    const cause = noAccess.get(s.cloud_account_id);
    add("collector_failure", subject, `${s.consecutive_failures} consecutive failed runs${err}`, {
      lastError: s.last_error,
      ...(cause === undefined
        ? {}
        : {
            muted: true,
            mutedBy: {
              kind: "alert",
              rule: "account_no_access",
              subject: s.cloud_account_id,
              fingerprint: alertFingerprint("account_no_access", s.cloud_account_id),
            },
            mutedReason: `${cause}: its collector failures are a symptom of that (alert account_no_access ${s.cloud_account_id}), held back while it fires`,
          }),
    });
  }

  for (const c of input.collectors) {
    if (c.health === "red") {
      const lastError = c.status === "failed" ? (input.collector_last_errors?.[c.name] ?? null) : null;
      add("collector_stale", c.name, c.reasons[0] ?? "stale", { lastError });
    }
  }

  for (const d of input.durations ?? []) {
    if (d.verdict === "too_long" || d.verdict === "too_short" || d.verdict === "too_often")
      add("collector_duration", d.collector, d.detail ?? d.verdict);
  }

  // One alert per collector/account/region: the oldest hung run names it (the list is oldest first).
  const hungSeen = new Set<string>();
  for (const r of input.open_runs ?? []) {
    if (r.state !== "hung") continue;
    const subject = `${r.collector}/${r.cloud_account_id}/${r.cloud_region}`;
    if (hungSeen.has(subject)) continue;
    hungSeen.add(subject);
    add(
      "collector_hung",
      subject,
      `run ${r.run_id} started ${new Date(r.started_at).toISOString()} and has not finished after ${formatSpan(r.elapsed_ms)}; its max duration is ${formatSpan(r.limit_ms)} (${r.limit_source})`,
    );
  }

  for (const a of input.unscanned) {
    const last =
      a.last_scanned_at === null
        ? "never scanned"
        : `last scanned ${new Date(a.last_scanned_at).toISOString()}`;
    add("account_unscanned", a.account_id, `account ${a.account_name} not scanned for 24 h (${last})`);
  }

  for (const q of input.dead_letter_queues) {
    if (q.depth > 0)
      add("dead_letter_queue", q.queue, `dead-letter queue ${q.queue} holds ${q.depth} message(s)`);
  }
  const unread = input.dead_letter_unread ?? null;
  if (unread !== null && previous !== undefined) {
    const known = new Set(input.dead_letter_queues.map((q) => q.queue));
    for (const a of Object.values(previous.alerts)) {
      if (a.rule !== "dead_letter_queue" || a.status !== "firing" || known.has(a.subject)) continue;
      add(
        "dead_letter_queue",
        a.subject,
        `dead-letter queue ${a.subject}: depth unknown (${unread}); last read held messages`,
        { muted: a.muted, mutedBy: a.mutedBy ?? null, mutedReason: a.mutedReason ?? null },
      );
    }
  }

  const diskKey = alertKey("disk_high", DISK_SUBJECT);
  const wasFiring = previous?.alerts[diskKey]?.status === "firing";
  const ratio = input.disk_used_ratio;
  const diskFiring =
    ratio === null ? wasFiring : ratio > DISK_FIRE_ABOVE || (wasFiring && ratio >= DISK_RESOLVE_BELOW);
  if (diskFiring) {
    const pct = ratio === null ? "unknown (last known above threshold)" : `${(ratio * 100).toFixed(1)} %`;
    add("disk_high", DISK_SUBJECT, `analytics DB disk used ${pct}`);
  }

  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
