import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import type { ClickHouseCostStore } from "@monitor/cost";
import type { IngestConsumer, SqliteQueue } from "@monitor/queues";
import type { AlertEngine, Scheduler } from "@monitor/runtime";
import { createApiApp } from "@relevance/admin";
import type { OutcomeStore, Recorder } from "@relevance/outcomes";
import { qualityPageApp, qualityPageOpenApiPaths } from "@relevance/quality-page";
import {
  createSearchApp,
  SEARCH_LIMITS,
  SEARCH_OPENAPI_PATHS,
  SEARCH_OPENAPI_SCHEMAS,
} from "@relevance/search";
import type { EmbeddedIndexManager, EmbeddedRetrieval } from "@relevance/search-embedded";
import type { ChangeTailer, Logger } from "@relevance/settings";
import type { SqliteChangeLog, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import {
  AuthThrottle,
  type ClientAddress,
  forwardedClientAddress,
  onError,
  routeFallback,
} from "@shared/http";
import { Hono } from "hono";
import { answerClientError } from "./client-error.ts";
import { secureDataDir } from "./data-dir.ts";
import type { LocalConfig } from "./env.ts";
import { startMonitorDemo } from "./stack/demo.ts";
import { type DriftLoop, startDriftLoop } from "./stack/drift.ts";
import { createAlerts, monitorApp, openMonitorStores } from "./stack/monitor.ts";
import { stackRecording } from "./stack/recording.ts";
import { startSearchSystem } from "./stack/search-system.ts";
import { localUrl, removeStackFile, writeStackFile } from "./stack-file.ts";

/**
 * The peer of the TCP connection (X-Forwarded-For is read on top of it only with TRUST_PROXY=1).
 * Calls made in-process (`app.request`, the demo seeding) have no connection.
 */
const nodeClientAddress: ClientAddress = (c) =>
  (c.env as { incoming?: unknown } | undefined)?.incoming === undefined
    ? "in-process"
    : (getConnInfo(c).remote.address ?? "unknown");

export interface Stack {
  url: string;
  table: SqliteSettingsTable;
  kv: SqliteKv;
  /** The embedded index manager behind the customer API's index writes (tasks in settings.db). */
  indexManager: EmbeddedIndexManager;
  changeLog: SqliteChangeLog;
  tailer: ChangeTailer | null;
  app: Hono;
  retrieval: EmbeddedRetrieval;
  runStore: ClickHouseRunStore;
  scheduler: Scheduler | null;
  alerts: AlertEngine;
  /** The collectors' event queue (`$DATA_DIR/monitor-events.sqlite`) and its consumer (demo only). */
  eventQueue: SqliteQueue;
  ingest: IngestConsumer | null;
  /** Cost reports, cost per hierarchy node per day, the service's own cost (docs/monitor-cost.md). */
  cost: ClickHouseCostStore;
  /** Served searches and outcome events (the search's recorder and POST /api/v1/events write here). */
  outcomes: OutcomeStore;
  /** The search's recorder: its counters (Recorder.stats) and flush. */
  recorder: Recorder | null;
  /** The drift check's loop (stack/drift.ts). */
  drift: DriftLoop;
  stop(): Promise<void>;
}

export interface StackOptions {
  /**
   * The monitor's clock (epoch ms): collector registration, alert evaluation and the status API read
   * it. Default Date.now; tests pass a clock they move, to cross a grace or a reminder without
   * waiting for it.
   */
  monitorNow?: () => number;
  /**
   * The search's and the drift check's clock (epoch ms): when a search is served and which day the
   * check reads. Default Date.now; tests move it across UTC days.
   */
  relevanceNow?: () => number;
}

/**
 * The embedded stack in one process, on one port: the search system (stack/search-system.ts: the
 * settings table, its exporter into the SQLite KV, the embedded engine) behind the admin, customer
 * and search APIs (the same Hono apps as the Lambdas and the Worker); the monitor
 * (stack/monitor.ts: chDB, the event queue, alerts) behind its API and /system page; with DEMO=1,
 * the monitor's simulated cloud (stack/demo.ts).
 */
export async function startStack(
  config: LocalConfig,
  log: Logger,
  options: StackOptions = {},
): Promise<Stack> {
  const monitorNow = options.monitorNow ?? Date.now;
  const tightened = secureDataDir(config.dataDir);
  if (tightened.count > 0) {
    log.warn("DATA_DIR was readable by other users; tightened it to owner-only (folders 0700, files 0600)", {
      dataDir: config.dataDir,
      paths: tightened.count,
      examples: tightened.examples,
    });
  }
  const search = startSearchSystem(config, log);
  const monitor = await openMonitorStores(config, log, monitorNow);
  const demo = config.demo ? await startMonitorDemo(config, log, monitor) : null;
  let ownUrl: string | null = null;
  const alerts = createAlerts(config, log, monitor, { now: monitorNow, ownUrl: () => ownUrl });
  // With simulated collectors, evaluate after their first round. On a fresh start the collectors are
  // `new` anyway (no alert within their grace), but after a restart on old data their last success
  // may be older than 2 × interval until this round has run: waiting avoids that false alarm.
  let stopping = false;
  if (demo === null) alerts.engine.start();
  else
    void demo.scheduler.idle().then(() => {
      if (!stopping) alerts.engine.start();
    });

  // The monitor applies TRUST_PROXY itself (it also needs it for the cookie's Secure flag).
  const clientAddress = forwardedClientAddress(nodeClientAddress, config.trustProxy);
  // One failed-authentication budget per client address for every API on this port (search,
  // customer, admin, monitor and the /system login): separate ones would add up to more guesses.
  const authThrottle = new AuthThrottle();
  const relevanceNow = options.relevanceNow ?? Date.now;
  const recording = stackRecording(search.outcomes, config, log, relevanceNow);
  const drift = startDriftLoop(config, { ...search, log, now: relevanceNow });
  const app = new Hono();
  app.onError(onError(log));
  app.notFound(routeFallback(app));
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.route(
    "/",
    monitorApp(config, log, monitor, alerts, {
      now: monitorNow,
      clientAddress: nodeClientAddress,
      authThrottle,
    }),
  );
  app.route(
    "/",
    createSearchApp({
      now: relevanceNow,
      kv: search.kv,
      retrieval: search.retrieval,
      log,
      modelCacheMb: config.modelCacheMb,
      modelMaxBytes: config.modelMaxBytes,
      clientAddress,
      authThrottle,
      ...recording.deps,
    }),
  );
  app.route(
    "/",
    createApiApp({
      table: search.table,
      kv: search.kv,
      documents: search.documents,
      indexManager: search.indexManager,
      outcomes: search.outcomes,
      // Read-your-writes, as the embedded stack always had: each write's task ends before the answer.
      awaitTasks: { timeoutMs: 30_000 },
      adminToken: config.adminToken,
      log,
      now: () => new Date(),
      limits: config.apiBodyLimits,
      // The OpenAPI document also describes the search route this process serves.
      extraLimitRows: SEARCH_LIMITS,
      extraOpenApi: {
        paths: { ...SEARCH_OPENAPI_PATHS, ...qualityPageOpenApiPaths() },
        schemas: SEARCH_OPENAPI_SCHEMAS,
      },
      clientAddress,
      authThrottle,
    }),
  );

  // The search team's quality page: it calls the admin API above with the token the user pastes.
  app.route("/", qualityPageApp());

  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
  });
  server.on("clientError", answerClientError);
  const address = server.address() as AddressInfo;
  const url = `http://${config.host}:${address.port}`;
  ownUrl = localUrl(config.host, address.port);
  // svcmon run --data-dir finds this process (and its API) through it.
  writeStackFile(config.dataDir, {
    url: localUrl(config.host, address.port),
    pid: process.pid,
    token: config.monitorToken,
    started_at: new Date().toISOString(),
  });

  return {
    url,
    table: search.table,
    kv: search.kv,
    indexManager: search.indexManager,
    changeLog: search.changeLog,
    tailer: search.tailer,
    app,
    retrieval: search.retrieval,
    runStore: monitor.runStore,
    scheduler: demo?.scheduler ?? null,
    alerts: alerts.engine,
    eventQueue: monitor.eventQueue,
    ingest: demo?.ingest ?? null,
    cost: monitor.cost,
    outcomes: search.outcomes,
    recorder: recording.recorder,
    drift,
    async stop() {
      stopping = true;
      await drift.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // The searches answered before the close are recorded before the store closes.
      await recording.drain();
      await search.drain();
      await demo?.stop();
      await monitor.cost.idle();
      await alerts.stop();
      await monitor.close();
      search.close();
      // Last: until chDB is closed, svcmon must go through the API.
      removeStackFile(config.dataDir);
    },
  };
}
