/**
 * Triage of the unhealthy collectors (the `triage` of the status body, a block per red or amber
 * collector on the /system page): which accounts and regions fail, since when, the last error, and
 * where to read its recent runs. Pure: from the snapshot the status body is built from.
 * docs/monitor-api.md ("triage"), docs/monitor-page.md.
 */
import type { CollectorHealth, CollectorSpec } from "@monitor/core";
import type { StoreSnapshot } from "./evaluate.ts";

const isoOrNull = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

export interface TriageSubject {
  cloud_account_id: string;
  cloud_region: string;
  /** Failed runs in a row since the subject's last non-failed run (in the streak window). */
  consecutive_failures: number;
  last_status: string;
  last_run_at: string;
  /** The subject's last success in the streak window; null when none there. */
  last_success_at: string | null;
}

export interface CollectorTriage {
  collector: string;
  health: "red" | "amber";
  reasons: string[];
  /**
   * Unhealthy since: the collector's last succeeded run (nothing has succeeded after it); when it
   * never succeeded, its registration or the earliest of its runs the snapshot holds, whichever is
   * earlier; null when neither is known.
   */
  since: string | null;
  last_success_at: string | null;
  /** The error of the latest run that did not succeed ('' when it had none), and when it completed. */
  last_error: string | null;
  last_error_at: string | null;
  /** The accounts and regions whose latest run did not succeed, most failures first. */
  at_fault: TriageSubject[];
  /** Where to read its recent runs: the API path (token or page session) and a shell command. */
  runs: { href: string; command: string };
}

/** The read route and the command that show a collector's recent runs. */
export function runsLink(collector: string): { href: string; command: string } {
  const href = `/api/system/runs?collector=${encodeURIComponent(collector)}`;
  return {
    href,
    command: `curl -sH "Authorization: Bearer $MONITOR_TOKEN" "$MONITOR_URL${href}"`,
  };
}

function neverSucceededSince(
  spec: CollectorSpec | undefined,
  latest: { completed_at: number } | undefined,
  streaks: StoreSnapshot["streaks"],
  name: string,
): number | null {
  const known = [
    spec?.registered_at ?? null,
    latest?.completed_at ?? null,
    ...streaks.filter((st) => st.collector === name).map((st) => st.last_run_at),
  ].filter((v): v is number => v !== null && v !== undefined);
  return known.length === 0 ? null : Math.min(...known);
}

export function triage(
  health: readonly CollectorHealth[],
  specs: readonly CollectorSpec[],
  s: Pick<StoreSnapshot, "latest" | "successes" | "streaks">,
): CollectorTriage[] {
  const out: CollectorTriage[] = [];
  const specOf = new Map(specs.map((sp) => [sp.name, sp]));
  for (const h of health) {
    if (h.health !== "red" && h.health !== "amber") continue;
    const latest = s.latest.find((r) => r.collector === h.name);
    const success = s.successes.find((r) => r.collector === h.name);
    const at_fault = s.streaks
      .filter((st) => st.collector === h.name && st.last_status !== "succeeded")
      .sort(
        (a, b) =>
          b.consecutive_failures - a.consecutive_failures ||
          b.last_run_at - a.last_run_at ||
          (`${a.cloud_account_id}/${a.cloud_region}` < `${b.cloud_account_id}/${b.cloud_region}` ? -1 : 1),
      )
      .map((st) => ({
        cloud_account_id: st.cloud_account_id,
        cloud_region: st.cloud_region,
        consecutive_failures: st.consecutive_failures,
        last_status: st.last_status,
        last_run_at: new Date(st.last_run_at).toISOString(),
        last_success_at: isoOrNull(st.last_success_at),
      }));
    // A stale collector whose latest run succeeded somewhere still names where it last ran.
    if (at_fault.length === 0 && latest !== undefined && latest.status !== "succeeded") {
      at_fault.push({
        cloud_account_id: latest.cloud_account_id,
        cloud_region: latest.cloud_region,
        consecutive_failures: latest.status === "failed" ? 1 : 0,
        last_status: latest.status,
        last_run_at: new Date(latest.completed_at).toISOString(),
        last_success_at: null,
      });
    }
    const failing = latest !== undefined && latest.status !== "succeeded";
    out.push({
      collector: h.name,
      health: h.health,
      reasons: h.reasons,
      since: isoOrNull(
        success?.last_success_at ?? neverSucceededSince(specOf.get(h.name), latest, s.streaks, h.name),
      ),
      last_success_at: isoOrNull(success?.last_success_at),
      last_error: failing ? latest.error : null,
      last_error_at: failing ? new Date(latest.completed_at).toISOString() : null,
      at_fault,
      runs: runsLink(h.name),
    });
  }
  // red first, then by name
  return out.sort((a, b) =>
    a.health === b.health ? (a.collector < b.collector ? -1 : 1) : a.health === "red" ? -1 : 1,
  );
}
