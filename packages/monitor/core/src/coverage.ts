/**
 * Account coverage: counts by latest `svc_status`, warnings for
 * `pending_setup` and `no_access`, and active accounts not scanned in the last 24 hours. An active
 * account never scanned is `new` (waiting for its first scan) for 24 hours after it was first known
 * as active: an account added a minute ago has had no chance to be scanned, so it is not unscanned.
 */
import {
  ACCOUNT_STATUSES,
  type AccountRecord,
  type AccountStatus,
  type EpochMs,
  HOUR_MS,
  type RunRecord,
  runsAsOf,
  UNSCANNED_WINDOW_HOURS,
} from "./records.ts";

export interface AccountWarning {
  account_id: string;
  account_name: string;
  svc_status: Exclude<AccountStatus, "active">;
}

export interface UnscannedAccount {
  account_id: string;
  account_name: string;
  /** `completed_at` of the account's latest `succeeded` run of any collector, or null if never. */
  last_scanned_at: EpochMs | null;
}

export interface NewAccount {
  account_id: string;
  account_name: string;
  /** `updated_at` of its first `active` version: when the monitor first knew it as active. */
  first_active_at: EpochMs;
  /** The end of its grace (`first_active_at` + 24 h): unscanned after it if still never scanned. */
  new_until: EpochMs;
}

export interface Coverage {
  counts: Record<AccountStatus, number>;
  /** The latest version of every account, sorted by `account_id`. */
  accounts: AccountRecord[];
  /** `no_access` first, then `pending_setup`; by `account_id` within each. */
  warnings: AccountWarning[];
  /** Sorted by `account_id`. */
  unscanned: UnscannedAccount[];
  /** Active accounts never scanned, still within their grace (not in `unscanned`); by `account_id`. */
  new_accounts: NewAccount[];
}

const SEVERITY: Record<AccountStatus, number> = { active: 0, pending_setup: 1, no_access: 2 };

/**
 * The latest version per `account_id` by `updated_at`; versions updated after `now` are ignored.
 * On equal `updated_at` the more severe status wins (no_access > pending_setup > active), then the
 * greater `account_name`, so the result never depends on input order.
 */
export function latestAccounts(accounts: readonly AccountRecord[], now: EpochMs): AccountRecord[] {
  const latest = new Map<string, AccountRecord>();
  for (const a of accounts) {
    if (a.updated_at > now) continue;
    const cur = latest.get(a.account_id);
    if (cur === undefined || newer(a, cur)) latest.set(a.account_id, a);
  }
  return [...latest.values()].sort((a, b) => cmp(a.account_id, b.account_id));
}

function newer(a: AccountRecord, b: AccountRecord): boolean {
  if (a.updated_at !== b.updated_at) return a.updated_at > b.updated_at;
  if (a.svc_status !== b.svc_status) return SEVERITY[a.svc_status] > SEVERITY[b.svc_status];
  return a.account_name > b.account_name;
}

/**
 * An active account is unscanned when no `succeeded` run of any collector (any region) for it
 * completed in `[now − 24 h, now]` (inclusive at exactly 24 h).
 */
export function coverage(
  accounts: readonly AccountRecord[],
  runs: readonly RunRecord[],
  now: EpochMs,
  windowHours: number = UNSCANNED_WINDOW_HOURS,
): Coverage {
  const current = latestAccounts(accounts, now);
  const counts = Object.fromEntries(ACCOUNT_STATUSES.map((s) => [s, 0])) as Record<AccountStatus, number>;
  for (const a of current) counts[a.svc_status] += 1;

  const warnings: AccountWarning[] = current
    .filter((a) => a.svc_status !== "active")
    .map((a) => ({
      account_id: a.account_id,
      account_name: a.account_name,
      svc_status: a.svc_status as AccountWarning["svc_status"],
    }))
    .sort((a, b) => SEVERITY[b.svc_status] - SEVERITY[a.svc_status] || cmp(a.account_id, b.account_id));

  const lastScan = new Map<string, EpochMs>();
  for (const r of runsAsOf(runs, now)) {
    if (r.status === "succeeded") lastScan.set(r.cloud_account_id, r.completed_at);
  }
  // The grace of a never-scanned account starts at its first active version (as of `now`): an
  // account set up as pending_setup and activated later gets its grace from the activation.
  const firstActive = new Map<string, EpochMs>();
  for (const a of accounts) {
    if (a.svc_status !== "active" || a.updated_at > now) continue;
    const cur = firstActive.get(a.account_id);
    if (cur === undefined || a.updated_at < cur) firstActive.set(a.account_id, a.updated_at);
  }
  const windowMs = windowHours * HOUR_MS;
  const since = now - windowMs;
  const unscanned: UnscannedAccount[] = [];
  const newAccounts: NewAccount[] = [];
  for (const a of current) {
    if (a.svc_status !== "active") continue;
    const last = lastScan.get(a.account_id) ?? null;
    if (last !== null && last >= since) continue;
    const first = firstActive.get(a.account_id);
    // Inclusive like the scan window: exactly 24 h after it became active, still new.
    if (last === null && first !== undefined && now - first <= windowMs) {
      newAccounts.push({
        account_id: a.account_id,
        account_name: a.account_name,
        first_active_at: first,
        new_until: first + windowMs,
      });
      continue;
    }
    unscanned.push({ account_id: a.account_id, account_name: a.account_name, last_scanned_at: last });
  }
  return { counts, accounts: current, warnings, unscanned, new_accounts: newAccounts };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
