// The /system page's view as a person reads it, rendered from status bodies (no server, no browser):
// the verdict tells the same story as the counts beside it, and sizes are in units that fit.
import { describe, expect, it } from "vitest";
import { fmtBytes, LiveContent, verdictHealth } from "./view.ts";
import type { AlertJson, CollectorJson, PageState, StatusJson } from "./view-types.ts";

const collector = (name: string, health: "green" | "amber" | "red" | "new"): CollectorJson => ({
  name,
  last_run: "2026-11-28T03:00:00.000Z",
  status: "succeeded",
  minutes_ago: 5,
  health,
});
const alert = (severity: "warning" | "critical", over: Partial<AlertJson> = {}): AlertJson => ({
  rule: severity === "critical" ? "dead_letter_queue" : "account_no_access",
  subject: "s",
  severity,
  notified: true,
  muted: false,
  ...over,
});
const healthy: StatusJson = {
  collectors: [collector("config_ec2", "green"), collector("config_ebs", "green")],
  overall_health: "green",
  accounts: { active: 2, pending_setup: 0, no_access: 0 },
  warnings: [],
  alerts: [],
  queues: [],
};
const render = (status: StatusJson) => {
  const state: PageState = {
    status,
    statusAt: "2026-11-28T03:05:00.000Z",
    failures: null,
    silences: null,
    problems: [],
    csrf: null,
  };
  return String(LiveContent(state));
};
/** The verdict's banner class and its words. */
const verdictOf = (status: StatusJson) => {
  const html = render(status);
  const cls = /class="verdict ([a-z]+)"/.exec(html)?.[1];
  const words = /<p id="overall">Overall: <span class="badge [a-z]+">([^<]+)<\/span>/.exec(html)?.[1];
  return `${cls} ${words}`;
};

describe("the verdict reflects firing alerts and accounts needing attention", () => {
  it("healthy collectors and nothing else: green, Healthy", () => {
    expect(verdictHealth(healthy)).toBe("green");
    expect(verdictOf(healthy)).toBe("green Healthy");
  });

  it("a warning fires and two accounts need attention: amber, Degraded, never a green Healthy", () => {
    const st: StatusJson = {
      ...healthy,
      accounts: { active: 1, pending_setup: 1, no_access: 1 },
      warnings: [
        { kind: "account", subject: "222222222222", message: "Staging: pending_setup" },
        { kind: "account", subject: "333333333333", message: "Legacy: no_access" },
      ],
      alerts: [alert("warning", { subject: "333333333333" })],
    };
    expect(verdictHealth(st)).toBe("amber");
    const html = render(st);
    expect(verdictOf(st)).toBe("amber Degraded");
    expect(html).toContain('<li class="amber"><strong>1</strong> warning(s)</li>');
    expect(html).toContain('<li class="amber"><strong>2</strong> account(s) need attention</li>');
  });

  it("a warning alone makes it amber; an account alone (pending setup, unscanned) too", () => {
    expect(verdictHealth({ ...healthy, alerts: [alert("warning")] })).toBe("amber");
    expect(
      verdictHealth({
        ...healthy,
        warnings: [{ kind: "account", subject: "2", message: "Staging: pending_setup" }],
      }),
    ).toBe("amber");
    expect(
      verdictHealth({
        ...healthy,
        unscanned_accounts: [{ account_id: "4", account_name: "Analytics", last_scanned_at: null }],
      }),
    ).toBe("amber");
  });

  it("a critical alert makes it red, whatever the collectors", () => {
    const st = { ...healthy, alerts: [alert("warning"), alert("critical")] };
    expect(verdictOf(st)).toBe("red Unhealthy");
  });

  it("a muted alert does not count (it is held back, listed as muted)", () => {
    expect(verdictHealth({ ...healthy, alerts: [alert("critical", { muted: true })] })).toBe("green");
  });

  it("queues: dead letters are red, an unreadable queue amber", () => {
    expect(verdictHealth({ ...healthy, queues: [{ name: "q", status: "dead_letters" }] })).toBe("red");
    const unreadable: StatusJson = { ...healthy, queues: [{ name: "q", status: "unreadable" }] };
    expect(verdictHealth(unreadable)).toBe("amber");
    expect(render(unreadable)).toContain('<li class="amber"><strong>1</strong> queue(s) unreadable</li>');
  });

  it("never lowers the collectors' own health; waiting collectors with a warning are amber", () => {
    const red = { ...healthy, collectors: [collector("config_ec2", "red")], overall_health: "red" as const };
    expect(verdictHealth({ ...red, alerts: [alert("warning")] })).toBe("red");
    const waiting = {
      ...healthy,
      collectors: [collector("config_ec2", "new")],
      overall_health: "new" as const,
    };
    expect(verdictHealth(waiting)).toBe("new");
    expect(verdictHealth({ ...waiting, alerts: [alert("warning")] })).toBe("amber");
  });

  it("unknown only when the status says nothing", () => {
    expect(verdictHealth({})).toBeNull();
    expect(verdictHealth({ alerts: [alert("warning")] })).toBe("amber");
  });
});

