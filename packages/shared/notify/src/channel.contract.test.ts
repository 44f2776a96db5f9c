/**
 * The Channel contract over every adapter of the port, each against a real local receiver: the
 * webhook and the Slack incoming webhook against the node:http receiver double, e-mail against a
 * real local smtp-server, Alertmanager against the double of its API v2 (alertmanager-double.ts).
 */
import { alertmanagerChannel } from "./alertmanager.ts";
import { type ChannelAdapter, channelContract } from "./channel.contract.ts";
import { slackChannel } from "./slack.ts";
import { smtpChannel } from "./smtp.ts";
import {
  type AlertmanagerDouble,
  type HttpReceiverDouble,
  labelSetFingerprint,
  type SmtpDouble,
  startAlertmanagerDouble,
  startHttpReceiverDouble,
  startSmtpDouble,
} from "./test-doubles.ts";
import { webhookChannel } from "./webhook.ts";

let http: HttpReceiverDouble;
let smtp: SmtpDouble;
let am: AlertmanagerDouble;

async function downUrl(path: string): Promise<string> {
  const down = await startHttpReceiverDouble();
  const url = down.url(path);
  await down.close();
  return url;
}

const delivered = (path: string, text: (body: unknown) => string) => () =>
  http.received.filter((r) => r.path === path && r.status < 300).map((r) => text(r.body));

const ADAPTERS: ChannelAdapter[] = [
  {
    name: "webhook (JSON POST)",
    async setup() {
      http = await startHttpReceiverDouble();
    },
    async teardown() {
      await http.close();
    },
    open: (name) => webhookChannel({ name, url: http.url("/hook") }),
    openDown: async (name) => webhookChannel({ name, url: await downUrl("/hook") }),
    delivered: delivered("/hook", (body) => JSON.stringify(body)),
  },
  {
    name: "Slack incoming webhook",
    async setup() {
      http = await startHttpReceiverDouble();
    },
    async teardown() {
      await http.close();
    },
    open: (name) => slackChannel({ name, webhookUrl: http.url("/slack") }),
    openDown: async (name) => slackChannel({ name, webhookUrl: await downUrl("/slack") }),
    delivered: delivered("/slack", (body) => (body as { text: string }).text),
  },
  {
    name: "e-mail (SMTP, real local smtp-server)",
    async setup() {
      smtp = await startSmtpDouble();
    },
    async teardown() {
      await smtp.close();
    },
    open: (name) =>
      smtpChannel({
        name,
        host: smtp.host,
        port: smtp.port,
        secure: false,
        from: "svcmon@example.test",
        to: ["ops@example.test"],
      }),
    async openDown(name) {
      const down = await startSmtpDouble();
      const port = down.port;
      await down.close();
      return smtpChannel({
        name,
        host: "127.0.0.1",
        port,
        from: "a@x.test",
        to: ["b@x.test"],
        timeoutMs: 2_000,
      });
    },
    delivered: () => smtp.mails.map((m) => `${m.subject}\n${m.text}`),
  },
  {
    name: "Alertmanager (API v2 double)",
    async setup() {
      am = await startAlertmanagerDouble();
    },
    async teardown() {
      await am.close();
    },
    open: (name) => alertmanagerChannel({ name, url: am.url }),
    openDown: async (name) => alertmanagerChannel({ name, url: (await downUrl("/")).replace(/\/$/, "") }),
    // Each accepted post, with the state the double holds each of its alerts in (firing: active).
    delivered: () => {
      const stored = new Map(am.stored().map((a) => [a.fingerprint, a]));
      return am.posts
        .filter((p) => p.status === 200)
        .map((p) => {
          const alerts = p.body as { labels: Record<string, string> }[];
          const states = alerts.map((a) =>
            stored.get(labelSetFingerprint(a.labels))?.resolved ? "resolved" : "firing",
          );
          return JSON.stringify({ alerts, states });
        });
    },
  },
];

for (const adapter of ADAPTERS) channelContract(adapter);
