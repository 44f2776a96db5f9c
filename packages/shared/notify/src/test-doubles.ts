/**
 * LOCAL TEST DOUBLES (tests only, not exported from the package): a Hono HTTP receiver standing in for
 * a webhook endpoint and for a Slack incoming webhook, and a real `smtp-server` standing in for a mail
 * relay. All listen on 127.0.0.1 with an ephemeral port.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { SMTPServer } from "smtp-server";
import type { Notification } from "./ports.ts";

export {
  type AlertmanagerDouble,
  type AlertmanagerDoubleOptions,
  type AlertmanagerPost,
  type AlertmanagerRoute,
  labelSetFingerprint,
  type StoredAlert,
  startAlertmanagerDouble,
} from "./alertmanager-double.ts";

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: unknown;
  status: number;
}

export interface HttpReceiverDouble {
  /** `url("/hook")` for the webhook route, `url("/slack")` for the Slack-webhook double. */
  url(path: string): string;
  /** Every request, in arrival order, with the status it got. */
  received: ReceivedRequest[];
  /** The next `n` requests get `status` (default 503) and `body`; later ones succeed. */
  failNext(n: number, status?: number, body?: string): void;
  /** The next `n` requests get a redirect (`status`, default 307) to `location`. */
  redirectNext(n: number, location: string, status?: number): void;
  /** While on, requests get no answer until `hang(false)` or `close()`. */
  hang(on: boolean): void;
  close(): Promise<void>;
}

/**
 * Webhook receiver double. `POST /hook` records the JSON body and answers 204 (or, when told, a
 * failure or a redirect). `POST /slack` behaves
 * like a Slack incoming webhook: 400 `invalid_payload` without a string `text`, else 200 `ok`.
 */
export async function startHttpReceiverDouble(): Promise<HttpReceiverDouble> {
  const received: ReceivedRequest[] = [];
  let failures = 0;
  let failStatus = 503;
  let failBody = "receiver double: told to fail";
  let redirects = 0;
  let redirectTo = "";
  let redirectStatus = 307;
  let hanging = false;
  let releaseHangs: () => void = () => {};
  let hangGate = Promise.resolve();

  const app = new Hono();
  app.post("/:route", async (c) => {
    const route = c.req.param("route");
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      body = undefined;
    }
    const rec: ReceivedRequest = { path: `/${route}`, headers: c.req.header(), body, status: 0 };
    received.push(rec);
    if (hanging) await hangGate;
    if (redirects > 0) {
      redirects--;
      rec.status = redirectStatus;
      return c.redirect(redirectTo, redirectStatus as 307);
    }
    if (failures > 0) {
      failures--;
      rec.status = failStatus;
      return c.text(failBody, failStatus as 500);
    }
    if (route === "slack") {
      const ok =
        typeof body === "object" && body !== null && typeof (body as { text?: unknown }).text === "string";
      rec.status = ok ? 200 : 400;
      return ok ? c.text("ok") : c.text("invalid_payload", 400);
    }
    rec.status = route === "hook" ? 204 : 404;
    return c.body(null, rec.status as 204);
  });

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    failNext(n, status = 503, body = "receiver double: told to fail") {
      failures = n;
      failStatus = status;
      failBody = body;
    },
    redirectNext(n, location, status = 307) {
      redirects = n;
      redirectTo = location;
      redirectStatus = status;
    },
    hang(on) {
      if (on && !hanging) hangGate = new Promise((r) => (releaseHangs = r));
      if (!on) releaseHangs();
      hanging = on;
    },
    async close() {
      releaseHangs();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  /** The user the client authenticated as, if it did. */
  authUser: string | undefined;
  headers: Record<string, string>;
  subject: string;
  text: string;
}

