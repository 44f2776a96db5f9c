/**
 * The Alertmanager channel against the double of Alertmanager's API v2 (alertmanager-double.ts),
 * and its config. The channel contract runs over it too (channel.contract.test.ts).
 */
import { type AddressInfo, createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alertmanagerChannel,
  alertmanagerLabels,
  alertsEndpoint,
  DEFAULT_FIRING_HORIZON_MS,
  type PostableAlert,
  PROMETHEUS_LABEL_NAME_RE,
  postableAlerts,
} from "./alertmanager.ts";
import { createChannels, parseChannelsConfig, validateChannelsConfig } from "./config.ts";
import { deliver } from "./deliver.ts";
import { InMemoryDeliveryLog, type NotificationAlert } from "./ports.ts";
import {
  type AlertmanagerDouble,
  type HttpReceiverDouble,
  labelSetFingerprint,
  sampleAlertsNotification,
  sampleNotification,
  startAlertmanagerDouble,
  startHttpReceiverDouble,
} from "./test-doubles.ts";

const never = new AbortController().signal;
const HOUR = 3_600_000;
const T0 = Date.parse("2025-01-31T12:00:00.000Z");

/** A clock both the channel and the double read. */
function clock(start = T0) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms) };
}

function collectorAlert(over: Partial<NotificationAlert> = {}): NotificationAlert {
  return {
    fingerprint: "e40efe58f2689417",
    status: "firing",
    kind: "firing",
    startsAt: "2025-01-31T11:40:00.000Z",
    endsAt: null,
    severity: "critical",
    rule: "collector_failure",
    subject: "config_ec2/111111111111/us-east-1",
    summary: "3 consecutive failed runs: AccessDenied",
    lastError: "AccessDenied: not authorized to perform ec2:DescribeInstances",
    generatorURL: "https://monitor.example.com/system#collector-config_ec2",
    labels: {
      alertname: "collector_failure",
      rule: "collector_failure",
      subject: "config_ec2/111111111111/us-east-1",
      severity: "critical",
      source: "monitor",
      collector: "config_ec2",
      "cloud-account.id": "111111111111",
    },
    annotations: { summary: "3 consecutive failed runs: AccessDenied" },
    ...over,
  };
}

function alertNotification(
  kind: "firing" | "reminder" | "resolved",
  at: string,
  endsAt: string | null = null,
) {
  const status = kind === "resolved" ? "resolved" : "firing";
  return sampleNotification({
    id: `collector_failure:${kind}:${at}`,
    rule: "collector_failure",
    subject: "config_ec2/111111111111/us-east-1",
    severity: "critical",
    kind,
    at,
    status,
    alerts: [
      collectorAlert({
        status,
        kind,
        endsAt,
        summary:
          status === "resolved" ? "collector_failure config_ec2 resolved" : "3 consecutive failed runs",
        annotations: { summary: status === "resolved" ? "resolved" : "3 consecutive failed runs" },
        lastError: status === "resolved" ? null : "AccessDenied",
      }),
    ],
  });
}

async function getAlerts(am: AlertmanagerDouble, query = ""): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${am.url}/api/v2/alerts${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>[];
}

