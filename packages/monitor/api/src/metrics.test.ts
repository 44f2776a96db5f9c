/**
 * `GET /metrics` and `GET /api/system/metrics`: valid Prometheus text exposition (parsed with the npm
 * package parse-prometheus-text-format, plus the format's line rules), behind the monitor token, and
 * computed from the same evaluation as the status body (they agree sample for sample). Real chDB.
 */
import { spawnSync } from "node:child_process";
import type { InMemoryRunStore } from "@monitor/core";
import { InMemoryCollectorRegistry } from "@monitor/core";
import type { FiringAlertJson } from "@monitor/runtime";
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  call,
  hangingStore,
  MIN,
  makeApp,
  openMemoryStore,
  putAccounts,
  runAt,
  TOKEN,
  uuid,
} from "./test-support.ts";

let store: InMemoryRunStore;
let cleanup: () => Promise<void>;

/** Recent: the runs table keeps runs for a retention period counted from the real clock. */
const NOW = Math.floor(Date.now() / MIN) * MIN;
const registry = new InMemoryCollectorRegistry();
/** The fields of a firing alert the metrics do not read (fingerprint, summary, muting). */
const UNMUTED = {
  fingerprint: "0000000000000000",
  summary: "",
  last_error: null,
  muted: false,
  muted_by: null,
  reason: null,
} as const;
const ALERTS: FiringAlertJson[] = [
  {
    rule: "collector_red",
    subject: "config_ec2",
    severity: "critical",
    since: "2026-03-10T11:00:00.000Z",
    notified: true,
    ...UNMUTED,
  },
  {
    rule: "collector_red",
    subject: "config_ebs",
    severity: "critical",
    since: "2026-03-10T11:00:00.000Z",
    notified: false,
    ...UNMUTED,
  },
  {
    rule: "dead_letters",
    subject: "monitor-events",
    severity: "warning",
    since: "2026-03-10T11:30:00.000Z",
    notified: true,
    ...UNMUTED,
  },
  {
    rule: "collector_red",
    subject: "config_rds",
    severity: "critical",
    since: "2026-03-10T11:40:00.000Z",
    notified: false,
    ...UNMUTED,
    muted: true,
    muted_by: { kind: "silence", id: "s-1", author: "sre", reason: "maintenance", endsAt: NOW + 60 * MIN },
    reason: "silenced by sre until 13:00: maintenance",
  },
];
const QUEUES = [
  {
    name: "monitor-events",
    source: "embedded-sqlite",
    read_at: NOW,
    depth: 7,
    in_flight: 2,
    dead_letter_queue: "monitor-events-dlq",
    dead_letter_depth: 3,
    error: null,
  },
  {
    name: "denied",
    source: "sqs",
    read_at: NOW,
    depth: null,
    in_flight: null,
    dead_letter_queue: null,
    dead_letter_depth: null,
    error: "AccessDenied",
  },
];

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-metrics-");
  store = t.store;
  cleanup = t.cleanup;
  for (const name of ["config_ec2", "config_ebs"]) {
    await registry.put({ name, expected_interval_minutes: 60, freshness_threshold_minutes: 120 });
  }
  const runs = await call(makeApp({ store, registry, now: () => NOW }), "POST", "/api/system/runs", {
    body: [
      runAt(NOW - 200 * MIN, { collector: "config_ec2", run_id: uuid(40) }),
      ...[30, 20, 10].map((m) =>
        runAt(NOW - m * MIN, { collector: "config_ec2", status: "failed", error: "boom", run_id: uuid(40) }),
      ),
      runAt(NOW - 5 * MIN, { collector: "config_ebs", run_id: uuid(40) }),
    ],
  });
  expect(runs.status).toBe(201);
  const app = makeApp({ store, registry, now: () => NOW - 60 * MIN });
  await putAccounts(app, [
    ["111111111111", "acc 111111111111", "active"],
    ["222222222222", "acc 222222222222", "active"],
    ["333333333333", "acc 333333333333", "no_access"],
  ]);
}, 60_000);

afterAll(async () => {
  await cleanup();
});

const app = () =>
  makeApp({
    store,
    registry,
    now: () => NOW,
    alerts: async () => ALERTS,
    queues: async () => QUEUES,
  });