export interface SmtpDouble {
  host: string;
  port: number;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/** A real `smtp-server` on 127.0.0.1: no TLS (STARTTLS disabled), authentication optional (any login is accepted). */
export async function startSmtpDouble(): Promise<SmtpDouble> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? "" });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const parsed = parseMail(Buffer.concat(chunks).toString("utf8"));
        mails.push({
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          authUser: session.user === undefined ? undefined : String(session.user),
          ...parsed,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    host: "127.0.0.1",
    port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Just enough MIME for a single-part text mail: unfolded headers, RFC 2047 words, QP/base64 body. */
function parseMail(raw: string): { headers: Record<string, string>; subject: string; text: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const bodyRaw = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n")) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const subject = decodeWords(headers.subject ?? "");
  const cte = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  let text = bodyRaw;
  if (cte === "quoted-printable") text = decodeQp(bodyRaw);
  else if (cte === "base64") text = Buffer.from(bodyRaw.replace(/\s+/g, ""), "base64").toString("utf8");
  return { headers, subject, text: text.replace(/\r\n/g, "\n") };
}

function decodeWords(s: string): string {
  return s
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_, _cs: string, enc: string, data: string) =>
      enc.toUpperCase() === "B"
        ? Buffer.from(data, "base64").toString("utf8")
        : decodeQp(data.replace(/_/g, " ")),
    );
}

function decodeQp(s: string): string {
  const noSoft = s.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < noSoft.length; i++) {
    const ch = noSoft[i] as string;
    const hex = noSoft.slice(i + 1, i + 3);
    if (ch === "=" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(ch, "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

/** A notification for tests. */
export function sampleNotification(overrides: Partial<Notification> = {}): Notification {
  return {
    id: "monitor:dead_letter_queue_non_empty:queue/events-dlq:firing:2025-01-31T12:00:00.000Z",
    source: "monitor",
    rule: "dead_letter_queue_non_empty",
    subject: "queue/events-dlq",
    severity: "critical",
    kind: "firing",
    title: "Dead-letter queue events-dlq holds 3 messages",
    text: "The dead-letter queue of the collectors' event queue is not empty.",
    at: "2025-01-31T12:00:00.000Z",
    details: { messages: 3 },
    ...overrides,
  };
}

/**
 * A notification about two alerts of one rule, one still firing (with a collector's last error) and
 * one resolved: overall `firing`, each alert with its own status, start, end and link.
 */
export function sampleAlertsNotification(overrides: Partial<Notification> = {}): Notification {
  return sampleNotification({
    id: "collector_failure:0f1e2d3c4b5a6978",
    rule: "collector_failure",
    subject: "2 subjects",
    severity: "warning",
    kind: "firing",
    title: "[warning] collector_failure: 2 alerts (firing, resolved)",
    text: "firing config_ec2/111111111111/us-east-1: 3 consecutive failed runs: AccessDenied\nresolved config_ebs/222222222222/eu-west-1: 3 consecutive failed runs",
    status: "firing",
    alerts: [
      {
        fingerprint: "a1b2c3d4e5f60718",
        status: "firing",
        kind: "firing",
        startsAt: "2025-01-31T11:40:00.000Z",
        endsAt: null,
        severity: "warning",
        rule: "collector_failure",
        subject: "config_ec2/111111111111/us-east-1",
        summary: "3 consecutive failed runs: AccessDenied",
        lastError: "AccessDenied: not authorized to perform ec2:DescribeInstances",
        generatorURL: "https://monitor.example.com/system#collector-config_ec2",
        labels: { alertname: "collector_failure", severity: "warning" },
        annotations: { summary: "3 consecutive failed runs: AccessDenied" },
      },
      {
        fingerprint: "99aa88bb77cc66dd",
        status: "resolved",
        kind: "resolved",
        startsAt: "2025-01-31T10:00:00.000Z",
        endsAt: "2025-01-31T11:55:00.000Z",
        severity: "warning",
        rule: "collector_failure",
        subject: "config_ebs/222222222222/eu-west-1",
        summary:
          "collector_failure config_ebs/222222222222/eu-west-1 resolved (was: 3 consecutive failed runs)",
        lastError: null,
        generatorURL: "https://monitor.example.com/system#collector-config_ebs",
        labels: { alertname: "collector_failure", severity: "warning" },
        annotations: { summary: "resolved" },
      },
    ],
    details: undefined,
    ...overrides,
  });
}