describe("Alertmanager channel against the API v2 double", () => {
  let am: AlertmanagerDouble;
  const c = clock();
  beforeAll(async () => {
    am = await startAlertmanagerDouble({
      now: c.now,
      routes: [{ match: { team: "platform", severity: "critical" }, receiver: "platform-pager" }],
    });
  });
  afterAll(async () => am.close());

  it("firing then resolved for the same alert ends resolved in the double, with its start kept", async () => {
    c.set(T0);
    const ch = alertmanagerChannel({
      name: "am",
      url: am.url,
      now: c.now,
      extraLabels: { team: "platform" },
    });
    await ch.send(alertNotification("firing", "2025-01-31T12:00:00.000Z"), never);

    const active = await getAlerts(am, '?filter=alertname="collector_failure"');
    expect(active).toHaveLength(1);
    const a = active[0] as Record<string, unknown>;
    expect(a.status).toMatchObject({ state: "active" });
    expect(a.receivers).toEqual([{ name: "platform-pager" }]);
    expect(a.startsAt).toBe("2025-01-31T11:40:00.000Z");
    expect(a.generatorURL).toBe("https://monitor.example.com/system#collector-config_ec2");
    expect(a.annotations).toMatchObject({ last_error: "AccessDenied", fingerprint: "e40efe58f2689417" });
    expect(await getAlerts(am, "?receiver=platform-pager")).toHaveLength(1);

    c.set(T0 + 25 * 60_000);
    await ch.send(
      alertNotification("resolved", "2025-01-31T12:25:00.000Z", "2025-01-31T12:25:00.000Z"),
      never,
    );

    // Alertmanager's GET /api/v2/alerts leaves resolved alerts out.
    expect(await getAlerts(am, '?filter=alertname="collector_failure"')).toEqual([]);
    const stored = am.stored().filter((s) => s.labels.alertname === "collector_failure");
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      resolved: true,
      timeout: false,
      startsAt: "2025-01-31T11:40:00.000Z",
      endsAt: "2025-01-31T12:25:00.000Z",
      receiver: "platform-pager",
    });
    expect(am.posts.every((p) => p.status === 200)).toBe(true);
  });

  it("labels are identical in the firing, reminder and resolved posts of one alert: one alert in the double", async () => {
    const double = await startAlertmanagerDouble({ now: c.now });
    try {
      c.set(T0);
      const ch = alertmanagerChannel({ name: "am", url: double.url, now: c.now });
      await ch.send(alertNotification("firing", "2025-01-31T12:00:00.000Z"), never);
      c.set(T0 + HOUR);
      await ch.send(alertNotification("reminder", "2025-01-31T13:00:00.000Z"), never);
      c.set(T0 + 2 * HOUR);
      await ch.send(
        alertNotification("resolved", "2025-01-31T14:00:00.000Z", "2025-01-31T14:00:00.000Z"),
        never,
      );
      const labelSets = double.posts.map((p) => (p.body as PostableAlert[])[0]?.labels);
      expect(labelSets).toHaveLength(3);
      expect(labelSets[1]).toEqual(labelSets[0]);
      expect(labelSets[2]).toEqual(labelSets[0]);
      expect(double.stored()).toHaveLength(1);
      const labels = labelSets[0] as Record<string, string>;
      expect(labels).toEqual({
        alertname: "collector_failure",
        rule: "collector_failure",
        subject: "config_ec2/111111111111/us-east-1",
        severity: "critical",
        source: "monitor",
        collector: "config_ec2",
        cloud_account_id: "111111111111",
      });
      for (const name of Object.keys(labels)) expect(name).toMatch(PROMETHEUS_LABEL_NAME_RE);
      expect(double.stored()[0]?.fingerprint).toBe(labelSetFingerprint(labels));
    } finally {
      await double.close();
    }
  });

  it("every alert of a notification is posted with its own labels (alertname and subject always set)", async () => {
    c.set(T0);
    const before = am.posts.length;
    await alertmanagerChannel({ name: "am", url: am.url, now: c.now }).send(
      sampleAlertsNotification(),
      never,
    );
    const body = am.posts[before]?.body as PostableAlert[];
    expect(body.map((a) => a.labels.subject)).toEqual([
      "config_ec2/111111111111/us-east-1",
      "config_ebs/222222222222/eu-west-1",
    ]);
    for (const a of body) expect(a.labels.alertname).toBe("collector_failure");
    expect(body[1]?.endsAt).toBe("2025-01-31T11:55:00.000Z");
  });

  it("a notification without alerts (another producer) is posted as one alert of its rule and subject", async () => {
    const n = sampleNotification({
      source: "anomaly",
      rule: "cost_spike",
      subject: "account/1",
      kind: "firing",
    });
    const [a] = postableAlerts(n, { now: T0 });
    expect(a).toEqual({
      labels: { alertname: "cost_spike", subject: "account/1", severity: "critical", source: "anomaly" },
      annotations: { summary: n.title, description: n.text },
      startsAt: n.at,
      endsAt: new Date(T0 + DEFAULT_FIRING_HORIZON_MS.critical).toISOString(),
    });
    const [r] = postableAlerts({ ...n, kind: "resolved" }, { now: T0 });
    expect(r?.endsAt).toBe(n.at);
    expect(r?.startsAt).toBeUndefined();
  });
});

