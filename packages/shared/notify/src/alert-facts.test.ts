// Every human rendering (Slack, e-mail) carries the same facts per alert as the webhook JSON, and a
// message says "resolved" only when every alert in it is.
import { describe, expect, it } from "vitest";
import { type NotificationAlert, overallStatus } from "./ports.ts";
import { SLACK_MAX_ALERTS, slackPayload } from "./slack.ts";
import { mailSubject, mailText } from "./smtp.ts";
import { sampleAlertsNotification } from "./test-doubles.ts";

const base = sampleAlertsNotification();
const [firing, resolved] = base.alerts as [NotificationAlert, NotificationAlert];

/** The facts a person acts on, per alert, as they must appear in every rendering. */
function facts(a: NotificationAlert): string[] {
  return [
    a.fingerprint,
    a.subject,
    a.startsAt as string,
    ...(a.endsAt === null ? [] : [a.endsAt]),
    ...(a.lastError === null ? [] : [a.lastError]),
    a.generatorURL as string,
  ];
}

describe("the overall status of a message", () => {
  it("is resolved only when every alert in it is resolved", () => {
    expect(overallStatus([{ status: "resolved" }, { status: "resolved" }])).toBe("resolved");
    expect(overallStatus([{ status: "firing" }, { status: "resolved" }])).toBe("firing");
    expect(overallStatus([{ status: "firing" }])).toBe("firing");
    expect(overallStatus([])).toBe("firing");
  });
});

describe("Slack and e-mail carry each alert's facts", () => {
  it("Slack: every alert with its own status, start, end, last error, link (a Slack link) and fingerprint", () => {
    const p = slackPayload(base);
    for (const f of [...facts(firing), ...facts(resolved)]) expect(p.text).toContain(f);
    expect(p.text).toContain("status: firing (2 alerts: 1 firing, 1 resolved)");
    expect(p.text).toMatch(/^FIRING \[warning\] collector_failure config_ec2\/111111111111\/us-east-1: /m);
    expect(p.text).toMatch(/^RESOLVED \[warning\] collector_failure config_ebs\/222222222222\/eu-west-1: /m);
    expect(p.text).toContain(`<${firing.generatorURL}|${firing.generatorURL}>`);
    // Blocks: a headline section, one section per alert, the context.
    expect(p.blocks).toHaveLength(4);
    expect(JSON.stringify(p.blocks)).toContain(firing.fingerprint);
  });

  it("Slack: escapes what an error says, lists the first 20 alerts and counts the rest", () => {
    const many = Array.from({ length: 25 }, (_, i) => ({
      ...firing,
      fingerprint: `f${String(i).padStart(15, "0")}`,
      lastError: "<script> & stuff",
    }));
    const p = slackPayload(sampleAlertsNotification({ alerts: many }));
    expect(p.text).toContain("last error: &lt;script&gt; &amp; stuff");
    expect(p.text).not.toContain("<script>");
    expect(p.text).toContain(`f${String(SLACK_MAX_ALERTS - 1).padStart(15, "0")}`);
    expect(p.text).not.toContain(`f${String(SLACK_MAX_ALERTS).padStart(15, "0")}`);
    expect(p.text).toContain("… and 5 more");
    expect(p.blocks).toHaveLength(1 + SLACK_MAX_ALERTS + 1 + 1);
  });

  it("e-mail: the subject leads with the overall status; the body has every alert's facts", () => {
    expect(mailSubject(base)).toBe("[FIRING] [warning] collector_failure — 2 subjects");
    const text = mailText(base);
    for (const f of [...facts(firing), ...facts(resolved)]) expect(text).toContain(f);
    expect(text).toContain("FIRING [warning] collector_failure config_ec2/111111111111/us-east-1");
    expect(text).toContain("RESOLVED [warning] collector_failure config_ebs/222222222222/eu-west-1");
    expect(text).toContain("last error: AccessDenied: not authorized to perform ec2:DescribeInstances");
  });

  it("all resolved: Slack shows the resolved mark, the mail subject [RESOLVED]", () => {
    const n = sampleAlertsNotification({ kind: "resolved", status: "resolved", alerts: [resolved] });
    expect(mailSubject(n)).toMatch(/^\[RESOLVED\] /);
    expect(slackPayload(n).text).toMatch(/^:white_check_mark: /);
    expect(slackPayload(n).text).toContain("status: resolved (1 alert: 1 resolved)");
  });

  it("no public URL: the renderings say there is no link instead of printing null", () => {
    const n = sampleAlertsNotification({ alerts: [{ ...firing, generatorURL: null }] });
    expect(mailText(n)).toContain("where to look: no link (MONITOR_PUBLIC_URL not set)");
    expect(slackPayload(n).text).not.toContain("null");
  });
});
