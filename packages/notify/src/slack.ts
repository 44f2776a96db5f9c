import { DEFAULT_HTTP_TIMEOUT_MS, type FetchLike, postJson } from "./http.ts";
import type { Channel, Notification, Severity } from "./ports.ts";

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

/** The incoming-webhook payload: `text` (also the fallback for notifications) names rule, subject and severity. */
export function slackPayload(n: Notification): { text: string; blocks: unknown[] } {
  const mark = n.kind === "resolved" ? ":white_check_mark:" : SEVERITY_MARK[n.severity];
  const headline = `${mark} [${n.severity}] ${KIND_LABEL[n.kind]}: ${n.title}`;
  const facts = `rule: ${n.rule} | subject: ${n.subject} | severity: ${n.severity}`;
  const text = escapeSlack(`${headline}\n${facts}\n${n.text}`);
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: escapeSlack(`${headline}\n${n.text}`) } },
      {
        type: "context",
        elements: [
          { type: "mrkdwn", text: escapeSlack(`rule: ${n.rule}`) },
          { type: "mrkdwn", text: escapeSlack(`subject: ${n.subject}`) },
          { type: "mrkdwn", text: `severity: ${n.severity}` },
          { type: "mrkdwn", text: escapeSlack(`${n.source} · ${n.at}`) },
        ],
      },
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
