/**
 * The system status (`GET /api/system/status`, `GET /api/v1/system/status`) and the Prometheus
 * metrics made from the same evaluation (`GET /metrics`, `GET /api/system/metrics`; metrics.ts).
 * The /system page renders the same body. docs/monitor-api.md.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { overallHealth, RunStoreUnavailable } from "@monitor/core";
import { ownCostForStatus } from "@monitor/cost";
import { queuesForStatus } from "@monitor/queues";
import {
  type AlertEngineStatusJson,
  alertEngineStatus,
  analyticsDb,
  type CollectorDurations,
  evaluateCoverage,
  evaluateHealth,
  evaluateOpenRuns,
  iso,
  judgeCollectorDurations,
  readSnapshot,
  triage,
  warnings,
} from "@monitor/runtime";
import { ApiError } from "@shared/http";
import { errorMessage } from "@shared/kernel";
import type { Context, MiddlewareHandler } from "hono";
import type { BlankEnv } from "hono/types";
import type { MonitorContext } from "../context.ts";
import { atLeastAmberFor } from "../engine-health.ts";
import { statusMaintenance } from "../maintenance-status.ts";
import { registerMetrics, type StatusEvaluation } from "../metrics.ts";
import {
  type StatusBody,
  StatusSchema,
  type StatusUnavailableBody,
  StatusUnavailableSchema,
} from "../schemas/status.ts";
import { COMMON_ERRORS, json, monitorRoutes, SECURED } from "./openapi-parts.ts";

const statusRoute = (path: string) =>
  createRoute({
    method: "get",
    path,
    ...SECURED,
    summary: "Collector health, account coverage, analytics database, queues, alerts, own cost.",
    responses: {
      200: { description: "The status body (docs/monitor-api.md).", content: json(StatusSchema) },
      401: COMMON_ERRORS[401],
      429: COMMON_ERRORS[429],
      503: {
        description:
          "The analytics database is unavailable (analytics_db_unavailable); the queues are still read.",
        content: json(StatusUnavailableSchema),
      },
    },
  });

const metricsRoute = (path: string) =>
  createRoute({
    method: "get",
    path,
    ...SECURED,
    summary:
      "Prometheus metrics (text exposition 0.0.4): collectors, accounts, queues, analytics database, firing alerts (from the status evaluation) and the process's own metrics.",
    responses: {
      200: {
        description:
          "The metrics (docs/monitor-api.md#metrics). Also 200 with svcmon_analytics_db_up 0 when the database is unavailable.",
        content: { "text/plain; version=0.0.4; charset=utf-8": { schema: { type: "string" as const } } },
      },
      401: COMMON_ERRORS[401],
      429: COMMON_ERRORS[429],
    },
  });

/**
 * The status body (`ok`), or the 503 body when the database is unreachable. `evaluated` receives the
 * evaluation's parts (the metrics are computed from them). The /system page renders the same body.
 */
export type ReadStatus = (
  path: string,
  evaluated?: (e: StatusEvaluation) => void,
) => Promise<{ ok: true; body: StatusBody } | { ok: false; body: StatusUnavailableBody }>;

