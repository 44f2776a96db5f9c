/**
 * The drift alert rule `relevance_drift`, pure (`now` given): which day is checked, what each
 * alert's state becomes after that day's PSI, and the notification each change sends.
 *
 * The check reads the latest COMPLETE UTC day (yesterday, by `now`): a day's PSI no longer moves
 * once the day is over, so a check run many times a day reaches the same verdict each time and an
 * alert changes state at most once per day; it is the same number the quality report shows in that
 * day's row. One alert per (account, index, model, subject), the subject being `score` or a
 * feature: it FIRES when the day's PSI is above the threshold and RESOLVES on the first later day
 * whose PSI is back at or under it. A day without a PSI (too few searches, no searches, a feature
 * the profile lacks) leaves the state as it is: a quiet day says nothing about drift.
 */
import type { Notification, NotificationAlert } from "@shared/notify";
import { utcDay } from "../outcome-math.ts";
import type { ModelDrift } from "./drift-schema.ts";

export const DRIFT_RULE = "relevance_drift";
export const DRIFT_SOURCE = "relevance";
/** The subject of the score's alert; the other subjects are feature names. */
export const SCORE_SUBJECT = "score";

const DAY_MS = 86_400_000;

/** The day a check at `now` reads: the latest complete UTC day, and its [since, until) in epoch ms. */
export function checkedDay(now: Date): { day: string; since: number; until: number } {
  const until = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return { day: utcDay(until - DAY_MS), since: until - DAY_MS, until };
}

export interface DriftAlertKey {
  account: string;
  index: string;
  modelId: string;
  /** `score`, or the feature's name. */
  subject: string;
}

/** One state change of one alert, as stored (a row) and sent (a notification). */
export interface DriftTransition extends DriftAlertKey {
  /** The notification's id: the same for the same change, across reruns and restarts. */
  id: string;
  /** The alert's stable key (16 hex digits): the same in its firing and resolved messages. */
  fingerprint: string;
  status: "firing" | "resolved";
  /** The UTC day whose PSI caused the change. */
  day: string;
  psi: number;
  /** Searches the PSI was computed over. */
  n: number;
  threshold: number;
  /** ISO: when the alert started firing (for a resolve: when the episode started). */
  startsAt: string;
  /** ISO: when this change was recorded. */
  at: string;
}

/** An alert's current state: its latest transition. */
export type DriftAlertState = DriftTransition;

/** FNV-1a, 64 bits, as 16 hex digits: a stable, runtime-neutral key for an alert. */
function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  for (const b of new TextEncoder().encode(text)) {
    h ^= BigInt(b);
    h = (h * prime) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}

export function alertKeyText(k: DriftAlertKey): string {
  return JSON.stringify([k.account, k.index, k.modelId, k.subject]);
}

export function driftFingerprint(k: DriftAlertKey): string {
  return fnv1a64(`${DRIFT_RULE}\u0000${alertKeyText(k)}`);
}

/**
 * The changes one model's drift (computed over `day` only) makes to the alerts' `current` states
 * (by alertKeyText). Pure.
 */
export function driftTransitions(
  key: Omit<DriftAlertKey, "subject">,
  drift: ModelDrift,
  day: string,
  current: ReadonlyMap<string, DriftAlertState>,
  now: Date,
): DriftTransition[] {
  if (drift.status !== "ok") return [];
  const row = drift.days.find((d) => d.day === day);
  if (row === undefined) return [];
  const cells = [
    { subject: SCORE_SUBJECT, result: row.score },
    ...row.features.map((f) => ({ subject: f.feature, result: f.result })),
  ];
  const out: DriftTransition[] = [];
  for (const { subject, result } of cells) {
    if (result.status !== "ok") continue;
    const k = { ...key, subject };
    const was = current.get(alertKeyText(k));
    const firing = was?.status === "firing";
    if (result.drifted === firing) continue;
    const status = result.drifted ? "firing" : "resolved";
    const fingerprint = driftFingerprint(k);
    out.push({
      ...k,
      id: `${DRIFT_RULE}:${fingerprint}:${day}:${status}`,
      fingerprint,
      status,
      day,
      psi: result.psi,
      n: result.n,
      threshold: drift.threshold,
      startsAt: status === "firing" ? now.toISOString() : (was?.startsAt ?? now.toISOString()),
      at: now.toISOString(),
    });
  }
  return out;
}

const what = (t: DriftTransition) => (t.subject === SCORE_SUBJECT ? "the score" : `feature ${t.subject}`);

/** The notification of one change: index, model, feature (subject) and PSI in the title, labels and details. */
export function driftNotification(t: DriftTransition): Notification {
  const psi = t.psi.toFixed(3);
  const title =
    t.status === "firing"
      ? `Drift: ${what(t)} of model ${t.modelId} on ${t.account}/${t.index} has PSI ${psi} > ${t.threshold} on ${t.day}`
      : `Drift resolved: ${what(t)} of model ${t.modelId} on ${t.account}/${t.index} is back to PSI ${psi} ≤ ${t.threshold} on ${t.day}`;
  const text =
    `The population stability index of ${what(t)} over ${t.n} searches served on ${t.day} (UTC) ` +
    `against the model's training profile is ${psi} (threshold ${t.threshold}). ` +
    (t.status === "firing"
      ? "Live searches no longer look like the rows the model was trained on: check the catalogue, the front end, or retrain."
      : "The distribution is back within the threshold.");
  const alert: NotificationAlert = {
    fingerprint: t.fingerprint,
    status: t.status,
    kind: t.status,
    startsAt: t.startsAt,
    endsAt: t.status === "resolved" ? t.at : null,
    severity: "warning",
    rule: DRIFT_RULE,
    subject: `${t.account}/${t.index}`,
    summary: title,
    lastError: null,
    generatorURL: null,
    labels: {
      alertname: DRIFT_RULE,
      severity: "warning",
      subject: `${t.account}/${t.index}`,
      account: t.account,
      index: t.index,
      model: t.modelId,
      feature: t.subject,
    },
    annotations: { summary: title, psi, threshold: String(t.threshold), day: t.day, searches: String(t.n) },
  };
  return {
    id: t.id,
    source: DRIFT_SOURCE,
    rule: DRIFT_RULE,
    subject: `${t.account}/${t.index}`,
    severity: "warning",
    kind: t.status,
    title,
    text,
    at: t.at,
    status: t.status,
    alerts: [alert],
    details: {
      account: t.account,
      index: t.index,
      modelId: t.modelId,
      feature: t.subject,
      psi: t.psi,
      threshold: t.threshold,
      day: t.day,
      searches: t.n,
    },
  };
}