describe("re-sending: a firing alert's endsAt is a horizon that reminders push on", () => {
  it("firing endsAt = send time + 4 × the reminder interval; a reminder extends it; without one the double resolves it", async () => {
    const c = clock();
    const am = await startAlertmanagerDouble({ now: c.now });
    try {
      const ch = alertmanagerChannel({ name: "am", url: am.url, now: c.now });
      await ch.send(alertNotification("firing", "2025-01-31T12:00:00.000Z"), never);
      expect(am.stored()[0]).toMatchObject({ endsAt: new Date(T0 + 4 * HOUR).toISOString(), timeout: false });
      // Past Alertmanager's resolve_timeout (5 m) it is still firing: endsAt was given.
      c.set(T0 + HOUR);
      expect(am.stored()[0]?.resolved).toBe(false);
      await ch.send(alertNotification("reminder", "2025-01-31T13:00:00.000Z"), never);
      expect(am.stored()[0]?.endsAt).toBe(new Date(T0 + 5 * HOUR).toISOString());
      c.set(T0 + 5 * HOUR + 1);
      expect(am.stored()[0]?.resolved).toBe(true);
    } finally {
      await am.close();
    }
  });

  it("a firing post that arrives after the resolve re-opens the alert (why order matters)", async () => {
    const c = clock();
    const am = await startAlertmanagerDouble({ now: c.now });
    try {
      const ch = alertmanagerChannel({ name: "am", url: am.url, now: c.now });
      c.set(T0 + 10 * 60_000);
      await ch.send(
        alertNotification("resolved", "2025-01-31T12:10:00.000Z", "2025-01-31T12:10:00.000Z"),
        never,
      );
      expect(am.stored()[0]?.resolved).toBe(true);
      c.set(T0 + 11 * 60_000);
      await ch.send(alertNotification("firing", "2025-01-31T12:00:00.000Z"), never);
      expect(am.stored()[0]).toMatchObject({ resolved: false, startsAt: "2025-01-31T11:40:00.000Z" });
    } finally {
      await am.close();
    }
  });

  it("the horizon is by severity, or firingHorizonMs", () => {
    const warning = sampleAlertsNotification();
    expect(postableAlerts(warning, { now: T0 })[0]?.endsAt).toBe(new Date(T0 + 16 * HOUR).toISOString());
    expect(postableAlerts(warning, { now: T0, firingHorizonMs: HOUR })[0]?.endsAt).toBe(
      new Date(T0 + HOUR).toISOString(),
    );
  });

  it("without endsAt the double (like Alertmanager) resolves a firing alert after resolve_timeout", async () => {
    const c = clock();
    const am = await startAlertmanagerDouble({ now: c.now });
    try {
      const res = await fetch(`${am.url}/api/v2/alerts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify([{ labels: { alertname: "x" } }]),
      });
      expect(res.status).toBe(200);
      expect(am.stored()[0]).toMatchObject({
        timeout: true,
        endsAt: new Date(T0 + 5 * 60_000).toISOString(),
      });
      c.set(T0 + 5 * 60_000);
      expect(am.stored()[0]?.resolved).toBe(true);
    } finally {
      await am.close();
    }
  });
});

describe("failures: Alertmanager's 400, a redirect, auth", () => {
  let am: AlertmanagerDouble;
  let other: HttpReceiverDouble;
  beforeAll(async () => {
    am = await startAlertmanagerDouble();
    other = await startHttpReceiverDouble();
  });
  afterAll(async () => {
    await am.close();
    await other.close();
  });

  it("a 400 from Alertmanager is a failed delivery, recorded with its error text", async () => {
    // Producer clock ahead: the alert starts after its endsAt horizon, which Alertmanager refuses.
    const n = alertNotification("firing", "2100-01-01T00:00:00.000Z");
    (n.alerts as NotificationAlert[])[0] = collectorAlert({ startsAt: "2100-01-01T00:00:00.000Z" });
    const log = new InMemoryDeliveryLog();
    const ch = alertmanagerChannel({ name: "ops-am", url: am.url });
    const outcome = await deliver(n, [ch], log, {
      attempts: 2,
      baseDelayMs: 1,
      maxDelayMs: 1,
      sleep: async () => {},
    });
    expect(outcome.delivered).toBe(false);
    expect(outcome.channels[0]).toMatchObject({ channel: "ops-am", ok: false, attempts: 2 });
    expect(outcome.channels[0]?.error).toBe('ops-am: HTTP 400: "start time must be before end time"');
    const attempts = await log.attempts(n.id);
    expect(attempts.map((a) => a.ok)).toEqual([false, false]);
    expect(am.stored()).toEqual([]);
  });

  it("a redirect is not followed: the send fails and the Location gets nothing", async () => {
    am.redirectNext(1, other.url("/hook"), 307);
    const ch = alertmanagerChannel({ name: "ops-am", url: am.url });
    await expect(ch.send(alertNotification("firing", "2025-01-31T12:00:00.000Z"), never)).rejects.toThrow(
      "ops-am: HTTP 307: the target answered with a redirect, which is not followed",
    );
    expect(other.received).toEqual([]);
  });

  it("bearer and basic auth are sent as the authorization header; without it Alertmanager's 401 fails", async () => {
    for (const [auth, header] of [
      [{ bearer: "s3cret" }, "Bearer s3cret"],
      [{ user: "svcmon", password: "pw" }, `Basic ${Buffer.from("svcmon:pw").toString("base64")}`],
    ] as const) {
      const guarded = await startAlertmanagerDouble({ authorization: header });
      try {
        const n = alertNotification("firing", "2025-01-31T12:00:00.000Z");
        await alertmanagerChannel({ name: "am", url: guarded.url, auth }).send(n, never);
        await expect(alertmanagerChannel({ name: "am", url: guarded.url }).send(n, never)).rejects.toThrow(
          /^am: HTTP 401/,
        );
        expect(guarded.stored()).toHaveLength(1);
      } finally {
        await guarded.close();
      }
    }
  });

  it("a timeout fails the send naming the channel", async () => {
    // A server that accepts the connection and never answers.
    const sockets = new Set<Socket>();
    const silent = createServer((s) => void sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const { port } = silent.address() as AddressInfo;
      const ch = alertmanagerChannel({ name: "am", url: `http://127.0.0.1:${port}`, timeoutMs: 50 });
      await expect(ch.send(sampleNotification(), never)).rejects.toThrow("am: timed out after 50 ms");
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});

describe("the API v2 double validates as Alertmanager does", () => {
  let am: AlertmanagerDouble;
  beforeAll(async () => {
    am = await startAlertmanagerDouble();
  });
  afterAll(async () => am.close());
  const post = async (body: string) => {
    const res = await fetch(`${am.url}/api/v2/alerts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return { status: res.status, text: await res.text() };
  };

  it("invalid label name, empty labels: 400 with Alertmanager's text; the valid alerts of the batch are kept", async () => {
    const r = await post(
      JSON.stringify([
        { labels: { "bad-name": "x" } },
        { labels: { alertname: "" } },
        { labels: { alertname: "ok_one" } },
        { labels: { alertname: "y" }, annotations: { "no good": "z" } },
      ]),
    );
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toBe(
      'invalid label set: invalid name "bad-name"\nat least one label pair required\ninvalid annotations: invalid name "no good"',
    );
    expect(am.stored().map((a) => a.labels)).toEqual([{ alertname: "ok_one" }]);
  });

  it("malformed times, a body that is not postableAlerts: 400; an alert without labels: 422 (schema)", async () => {
    const t = await post(JSON.stringify([{ labels: { a: "b" }, startsAt: "yesterday" }]));
    expect(t.status).toBe(400);
    expect(JSON.parse(t.text).message).toMatch(
      /^parsing alerts body from "" failed, because parsing time "yesterday"/,
    );
    expect((await post("{}")).status).toBe(400);
    expect((await post("not json")).status).toBe(400);
    expect((await post(JSON.stringify([{ labels: { a: 1 } }]))).status).toBe(400);
    const missing = await post(JSON.stringify([{ annotations: {} }]));
    expect(missing.status).toBe(422);
    expect(JSON.parse(missing.text)).toEqual({ code: 602, message: "0.labels in body is required" });
    const order = await post(
      JSON.stringify([
        { labels: { a: "b" }, startsAt: "2025-01-02T00:00:00Z", endsAt: "2025-01-01T00:00:00Z" },
      ]),
    );
    expect(order).toEqual({ status: 400, text: '"start time must be before end time"' });
  });

  it("the fingerprint is Prometheus's label-set fingerprint (FNV-1a 64)", () => {
    // model.LabelSet{}.Fingerprint() is the FNV-1a 64 offset basis.
    expect(labelSetFingerprint({})).toBe("cbf29ce484222325");
    expect(labelSetFingerprint({ b: "2", a: "1" })).toBe(labelSetFingerprint({ a: "1", b: "2" }));
    expect(labelSetFingerprint({ a: "1" })).not.toBe(labelSetFingerprint({ a: "2" }));
  });
});

describe("labels and the endpoint", () => {
  it("label names are made valid Prometheus names; alertname, subject and severity always present; extraLabels do not override", () => {
    const labels = alertmanagerLabels(
      {
        labels: { "1st": "a", "team.name": "b", team_name: "c", empty: "" },
        rule: "r",
        subject: "s",
        severity: "info",
      },
      { team: "platform", severity: "critical" },
    );
    expect(labels).toEqual({
      _1st: "a",
      team_name: "b",
      alertname: "r",
      subject: "s",
      severity: "info",
      team: "platform",
    });
  });

  it("the endpoint is <url>/api/v2/alerts, keeping a route prefix", () => {
    expect(alertsEndpoint("https://am.example:9093")).toBe("https://am.example:9093/api/v2/alerts");
    expect(alertsEndpoint("https://x.example/alertmanager/")).toBe(
      "https://x.example/alertmanager/api/v2/alerts",
    );
  });
});

describe("alertmanager channel config", () => {
  it("is parsed with env references for auth and built by createChannels", async () => {
    const am = await startAlertmanagerDouble({ authorization: "Bearer t0k" });
    try {
      const r = parseChannelsConfig(
        JSON.stringify({
          channels: [
            {
              type: "alertmanager",
              name: "ops-am",
              url: am.url,
              auth: { bearer: { env: "AM_TOKEN" } },
              extraLabels: { team: "platform" },
              firingHorizonMs: 7_200_000,
              timeoutMs: 3000,
            },
          ],
        }),
        { AM_TOKEN: "t0k" },
      );
      expect(r).toEqual({
        ok: true,
        value: {
          channels: [
            {
              type: "alertmanager",
              name: "ops-am",
              url: am.url,
              auth: { bearer: "t0k" },
              extraLabels: { team: "platform" },
              firingHorizonMs: 7_200_000,
              timeoutMs: 3000,
            },
          ],
        },
      });
      if (!r.ok) return;
      const [ch] = createChannels(r.value.channels);
      await ch?.send(sampleAlertsNotification(), never);
      expect(am.stored().map((a) => a.labels.team)).toEqual(["platform", "platform"]);
    } finally {
      await am.close();
    }
  });

  it("invalid config is refused, naming the field", () => {
    const r = validateChannelsConfig({
      channels: [
        { type: "alertmanager", url: "ftp://am.example" },
        { type: "alertmanager", url: "https://am.example:9093/api/v2/alerts" },
        { type: "alertmanager", url: "https://am.example", auth: { bearer: "" } },
        { type: "alertmanager", url: "https://am.example", auth: { user: "a:b", password: "p" } },
        { type: "alertmanager", url: "https://am.example", auth: { user: "a" } },
        { type: "alertmanager", url: "https://am.example", auth: "token" },
        {
          type: "alertmanager",
          url: "https://am.example",
          extraLabels: { "bad-name": "x", __x: "y", ok: 3 },
        },
        { type: "alertmanager", url: "https://am.example", firingHorizonMs: 5 },
        { type: "alertmanager", url: "http://169.254.169.254" },
        { type: "alertmanager" },
        { type: "pagerduty" },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path)).toEqual([
      "channels[0].url",
      "channels[1].url",
      "channels[2].auth.bearer",
      "channels[3].auth.user",
      "channels[4].auth.password",
      "channels[5].auth",
      "channels[6].extraLabels.bad-name",
      "channels[6].extraLabels.__x",
      "channels[6].extraLabels.ok",
      "channels[7].firingHorizonMs",
      "channels[8].url",
      "channels[9].url",
      "channels[10].type",
    ]);
    expect(r.errors.at(-1)?.message).toBe('must be one of "webhook", "slack", "smtp", "alertmanager"');
    expect(r.errors[1]?.message).toMatch(/base URL.*\/api\/v2\/alerts is added/);
  });
});
