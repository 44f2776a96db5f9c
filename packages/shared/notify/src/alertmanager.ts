/**
 * The Alertmanager channel: POSTs a notification's alerts to `<url>/api/v2/alerts` as Alertmanager's
 * `postableAlerts` (`[{ labels, annotations, startsAt, endsAt, generatorURL }]`), so an existing
 * Alertmanager routes, groups, inhibits, silences and pages them (docs/notifications.md, "Alertmanager").
 */
import { DEFAULT_HTTP_TIMEOUT_MS, type FetchLike, postJson } from "./http.ts";
import type { Channel, Notification, NotificationAlert, Severity } from "./ports.ts";

/** One element of Alertmanager's `postableAlerts` (api/v2/openapi.yaml, `postableAlert`). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
}

/** Bearer token or HTTP basic auth, sent as the `authorization` header. */
export type AlertmanagerAuth = { bearer: string } | { user: string; password: string };

/**
 * How long past the send time a firing alert's `endsAt` is set, by severity: 4 × the monitor's
 * reminder interval (critical: reminders every hour, warning: every 4 hours; info has none, given the
 * warning one). Each reminder re-posts the alert and pushes `endsAt` on, so the alert stays active
 * while reminders keep coming, and resolves by itself at most this long after they stop (the monitor
 * is down, or the alert is held back by a mute). Prometheus does the same with 4 × its resend delay.
 */
export const DEFAULT_FIRING_HORIZON_MS: Record<Severity, number> = {
  critical: 4 * 3_600_000,
  warning: 16 * 3_600_000,
  info: 16 * 3_600_000,
};

/** A classic Prometheus label name, valid in every Alertmanager mode. */
export const PROMETHEUS_LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** `cloud-account.id` → `cloud_account_id`, `1x` → `_1x`: a valid classic label name (`""` stays empty). */
export function promLabelName(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9_]/g, "_");
  return /^[0-9]/.test(s) ? `_${s}` : s;
}

/** Lone surrogates (not valid UTF-8, which Alertmanager refuses) become U+FFFD. */
function wellFormed(s: string): string {
  return s.replace(/\p{Cs}/gu, "\uFFFD");
}

/**
 * Label or annotation names made valid (sorted, so a name two inputs map to is always taken by the
 * same one), empty values dropped (Alertmanager drops empty labels too).
 */
function promLabelSet(input: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(input).sort()) {
    const value = input[name];
    const n = promLabelName(name);
    if (n === "" || typeof value !== "string" || value === "" || n in out) continue;
    out[n] = wellFormed(value);
  }
  return out;
}

export interface PostableAlertsOptions {
  /** The send time (ms): a firing alert's `endsAt` is this plus the horizon. */
  now: number;
  /** Overrides `DEFAULT_FIRING_HORIZON_MS` for every severity. */
  firingHorizonMs?: number;
  /** Added to every alert's labels where the alert has no label of that name. */
  extraLabels?: Record<string, string>;
}

/**
 * The labels of one alert: its own labels (names made valid), `alertname` (the rule), `subject` and
 * `severity` if it lacks them, then `extraLabels` where not already set. Nothing in it depends on the
 * alert's status or the message kind, so the firing, reminder and resolved posts of one alert carry
 * the identical label set, which is how Alertmanager identifies an alert.
 */
export function alertmanagerLabels(
  alert: Pick<NotificationAlert, "labels" | "rule" | "subject" | "severity">,
  extraLabels: Record<string, string> = {},
): Record<string, string> {
  const labels = promLabelSet(alert.labels);
  if (labels.alertname === undefined) labels.alertname = wellFormed(alert.rule);
  if (labels.subject === undefined && alert.subject !== "") labels.subject = wellFormed(alert.subject);
  if (labels.severity === undefined) labels.severity = alert.severity;
  for (const [name, value] of Object.entries(promLabelSet(extraLabels))) {
    if (labels[name] === undefined) labels[name] = value;
  }
  return labels;
}

/** A notification without `alerts` (another producer's) as one alert of its rule and subject. */
function alertOf(n: Notification): NotificationAlert {
  const resolved = n.kind === "resolved";
  return {
    fingerprint: "",
    status: resolved ? "resolved" : "firing",
    kind: n.kind,
    // A reminder's start is unknown here; Alertmanager keeps the earliest start it has seen.
    startsAt: n.kind === "firing" ? n.at : null,
    endsAt: resolved ? n.at : null,
    severity: n.severity,
    rule: n.rule,
    subject: n.subject,
    summary: n.title,
    lastError: null,
    generatorURL: null,
    labels: { alertname: n.rule, subject: n.subject, severity: n.severity, source: n.source },
    annotations: { summary: n.title, ...(n.text === "" ? {} : { description: n.text }) },
  };
}