async function scrape(path = "/metrics", a = app()): Promise<{ res: Response; text: string }> {
  const res = await a.request(path, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { res, text: await res.text() };
}

const SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*")*,?\})? (-?[0-9.]+(e[+-]?[0-9]+)?|NaN|[+-]Inf)( -?\d+)?$/;

/**
 * The text format's rules beyond what the parser checks: every line is a HELP, a TYPE or a sample;
 * each family has one HELP and one TYPE, before its samples, and its samples are together; no series
 * is repeated.
 */
function assertExpositionFormat(text: string): void {
  expect(text.endsWith("\n")).toBe(true);
  const help = new Set<string>();
  const type = new Set<string>();
  const series = new Set<string>();
  const closed = new Set<string>();
  let current = "";
  for (const line of text.split("\n").slice(0, -1)) {
    if (line === "") continue; // empty lines are allowed (and ignored)
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (meta !== null) {
      const [, kind, name] = meta as unknown as [string, string, string];
      const seen = kind === "HELP" ? help : type;
      expect(seen.has(name), `${kind} ${name} repeated`).toBe(false);
      seen.add(name);
      if (kind === "TYPE") expect(meta[3]).toMatch(/^(counter|gauge|histogram|summary|untyped)$/);
      if (name !== current) {
        if (current !== "") closed.add(current);
        expect(closed.has(name), `${name} split`).toBe(false);
        current = name;
      }
      continue;
    }
    expect(line, "a sample line").toMatch(SAMPLE);
    const key = line.slice(0, line.lastIndexOf(" "));
    expect(series.has(key), `${key} repeated`).toBe(false);
    series.add(key);
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] as string;
    const family = [current, `${current}_bucket`, `${current}_sum`, `${current}_count`, `${current}_created`];
    expect(family, `${name} outside its family`).toContain(name);
  }
}

function family(parsed: ParsedFamily[], name: string): ParsedFamily {
  const f = parsed.find((x) => x.name === name);
  if (f === undefined) throw new Error(`no metric ${name}`);
  return f;
}

