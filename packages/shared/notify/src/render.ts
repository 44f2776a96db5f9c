/**
 * The per-alert facts every human-facing channel (Slack, e-mail) shows, from `Notification.alerts`:
 * status, subject, summary, since when (and until when), the last error, where to look, the
 * fingerprint. The webhook sends the same facts as JSON.
 */
import type { AlertStatus, Notification, NotificationAlert, NotificationKind } from "./ports.ts";

const STATUS_WORD: Record<AlertStatus, string> = { firing: "FIRING", resolved: "RESOLVED" };
const KIND_WORD: Record<NotificationKind, string> = {
  firing: "started",
  reminder: "still firing",
  resolved: "resolved",
};

/** Longest last-error text shown per alert in a human rendering (the webhook JSON has it whole). */
export const MAX_SHOWN_ERROR_CHARS = 300;

/** Line breaks and other control characters become spaces. */
export function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]+/g, " ");
}

function clip(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join("")}…`;
}

/** `2 alerts: 1 firing, 1 resolved` (or `1 alert: firing`). */
export function statusCounts(alerts: readonly NotificationAlert[]): string {
  const firing = alerts.filter((a) => a.status === "firing").length;
  const resolved = alerts.length - firing;
  const parts = [
    ...(firing > 0 ? [`${firing} firing`] : []),
    ...(resolved > 0 ? [`${resolved} resolved`] : []),
  ];
  return `${alerts.length} alert${alerts.length === 1 ? "" : "s"}: ${parts.join(", ")}`;
}

/** The lines of one alert, plain text; `link` renders the URL (Slack wraps it, mail prints it). */
export function alertLines(a: NotificationAlert, link: (url: string) => string = (u) => u): string[] {
  const since = a.startsAt === null ? "started: unknown" : `started ${a.startsAt} (${KIND_WORD[a.kind]})`;
  const ended = a.endsAt === null ? "" : ` · ended ${a.endsAt}`;
  return [
    `${STATUS_WORD[a.status]} [${a.severity}] ${a.rule} ${oneLine(a.subject)}: ${oneLine(a.summary)}`,
    `  ${since}${ended}`,
    ...(a.lastError === null ? [] : [`  last error: ${clip(oneLine(a.lastError), MAX_SHOWN_ERROR_CHARS)}`]),
    `  where to look: ${a.generatorURL === null ? "no link (MONITOR_PUBLIC_URL not set)" : link(a.generatorURL)}`,
    `  fingerprint: ${a.fingerprint}`,
  ];
}

/** `status: firing (2 alerts: 1 firing, 1 resolved)`, or null for a notification without alerts. */
export function statusLine(n: Notification): string | null {
  if (n.alerts === undefined || n.alerts.length === 0) return null;
  return `status: ${n.status ?? "firing"} (${statusCounts(n.alerts)})`;
}
