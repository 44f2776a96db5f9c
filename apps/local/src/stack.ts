import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type ServerType, serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { createMonitorApp } from "@monitor/api";
import {
  CountingSink,
  DEMO_ACCOUNTS,
  DEMO_REGIONS,
  SimulatedCloud,
  simulatedCollectors,
} from "@monitor/aws/simulation";
import {
  ClickHouseAlertStateStore,
  ClickHouseCollectorRegistry,
  ClickHouseDeliveryLog,
  ClickHouseHierarchyStore,
  ClickHouseResourceEventSink,
  ClickHouseResourceSink,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { DEFAULT_AUTO_REGISTER, registerFirstRuns } from "@monitor/core";
import { ClickHouseCostStore } from "@monitor/cost";
import { writeSimulatedCurReports } from "@monitor/cost/simulation";
import { createChannels } from "@monitor/notify";
import { IngestConsumer, queueHealthReader, SqliteQueue } from "@monitor/queues";
import {
  AlertEngine,
  accountsFromStore,
  hierarchyBuilder,
  hierarchyRulesFromEnv,
  Scheduler,
  SqliteEndedSessionStore,
  SqliteSilenceStore,
  SqliteTransitionStore,
} from "@monitor/runtime";
import { createApiApp } from "@relevance/admin";
import {
  createSearchApp,
  SEARCH_LIMITS,
  SEARCH_OPENAPI_PATHS,
  SEARCH_OPENAPI_SCHEMAS,
} from "@relevance/search";
import {
  EmbeddedIndexManager,
  EmbeddedRetrieval,
  SqliteIndexSnapshotStore,
} from "@relevance/search-embedded";
import { ChangeTailer, type Logger } from "@relevance/settings";
import {
  openDatabase,
  SqliteChangeLog,
  SqliteDocumentStore,
  SqliteKv,
  SqliteSettingsTable,
} from "@relevance/settings/sqlite";
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
import { sessionKeysFor } from "./session-key.ts";
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
  stop(): Promise<void>;
}

export interface StackOptions {
  /**
   * The monitor's clock (epoch ms): collector registration, alert evaluation and the status API read
   * it. Default Date.now; tests pass a clock they move, to cross a grace or a reminder without
   * waiting for it.
   */
  monitorNow?: () => number;
}