describe("sizes in units that fit", () => {
  it.each([
    [0, "0 bytes"],
    [999, "999 bytes"],
    [1000, "1 KB"],
    [184_000, "184 KB"],
    [999_600, "1 MB"],
    [1_060_000, "1.06 MB"],
    [12_345_678, "12.3 MB"],
    [108_940_000_000, "109 GB"],
    [2.5e12, "2.5 TB"],
  ])("%d bytes → %s", (bytes, text) => {
    expect(fmtBytes(bytes)).toBe(text);
  });

  it("the analytics database: '184 KB of 109 GB', not '0 GB of 108.94 GB'", () => {
    const html = render({
      ...healthy,
      analytics_db: { disk_used_gb: 0.000184, disk_total_gb: 108.94, svc_disk_used_gb: 0.00012 },
    });
    expect(html).toContain("<dt>Disk used</dt><dd>184 KB of 109 GB</dd>");
    expect(html).toContain("<dt>Service data</dt><dd>120 KB</dd>");
    expect(html).not.toContain("0 GB");
  });

  it("not available when unknown", () => {
    expect(render({ ...healthy, analytics_db: {} })).toContain("<dt>Disk used</dt><dd>not available</dd>");
    expect(fmtBytes(null)).toBe("not available");
  });
});

describe("run history with one run", () => {
  it("says '1 run', not 'last 1 runs'", () => {
    const html = String(
      LiveContent({
        status: healthy,
        statusAt: null,
        failures: {
          days: ["2026-11-28"],
          collectors: [
            {
              name: "config_ec2",
              failures: [0],
              total: 0,
              latest_run: null,
              recent_runs: [
                { completed_at: "2026-11-28T03:00:00.000Z", status: "succeeded", duration_ms: 2000 },
              ],
            },
          ],
        },
        silences: null,
        problems: [],
        csrf: null,
      }),
    );
    expect(html).toContain("duration, 1 run");
    expect(html).not.toContain("last 1 runs");
  });
});

describe("a collector card shows its runs still running", () => {
  it("says running since … for a run within its max duration and hung for … beyond it", () => {
    const open = (state: "running" | "hung", elapsedMin: number, region: string) => ({
      run_id: `00000000-0000-4000-8000-00000000000${elapsedMin % 10}`,
      collector: "config_ec2",
      cloud_account_id: "111111111111",
      cloud_region: region,
      state,
      started_at: "2026-11-28T02:00:00.000Z",
      elapsed_ms: elapsedMin * 60_000,
      max_duration_ms: 30 * 60_000,
      max_duration_source: "default" as const,
    });
    const html = render({
      ...healthy,
      open_runs: [open("running", 12, "eu-west-1"), open("hung", 95, "us-east-1")],
    });
    const card = html.slice(
      html.indexOf('id="collector-config_ec2"'),
      html.indexOf('id="collector-config_ebs"'),
    );
    expect(card).toContain("<dt>Hung</dt>");
    expect(card).toContain("hung for 1 h 35 min in 111111111111/us-east-1");
    expect(card).toContain("<dt>Running</dt>");
    expect(card).toMatch(/running since [^<]+ \(12 min\) in 111111111111\/eu-west-1 \(max 30 min, default\)/);
    // The hung run is listed first; the other collector's card shows none.
    expect(card.indexOf("Hung")).toBeLessThan(card.indexOf("Running"));
    const other = html.slice(html.indexOf('id="collector-config_ebs"'));
    expect(other.slice(0, other.indexOf("</article>"))).not.toContain("Running");
  });
});