export function statusReader(ctx: MonitorContext): ReadStatus {
  const { deps, store, registry, log, readMs } = ctx;
  return async (path, evaluated) => {
    const now = ctx.now();
    // Read beside the database queries, under its own deadline: a slow queue never makes this a 503.
    const queues = queuesForStatus(deps.queues, readMs);
    const ownCost = ownCostForStatus(deps.ownCost, now, readMs);
    // The engine's rounds: an unreadable record is said in the body, never a failed status.
    const engineStatus = async (): Promise<{
      alert_engine?: AlertEngineStatusJson;
      alert_engine_error?: string;
    }> => {
      if (deps.engineTicks === undefined) return {};
      try {
        return { alert_engine: await alertEngineStatus(deps.engineTicks, now) };
      } catch (err) {
        log.warn("alert engine ticks unreadable", { path, error: errorMessage(err) });
        return { alert_engine_error: errorMessage(err) };
      }
    };
    const read = ctx.read("the status queries", async () => {
      const specs = await registry.list();
      // The status queries, the database's health and the firing alerts at once (independent reads;
      // the health's latency percentiles cover the queries finished before it).
      const [
        { latest, successes, streaks, accounts, scans, recent, open, baselines },
        db,
        alerts,
        engine,
        windows,
      ] = await Promise.all([
        readSnapshot(store, specs, now),
        store.dbHealth(),
        deps.alerts === undefined ? [] : deps.alerts(),
        engineStatus(),
        deps.maintenance?.list(),
      ]);
      const inMaintenance = statusMaintenance(windows, now);
      const health = evaluateHealth(specs, { latest, successes, streaks }, now, inMaintenance.anchor);
      const registeredBy = new Map(specs.map((sp) => [sp.name, sp.registered_by ?? null]));
      const cov = evaluateCoverage(accounts, scans, now);
      const snapshot = {
        latest,
        successes,
        streaks,
        accounts,
        scans,
        ...(recent === undefined ? {} : { recent }),
        ...(open === undefined ? {} : { open }),
        ...(baselines === undefined ? {} : { baselines }),
      };
      const openRuns = evaluateOpenRuns(specs, snapshot, now);
      const durations = new Map(
        judgeCollectorDurations(specs, recent ?? {}, now).map((d) => [d.collector, d]),
      );
      const overall = atLeastAmberFor(overallHealth(health), engine.alert_engine?.state);
      evaluated?.({
        open_runs: openRuns,
        durations: [...durations.values()],
        now,
        specs,
        snapshot,
        db,
        alerts,
        health,
        coverage: cov,
        overall,
        ...(engine.alert_engine === undefined ? {} : { engine: engine.alert_engine }),
      });
      return {
        collectors: health.map((h) => ({
          name: h.name,
          last_run: iso(h.last_run),
          status: h.status,
          minutes_ago: h.minutes_ago,
          health: h.health,
          registered_at: iso(h.registered_at),
          new_until: iso(h.new_until),
          registered_by: registeredBy.get(h.name) ?? null,
          schedule: h.schedule ?? null,
          next_expected_run: iso(h.next_expected_run ?? null),
          duration: durationJson(durations.get(h.name)),
          ...(inMaintenance.covers(h.name) ? { in_maintenance: true as const } : {}),
        })),
        accounts: cov.counts,
        analytics_db: analyticsDb(db),
        generated_at: new Date(now).toISOString(),
        overall_health: overall,
        unscanned_accounts: cov.unscanned.map((u) => ({ ...u, last_scanned_at: iso(u.last_scanned_at) })),
        new_accounts: cov.new_accounts.map((a) => ({
          ...a,
          first_active_at: new Date(a.first_active_at).toISOString(),
          new_until: new Date(a.new_until).toISOString(),
        })),
        warnings: [
          ...warnings(health, cov, specs, latest),
          ...[...durations.values()]
            .filter((d) => d.detail !== null)
            .map((d) => ({ kind: "collector" as const, subject: d.collector, message: d.detail as string })),
        ],
        alerts,
        // Per red or amber collector: where it fails, since when, the last error, its runs (the page's triage).
        triage: triage(health, specs, { latest, successes, streaks }),
        ...engine,
        ...inMaintenance.part,
        open_runs: openRuns.map((r) => ({
          run_id: r.run_id,
          collector: r.collector,
          cloud_account_id: r.cloud_account_id,
          cloud_region: r.cloud_region,
          state: r.state,
          started_at: new Date(r.started_at).toISOString(),
          elapsed_ms: r.elapsed_ms,
          max_duration_ms: r.limit_ms,
          max_duration_source: r.limit_source,
        })),
      };
    });
    let body: Awaited<typeof read>;
    try {
      body = await read;
    } catch (err) {
      const unavailable =
        err instanceof RunStoreUnavailable || (err instanceof ApiError && err.status === 503);
      if (!unavailable) throw err;
      // The parts that do not live in the database (queues) still answer; the database is marked.
      const message = errorMessage(err);
      log.warn("analytics database unavailable", { path, error: message });
      return {
        ok: false as const,
        body: {
          error: { code: "analytics_db_unavailable" as const, message },
          analytics_db: { status: "unreachable" as const, error: message },
          generated_at: new Date(now).toISOString(),
          ...(await queues),
        },
      };
    }
    return { ok: true as const, body: { ...body, ...(await queues), ...(await ownCost) } };
  };
}

export function statusRoutes(auth: MiddlewareHandler, readStatus: ReadStatus): OpenAPIHono<BlankEnv> {
  const app = monitorRoutes();
  const answer = async (c: Context) => {
    const r = await readStatus(c.req.path);
    return r.ok ? c.json(r.body, 200) : c.json(r.body, 503);
  };
  app.openapi(statusRoute("/api/system/status"), (c) => answer(c));
  app.openapi(statusRoute("/api/v1/system/status"), (c) => answer(c));

  app.openAPIRegistry.registerPath(metricsRoute("/metrics"));
  app.openAPIRegistry.registerPath(metricsRoute("/api/system/metrics"));
  registerMetrics(app, {
    auth,
    // The same reader as the status routes, called directly: the metrics take its body and
    // evaluation as values, not through an HTTP answer parsed back.
    evaluate: async (c) => {
      let evaluation: StatusEvaluation | undefined;
      const r = await readStatus(c.req.path, (e) => {
        evaluation = e;
      });
      return { body: r.body, evaluation };
    },
  });
  return app;
}

/** A collector's durations in the status body: its baseline, its latest successful run and the verdict. */
function durationJson(d: CollectorDurations | undefined) {
  return {
    baseline: d?.baseline ?? null,
    last_ms: d?.last_ms ?? null,
    verdict: d?.verdict ?? ("no_baseline" as const),
    detail: d?.detail ?? null,
  };
}