/**
 * The embedded stack in one process: the settings table and its change log (SQLite), the settings
 * exporter tailing that log into the SQLite KV, the admin and customer APIs, and the search proxy
 * (the same Hono app as the Worker, over the embedded engine and the SQLite KV) on one port.
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
  const settingsDb = openDatabase(join(config.dataDir, "settings.db"));
  const kvDb = openDatabase(join(config.dataDir, "kv.db"));
  const table = new SqliteSettingsTable(settingsDb);
  const changeLog = new SqliteChangeLog(settingsDb);
  const kv = new SqliteKv(kvDb);
  const documents = new SqliteDocumentStore(settingsDb);
  // Index writes go through the IndexManager port, as they go to Meilisearch in production: tasks
  // (GET /api/v1/tasks/{uid}) in the same database, processed in order by an in-process worker.
  const indexManager = new EmbeddedIndexManager({ db: settingsDb, documents, logger: log });

  let tailer: ChangeTailer | null = null;
  let unsubscribe = () => {};
  if (config.exporter) {
    const t = new ChangeTailer(changeLog, {
      kv,
      log,
      onExported: (change, outcome) => {
        if (outcome.status !== "ignored") {
          log.info("settings exported", {
            sequence: Number(change.sequence),
            pk: change.pk,
            sk: change.sk,
            ...outcome,
          });
        }
      },
    });
    // Writes in this process wake the exporter at once; the poll covers writes by other processes.
    const off = table.onChange(() => t.poke());
    unsubscribe = () => off();
    t.start();
    tailer = t;
  }

  const retrieval = new EmbeddedRetrieval({
    documents,
    store: new SqliteIndexSnapshotStore(settingsDb),
    logger: log,
  });
  // Hierarchy rules: the JSON file HIERARCHY_RULES names, else the defaults (docs/monitor-cost.md).
  const hierarchyRules = await hierarchyRulesFromEnv(process.env);
  // The monitor: run records in embedded ClickHouse (chDB owns its folder: one process at a time).
  const runStore = openChdbRunStore(join(config.dataDir, "chdb"));
  await runStore.migrate();
  // Registers the configured collectors the first time it lists them; a restart keeps that time.
  const registry = ClickHouseCollectorRegistry.fromStore(runStore, { now: monitorNow });
  const cost = ClickHouseCostStore.fromStore(runStore, {
    rules: hierarchyRules,
    onError: (err) =>
      log.error("cost re-attribution failed", { component: "cost", error: (err as Error).message }),
  });
  await cost.dropStaleStaging();
  let costReports: Promise<void> = Promise.resolve();
  // The collectors' event queue with its dead-letter queue, durable in DATA_DIR; its health
  // is the status body's `queues` and feeds the dead-letter alert.
  const eventQueue = SqliteQueue.open(join(config.dataDir, "monitor-events.sqlite"), {
    name: "monitor-events",
  });
  const queueHealth = queueHealthReader(eventQueue, { source: "embedded-sqlite" });
  let scheduler: Scheduler | null = null;
  let ingest: IngestConsumer | null = null;
  if (config.demo) {
    const known = new Set((await runStore.accountsLatest()).map((a) => a.account_id));
    for (const account of DEMO_ACCOUNTS) {
      if (!known.has(account.account_id))
        await runStore.upsertAccount({ ...account, updated_at: Date.now() });
    }
    // Resource rows (with their tags) go to svc.resources; other tables of the simulated collectors
    // are only counted.
    const cloud = new SimulatedCloud({
      events: eventQueue,
      sink: ClickHouseResourceSink.fromStore(runStore, { fallback: new CountingSink() }),
    });
    // Drains the event queue into svc.resource_events (an event delivered again is stored once);
    // refused events go to the dead-letter queue.
    const resourceEvents = ClickHouseResourceEventSink.fromStore(runStore);
    ingest = new IngestConsumer({
      queue: eventQueue,
      handle: async (event) => {
        await resourceEvents.append([event]);
      },
      // A run record sent through the queue (`collector_run`) is stored as POST /api/system/runs would.
      handleRun: async (run) => {
        await runStore.insertRuns([run]);
        await registerFirstRuns(registry, [run], config.autoRegister ?? DEFAULT_AUTO_REGISTER);
      },
      ...(config.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: config.maxClockSkewMs }),
      log: (level, msg, fields) => log[level](msg, { component: "ingest", ...fields }),
    });
    ingest.start();
    scheduler = new Scheduler({
      // The real hierarchy_builder over svc.resources; each build re-attributes the open cost periods.
      collectors: simulatedCollectors(cloud, {
        hierarchyBuilder: hierarchyBuilder({
          store: ClickHouseHierarchyStore.fromStore(runStore),
          rules: hierarchyRules,
          onBuilt: () => cost.requestReattribution(),
        }),
      }),
      registry,
      store: runStore,
      accounts: accountsFromStore(runStore),
      regions: DEMO_REGIONS,
      timeoutMs: 30_000,
      log: ({ level, msg, ...fields }) => {
        if (level !== "debug") log[level](msg, { component: "monitor", ...fields });
      },
    });
    scheduler.start();
    // Simulated cost reports (the last 35 days through today) written into DATA_DIR/cur and ingested
    // at once, so the service's own cost is there at the first start; a restart replaces them.
    costReports = (async () => {
      const deliveries = await writeSimulatedCurReports({
        client: runStore.client,
        cloud,
        accounts: DEMO_ACCOUNTS,
        regions: DEMO_REGIONS,
        dir: join(config.dataDir, "cur"),
        now: Date.now(),
      });
      for (const delivery of deliveries) {
        const r = await cost.ingest(delivery);
        log.info("cost report ingested", {
          component: "cost",
          billingPeriod: r.billing_period,
          payer: r.payer_account_id,
          lines: r.lines,
          replacedLines: r.replaced_lines,
        });
      }
    })().catch((err) =>
      log.error("simulated cost reports failed", { component: "cost", error: (err as Error).message }),
    );
  }

  // Alerts: evaluated and stored always; notified through the channels of ALERT_CONFIG and
  // ALERT_WEBHOOK_URL (validated by readConfig). Every delivery attempt is kept in the database, so a
  // restart does not send a notification again to a channel that already accepted it.
  const channels = createChannels(config.alertChannels);
  let ownUrl: string | null = null;
  // Status changes and notifications as rows, claimed before sending; the state under optimistic
  // concurrency (docs/monitor-alerts.md "Transitions"). chDB has no conditional writes: SQLite does.
  const transitions = new SqliteTransitionStore(join(config.dataDir, "alerts.sqlite"));
  // Silences in the same file: a table beside the transitions and the alert state.
  const silences = new SqliteSilenceStore(join(config.dataDir, "alerts.sqlite"));
  // The /system sessions ended by a logout, in the same file: refused after a restart too.
  const endedSessions = new SqliteEndedSessionStore(join(config.dataDir, "alerts.sqlite"));
  const alerts = new AlertEngine({
    store: runStore,
    registry,
    stateStore: ClickHouseAlertStateStore.fromStore(runStore),
    transitions,
    silences,
    channels,
    deliveryLog: ClickHouseDeliveryLog.fromStore(runStore),
    now: monitorNow,
    intervalMs: config.alertIntervalMs,
    queues: queueHealth,
    // Notifications link to /system: MONITOR_PUBLIC_URL, else this stack's own URL once it listens.
    publicUrl: () => config.publicUrl ?? ownUrl,
    log: {
      info: (msg, fields) => log.info(msg, { component: "alerts", ...fields }),
      warn: (msg, fields) => log.warn(msg, { component: "alerts", ...fields }),
      error: (msg, fields) => log.error(msg, { component: "alerts", ...fields }),
    },
  });
  if (channels.length === 0) log.info("alerts: no channel configured (ALERT_CONFIG, ALERT_WEBHOOK_URL)");
  else log.info("alerts: channels", { channels: config.alertChannels.map((c) => `${c.type}:${c.name}`) });
  // With simulated collectors, evaluate after their first round. On a fresh start the collectors are
  // `new` anyway (no alert within their grace), but after a restart on old data their last success
  // may be older than 2 × interval until this round has run: waiting avoids that false alarm.
  let stopping = false;
  if (scheduler === null) alerts.start();
  else
    void scheduler.idle().then(() => {
      if (!stopping) alerts.start();
    });

  // The monitor applies TRUST_PROXY itself (it also needs it for the cookie's Secure flag).
  const clientAddress = forwardedClientAddress(nodeClientAddress, config.trustProxy);
  // One failed-authentication budget per client address for every API on this port (search,
  // customer, admin, monitor and the /system login): separate ones would add up to more guesses.
  const authThrottle = new AuthThrottle();
  const app = new Hono();
  app.onError(onError(log));
  app.notFound(routeFallback(app));
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.route(
    "/",
    createMonitorApp({
      store: runStore,
      registry,
      token: config.monitorToken,
      log,
      now: monitorNow,
      alerts: () => alerts.firingAlerts(),
      silences,
      queues: queueHealth,
      ownCost: (now) => cost.ownCost(now),
      trustProxy: config.trustProxy,
      clientAddress: nodeClientAddress,
      authThrottle,
      endedSessions,
      sessionKeys: sessionKeysFor(config.dataDir, config.sessionKeys),
      ...(config.monitorMaxBodyBytes === undefined ? {} : { maxBodyBytes: config.monitorMaxBodyBytes }),
      ...(config.autoRegister === undefined ? {} : { autoRegister: config.autoRegister }),
      ...(config.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: config.maxClockSkewMs }),
    }),
  );
  app.route(
    "/",
    createSearchApp({
      kv,
      retrieval,
      log,
      modelCacheMb: config.modelCacheMb,
      modelMaxBytes: config.modelMaxBytes,
      clientAddress,
      authThrottle,
    }),
  );
  app.route(
    "/",
    createApiApp({
      table,
      kv,
      documents,
      indexManager,
      // Read-your-writes, as the embedded stack always had: each write's task ends before the answer.
      awaitTasks: { timeoutMs: 30_000 },
      adminToken: config.adminToken,
      log,
      now: () => new Date(),
      limits: config.apiBodyLimits,
      // The OpenAPI document also describes the search route this process serves.
      extraLimitRows: SEARCH_LIMITS,
      extraOpenApi: { paths: SEARCH_OPENAPI_PATHS, schemas: SEARCH_OPENAPI_SCHEMAS },
      clientAddress,
      authThrottle,
    }),
  );

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
    table,
    kv,
    indexManager,
    changeLog,
    tailer,
    app,
    retrieval,
    runStore,
    scheduler,
    alerts,
    eventQueue,
    ingest,
    cost,
    async stop() {
      stopping = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      unsubscribe();
      await tailer?.stop();
      await retrieval.flush();
      await indexManager.idle();
      await scheduler?.stop();
      await costReports;
      await cost.idle();
      await ingest?.stop();
      await alerts.stop();
      transitions.close();
      silences.close();
      endedSessions.close();
      eventQueue.close();
      await runStore.close();
      settingsDb.close();
      kvDb.close();
      // Last: until chDB is closed, svcmon must go through the API.
      removeStackFile(config.dataDir);
    },
  };
}
