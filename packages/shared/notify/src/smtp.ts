import nodemailer from "nodemailer";
import { errorMessage } from "./http.ts";
import type { Channel, Notification } from "./ports.ts";
import { alertLines, statusCounts, statusLine } from "./render.ts";
import { hostProblem } from "./targets.ts";

export interface SmtpChannelOptions {
  name?: string;
  host: string;
  port: number;
  /** TLS from the first byte (port 465). When false, STARTTLS is used if the server offers it. */
  secure?: boolean;
  auth?: { user: string; pass: string };
  from: string;
  to: string[];
  /** Connection, greeting and socket timeouts; default 10 s. */
  timeoutMs?: number;
  /** Allow a link-local or cloud metadata address as the mail host (docs/notifications.md). Default false. */
  allowPrivateTargets?: boolean;
}

/**
 * `[severity] rule — subject`, on one line; a notification with alerts starts with its overall status
 * (`[RESOLVED]` only when every alert is resolved).
 */
export function mailSubject(n: Notification): string {
  const status = n.status === undefined ? "" : `[${n.status.toUpperCase()}] `;
  return oneLine(`${status}[${n.severity}] ${n.rule} — ${n.subject}`);
}

export function mailText(n: Notification): string {
  const lines = [
    n.title,
    "",
    n.text,
    "",
    `Rule: ${n.rule}`,
    `Subject: ${n.subject}`,
    `Severity: ${n.severity}`,
    `Kind: ${n.kind}`,
    `Source: ${n.source}`,
    `At: ${n.at}`,
    `Notification id: ${n.id}`,
  ];
  const status = statusLine(n);
  if (status !== null && n.alerts !== undefined) {
    lines.push("", `Alerts (${statusCounts(n.alerts)}), overall status: ${n.status ?? "firing"}`);
    for (const a of n.alerts) lines.push("", ...alertLines(a));
  }
  if (n.details !== undefined) lines.push("", "Details:", JSON.stringify(n.details, null, 2));
  return `${lines.join("\n")}\n`;
}

function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, " ");
}

/** E-mail over SMTP through a nodemailer transport (one connection per message). */
export function smtpChannel(options: SmtpChannelOptions): Channel {
  const name = options.name ?? "smtp";
  const timeoutMs = options.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport({
    host: options.host,
    port: options.port,
    secure: options.secure ?? false,
    ...(options.auth ? { auth: { user: options.auth.user, pass: options.auth.pass } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    name,
    async send(notification: Notification, signal: AbortSignal): Promise<void> {
      signal.throwIfAborted();
      const refused = hostProblem(options.host, options.allowPrivateTargets ?? false);
      if (refused !== undefined) throw new Error(`${name}: target refused: the host ${refused}`);
      const sending = transport.sendMail({
        from: options.from,
        to: options.to,
        subject: mailSubject(notification),
        text: mailText(notification),
        headers: { "X-Notification-Id": oneLine(notification.id) },
      });
      // nodemailer takes no AbortSignal: stop waiting on abort (the connection ends on its own timeouts).
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(new Error(`${name}: aborted`));
        signal.addEventListener("abort", onAbort, { once: true });
      });
      try {
        const info: { rejected?: unknown[] } = await Promise.race([sending, aborted]);
        if (Array.isArray(info.rejected) && info.rejected.length > 0) {
          throw new Error(`${name}: recipients rejected: ${info.rejected.map(String).join(", ")}`);
        }
      } catch (err) {
        sending.catch(() => undefined);
        const msg = errorMessage(err);
        throw new Error(msg.startsWith(`${name}:`) ? msg : `${name}: ${msg}`);
      } finally {
        if (onAbort) signal.removeEventListener("abort", onAbort);
      }
    },
  };
}