/** The value of the sample of `name` whose labels include `labels`. */
function value(
  parsed: ParsedFamily[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const m = family(parsed, name).metrics.find((s) =>
    Object.entries(labels).every(([k, v]) => s.labels?.[k] === v),
  );
  return m?.value === undefined ? undefined : Number(m.value);
}

describe("GET /metrics", () => {
  it("is valid Prometheus text exposition (version 0.0.4), checked with parse-prometheus-text-format", async () => {
    const { res, text } = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    assertExpositionFormat(text);
    const parsed = parsePrometheusTextFormat(text);
    for (const f of parsed) {
      expect(f.help, f.name).not.toBe("");
      for (const m of f.metrics) {
        if (m.value !== undefined)
          expect(Number.isNaN(Number(m.value)) && m.value !== "NaN", f.name).toBe(false);
      }
    }
  });

  it("per collector: last success age, last status, consecutive failures, health", async () => {
    const parsed = parsePrometheusTextFormat((await scrape()).text);
    expect(value(parsed, "svcmon_collector_last_success_age_seconds", { collector: "config_ec2" })).toBe(
      200 * 60,
    );
    expect(value(parsed, "svcmon_collector_last_success_age_seconds", { collector: "config_ebs" })).toBe(
      5 * 60,
    );
    expect(value(parsed, "svcmon_collector_last_run_age_seconds", { collector: "config_ec2" })).toBe(10 * 60);
    expect(value(parsed, "svcmon_collector_last_status", { collector: "config_ec2", status: "failed" })).toBe(
      1,
    );
    expect(
      value(parsed, "svcmon_collector_last_status", { collector: "config_ec2", status: "succeeded" }),
    ).toBe(0);
    expect(
      value(parsed, "svcmon_collector_last_status", { collector: "config_ebs", status: "succeeded" }),
    ).toBe(1);
    expect(value(parsed, "svcmon_collector_consecutive_failures", { collector: "config_ec2" })).toBe(3);
    expect(value(parsed, "svcmon_collector_consecutive_failures", { collector: "config_ebs" })).toBe(0);
    expect(family(parsed, "svcmon_collector_health").type).toBe("GAUGE");
  });

  it("agrees with the status body it is computed from: health, accounts, queues, disk, latency, alerts", async () => {
    const a = app();
    const status = await call(a, "GET", "/api/system/status");
    expect(status.status).toBe(200);
    const parsed = parsePrometheusTextFormat((await scrape("/metrics", a)).text);
    for (const c of status.body.collectors as { name: string; health: string }[]) {
      expect(value(parsed, "svcmon_collector_health", { collector: c.name, health: c.health })).toBe(1);
    }
    expect(value(parsed, "svcmon_overall_health", { health: status.body.overall_health })).toBe(1);
    for (const [s, n] of Object.entries(status.body.accounts as Record<string, number>)) {
      expect(value(parsed, "svcmon_accounts", { status: s })).toBe(n);
    }
    expect(value(parsed, "svcmon_accounts", { status: "active" })).toBe(2);
    expect(value(parsed, "svcmon_accounts", { status: "no_access" })).toBe(1);

    expect(value(parsed, "svcmon_queue_depth", { queue: "monitor-events" })).toBe(7);
    expect(value(parsed, "svcmon_queue_in_flight", { queue: "monitor-events" })).toBe(2);
    expect(
      value(parsed, "svcmon_queue_dead_letter_depth", {
        queue: "monitor-events",
        dead_letter_queue: "monitor-events-dlq",
      }),
    ).toBe(3);
    expect(value(parsed, "svcmon_queue_readable", { queue: "denied" })).toBe(0);
    expect(value(parsed, "svcmon_queue_depth", { queue: "denied" })).toBeUndefined();

    expect(value(parsed, "svcmon_analytics_db_up")).toBe(1);
    const usedGb = status.body.analytics_db.disk_used_gb as number;
    expect((value(parsed, "svcmon_analytics_db_disk_used_bytes") as number) / 1e9).toBeCloseTo(usedGb, 1);
    expect(
      value(parsed, "svcmon_analytics_db_query_latency_seconds", { percentile: "p95" }),
    ).toBeGreaterThanOrEqual(0);
    expect(value(parsed, "svcmon_analytics_db_query_samples")).toBeGreaterThan(0);

    // What pages (`active`) apart from what a silence or mute holds back (`suppressed`).
    const alerts = (labels: Record<string, string>) => value(parsed, "svcmon_alerts_firing", labels);
    expect(alerts({ rule: "collector_red", severity: "critical", state: "active" })).toBe(2);
    expect(alerts({ rule: "collector_red", severity: "critical", state: "suppressed" })).toBe(1);
    expect(alerts({ rule: "dead_letters", severity: "warning", state: "active" })).toBe(1);
    expect(alerts({ rule: "dead_letters", severity: "warning", state: "suppressed" })).toBeUndefined();
    expect(value(parsed, "svcmon_status_evaluated_timestamp_seconds")).toBe(NOW / 1000);
  });

  it("includes the process's own metrics (prom-client's defaults, this app's registry)", async () => {
    const parsed = parsePrometheusTextFormat((await scrape()).text);
    const names = parsed.map((f) => f.name);
    expect(names).toContain("process_cpu_seconds_total");
    expect(names).toContain("process_resident_memory_bytes");
    expect(names).toContain("nodejs_eventloop_lag_seconds");
    expect(names).toContain("nodejs_heap_size_used_bytes");
    expect(names).toContain("nodejs_active_handles");
    expect(names).not.toContain("nodejs_active_handles_total"); // a gauge named like a counter
  });

  it("/api/system/metrics answers the same families", async () => {
    const a = app();
    const one = parsePrometheusTextFormat((await scrape("/metrics", a)).text).map((f) => f.name);
    const two = await scrape("/api/system/metrics", a);
    expect(two.res.status).toBe(200);
    assertExpositionFormat(two.text);
    expect(parsePrometheusTextFormat(two.text).map((f) => f.name)).toEqual(one);
  });

  it("needs the monitor token (401 without, with a wrong one)", async () => {
    for (const path of ["/metrics", "/api/system/metrics"]) {
      expect((await call(app(), "GET", path, { token: null })).status).toBe(401);
      expect((await call(app(), "GET", path, { token: "wrong-token-0123456789" })).status).toBe(401);
    }
  });

  it("with the database unreachable: 200, analytics_db_up 0, the queues still reported", async () => {
    const faulty = hangingStore(store);
    const a = makeApp({
      store: faulty,
      registry,
      now: () => NOW,
      queues: async () => QUEUES,
      statusTimeoutMs: 50,
    });
    const { res, text } = await scrape("/metrics", a);
    expect(res.status).toBe(200);
    assertExpositionFormat(text);
    const parsed = parsePrometheusTextFormat(text);
    expect(value(parsed, "svcmon_analytics_db_up")).toBe(0);
    expect(value(parsed, "svcmon_queue_depth", { queue: "monitor-events" })).toBe(7);
    expect(parsed.map((f) => f.name)).not.toContain("svcmon_collector_health");
  });
});

/**
 * Prometheus' own linter, where it is available (Debian's `prometheus` package; `.ci/run` fetches it
 * where apt-get can and then sets PROMTOOL_REQUIRED=1, so the check cannot be left out silently
 * there). PROMTOOL names the binary when it is not on PATH. The case is registered only where
 * promtool is (or must be) present: `npm test` on a machine without it runs the npm parser's check
 * above and skips nothing.
 */
const promtool = (() => {
  const bin = process.env.PROMTOOL ?? "promtool";
  const probe = spawnSync(bin, ["--version"], { encoding: "utf8" });
  return probe.status === 0 ? bin : undefined;
})();

if (promtool !== undefined || process.env.PROMTOOL_REQUIRED === "1") {
  describe("promtool check metrics", () => {
    it("finds no problem in a scrape (also with the database unreachable)", async () => {
      expect(promtool, "promtool is required (PROMTOOL_REQUIRED=1) but not found").toBeDefined();
      const down = makeApp({ store: hangingStore(store), registry, now: () => NOW, statusTimeoutMs: 50 });
      for (const a of [app(), down]) {
        const { text } = await scrape("/metrics", a);
        const r = spawnSync(promtool as string, ["check", "metrics"], { input: text, encoding: "utf8" });
        expect(`${r.stdout}${r.stderr}`).toBe("");
        expect(r.status).toBe(0);
      }
    });
  });
}
