import { DEFAULT_HTTP_TIMEOUT_MS, type FetchLike, postJson } from "./http.ts";
import type { Channel, Notification, Severity } from "./ports.ts";
import { alertLines, statusLine } from "./render.ts";

export interface SlackChannelOptions {
  name?: string;
  /** A Slack incoming-webhook URL (a secret: it never appears in error messages). */
  webhookUrl: string;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  fetch?: FetchLike;
  /** Allow a link-local or cloud metadata address as the target (docs/notifications.md). Default false. */
  allowPrivateTargets?: boolean;
}

const SEVERITY_MARK: Record<Severity, string> = {
  info: ":information_source:",
  warning: ":warning:",
  critical: ":rotating_light:",
};

const KIND_LABEL: Record<Notification["kind"], string> = {
  firing: "FIRING",
  reminder: "STILL FIRING",
  resolved: "RESOLVED",
};

/** Slack mrkdwn needs `&`, `<` and `>` escaped. */
export function escapeSlack(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Alerts shown one by one in a Slack message; the rest are counted (the webhook JSON has them all). */
export const SLACK_MAX_ALERTS = 20;
/** Slack refuses a section text longer than 3,000 characters. */
const SECTION_MAX_CHARS = 3000;

function section(text: string): unknown {
  const t = Array.from(text);
  return {
    type: "section",
    text: {
      type: "mrkdwn",
      text: t.length <= SECTION_MAX_CHARS ? text : `${t.slice(0, SECTION_MAX_CHARS - 1).join("")}…`,
    },
  };
}

/**
 * The incoming-webhook payload: `text` (also the fallback for notifications) names rule, subject and
 * severity; with `alerts`, each alert's status, summary, start (and end), last error, link and
 * fingerprint follow (the first `SLACK_MAX_ALERTS`).
 */
export function slackPayload(n: Notification): { text: string; blocks: unknown[] } {
  const mark =
    n.kind === "resolved" || n.status === "resolved" ? ":white_check_mark:" : SEVERITY_MARK[n.severity];
  const headline = `${mark} [${n.severity}] ${KIND_LABEL[n.kind]}: ${n.title}`;
  const facts = `rule: ${n.rule} | subject: ${n.subject} | severity: ${n.severity}`;
  const status = statusLine(n);
  const alerts = n.alerts ?? [];
  if (status === null) {
    const text = escapeSlack(`${headline}\n${facts}\n${n.text}`);
    return {
      text,
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: escapeSlack(`${headline}\n${n.text}`) } },
        context(n),
      ],
    };
  }
  const shown = alerts.slice(0, SLACK_MAX_ALERTS);
  const more = alerts.length - shown.length;
  const moreLine = more > 0 ? [`… and ${more} more (every alert is in the webhook JSON and the e-mail)`] : [];
  // Slack links: <url|url>, the URL escaped like any text (a marker keeps it apart while escaping).
  const alertText = (a: (typeof alerts)[number]) =>
    escapeSlack(alertLines(a, (url) => `\u0001${url}\u0001`).join("\n")).replace(
      /\u0001([^\u0001]*)\u0001/g,
      (_m, url: string) => `<${url}|${url}>`,
    );
  const text = [
    escapeSlack(`${headline}\n${facts}\n${status}`),
    ...shown.map(alertText),
    ...moreLine.map(escapeSlack),
  ].join("\n");
  return {
    text,
    blocks: [
      section(escapeSlack(`${headline}\n${status}`)),
      ...shown.map((a) => section(alertText(a))),
      ...(more > 0 ? [section(escapeSlack(moreLine[0] as string))] : []),
      context(n),
    ],
  };
}

function context(n: Notification): unknown {
  return {
    type: "context",
    elements: [
      { type: "mrkdwn", text: escapeSlack(`rule: ${n.rule}`) },
      { type: "mrkdwn", text: escapeSlack(`subject: ${n.subject}`) },
      { type: "mrkdwn", text: `severity: ${n.severity}` },
      { type: "mrkdwn", text: escapeSlack(`${n.source} · ${n.at}`) },
    ],
  };
}

/** Slack incoming webhook: POST `{ text, blocks }`; Slack answers 200 `ok`, anything else is a failure. */
export function slackChannel(options: SlackChannelOptions): Channel {
  const name = options.name ?? "slack";
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  return {
    name,
    async send(notification: Notification, signal: AbortSignal): Promise<void> {
      await postJson(name, options.webhookUrl, slackPayload(notification), {
        timeoutMs,
        signal,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.allowPrivateTargets ? { allowPrivateTargets: true } : {}),
      });
    },
  };
}