const ms = (iso: string | null): number | null => {
  if (iso === null) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
};

/**
 * A notification → Alertmanager's `postableAlerts`, one per alert (or one for a notification without
 * `alerts`). Firing: `endsAt` = `now` + the horizon. Resolved: `endsAt` = the alert's end (the
 * notification's time if unknown), never before its start. `startsAt` and `generatorURL` are omitted
 * when unknown.
 */
export function postableAlerts(n: Notification, options: PostableAlertsOptions): PostableAlert[] {
  const alerts = n.alerts !== undefined && n.alerts.length > 0 ? n.alerts : [alertOf(n)];
  return alerts.map((a) => {
    const startsAt = ms(a.startsAt);
    let endsAt: number;
    if (a.status === "resolved") {
      endsAt = ms(a.endsAt) ?? ms(n.at) ?? options.now;
      if (startsAt !== null && endsAt < startsAt) endsAt = startsAt;
    } else {
      endsAt = options.now + (options.firingHorizonMs ?? DEFAULT_FIRING_HORIZON_MS[a.severity]);
    }
    const annotations = promLabelSet({
      summary: a.summary,
      ...(a.lastError === null ? {} : { last_error: a.lastError }),
      ...a.annotations,
      ...(a.fingerprint === "" ? {} : { fingerprint: a.fingerprint }),
    });
    return {
      labels: alertmanagerLabels(a, options.extraLabels),
      annotations,
      ...(startsAt === null ? {} : { startsAt: new Date(startsAt).toISOString() }),
      endsAt: new Date(endsAt).toISOString(),
      ...(a.generatorURL === null || a.generatorURL === "" ? {} : { generatorURL: a.generatorURL }),
    };
  });
}

/** `https://am:9093` or `https://x/alertmanager/` → `…/api/v2/alerts` (a route prefix is kept). */
export function alertsEndpoint(baseUrl: string): string {
  const u = new URL(baseUrl);
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/api/v2/alerts`;
  return u.toString();
}

export function authorizationHeader(auth: AlertmanagerAuth): string {
  return "bearer" in auth
    ? `Bearer ${auth.bearer}`
    : `Basic ${Buffer.from(`${auth.user}:${auth.password}`, "utf8").toString("base64")}`;
}

export interface AlertmanagerChannelOptions {
  name?: string;
  /** The Alertmanager's base URL (with its route prefix, if any), e.g. `https://am.example:9093`. */
  url: string;
  auth?: AlertmanagerAuth;
  /** Added to every alert's labels where the alert has no label of that name (e.g. `team`). */
  extraLabels?: Record<string, string>;
  /** A firing alert's `endsAt` is the send time plus this; default `DEFAULT_FIRING_HORIZON_MS`. */
  firingHorizonMs?: number;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  fetch?: FetchLike;
  /** Allow a link-local or cloud metadata address as the target (docs/notifications.md). Default false. */
  allowPrivateTargets?: boolean;
  /** The clock (ms) for a firing alert's `endsAt`; default `Date.now`. */
  now?: () => number;
}

/**
 * Alertmanager: one `POST <url>/api/v2/alerts` per send with every alert of the notification. 200 is
 * success; anything else (a 400 for an alert Alertmanager finds invalid, with its error text; a
 * redirect, not followed; a network error; the timeout) fails the send, and `deliver` retries it.
 */
export function alertmanagerChannel(options: AlertmanagerChannelOptions): Channel {
  const name = options.name ?? "alertmanager";
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  return {
    name,
    async send(notification: Notification, signal: AbortSignal): Promise<void> {
      let endpoint: string;
      try {
        endpoint = alertsEndpoint(options.url);
      } catch {
        throw new Error(`${name}: target refused: the URL is not a valid URL`);
      }
      const body = postableAlerts(notification, {
        now: now(),
        ...(options.firingHorizonMs === undefined ? {} : { firingHorizonMs: options.firingHorizonMs }),
        ...(options.extraLabels ? { extraLabels: options.extraLabels } : {}),
      });
      await postJson(name, endpoint, body, {
        headers: options.auth ? { authorization: authorizationHeader(options.auth) } : {},
        timeoutMs,
        signal,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.allowPrivateTargets ? { allowPrivateTargets: true } : {}),
      });
    },
  };
}
