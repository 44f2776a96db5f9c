import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type ServerType, serve } from "@hono/node-server";
import { createApiApp } from "@relevance/admin";
import { createSearchApp } from "@relevance/search";
import { EmbeddedRetrieval, SqliteIndexSnapshotStore } from "@relevance/search/embedded";
import { ChangeTailer, type Logger } from "@relevance/settings";
import {
  openDatabase,
  SqliteChangeLog,
  SqliteDocumentStore,
  SqliteKv,
  SqliteSettingsTable,
} from "@relevance/settings/sqlite";
import {
  AlertEngine,
  accountsFromStore,
  alertChannelsFromEnv,
  alertIntervalFromEnv,
  ClickHouseAlertStateStore,
  ClickHouseCollectorRegistry,
  type ClickHouseRunStore,
  DEMO_ACCOUNTS,
  DEMO_REGIONS,
  memoryDeliveryLog,
  openChdbRunStore,
  Scheduler,
  SimulatedCloud,
  simulatedCollectors,
} from "@svcmon/monitor";
import { createMonitorApp } from "@svcmon/monitor/api";
import { Hono } from "hono";
import type { LocalConfig } from "./env.ts";

export interface Stack {
  url: string;
  table: SqliteSettingsTable;
  kv: SqliteKv;
  changeLog: SqliteChangeLog;
  tailer: ChangeTailer | null;
  app: Hono;
  retrieval: EmbeddedRetrieval;
  runStore: ClickHouseRunStore;
  scheduler: Scheduler | null;
  alerts: AlertEngine;
  stop(): Promise<void>;
}

/**
 * The embedded stack in one process: the settings table and its change log (SQLite), the settings
 * exporter tailing that log into the SQLite KV, the admin and customer APIs, and the search proxy
 * (the same Hono app as the Worker, over the embedded engine and the SQLite KV) on one port.
 */
export async function startStack(config: LocalConfig, log: Logger): Promise<Stack> {
  const settingsDb = openDatabase(join(config.dataDir, "settings.db"));
  const kvDb = openDatabase(join(config.dataDir, "kv.db"));
  const table = new SqliteSettingsTable(settingsDb);
  const changeLog = new SqliteChangeLog(settingsDb);
  const kv = new SqliteKv(kvDb);
  const documents = new SqliteDocumentStore(settingsDb);

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
  // The monitor: run records in embedded ClickHouse (chDB owns its folder: one process at a time).
  const runStore = openChdbRunStore(join(config.dataDir, "chdb"));
  await runStore.migrate();
  const registry = ClickHouseCollectorRegistry.fromStore(runStore);
  let scheduler: Scheduler | null = null;
  if (config.demo) {
    const known = new Set((await runStore.accountsLatest()).map((a) => a.account_id));
    for (const account of DEMO_ACCOUNTS) {
      if (!known.has(account.account_id))
        await runStore.upsertAccount({ ...account, updated_at: Date.now() });
    }
    scheduler = new Scheduler({
      collectors: simulatedCollectors(new SimulatedCloud()),
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
  }

  // Alerts (spec §6): evaluated and stored always; notified when ALERT_WEBHOOK_URL is set.
  const channels = alertChannelsFromEnv(process.env);
  const alerts = new AlertEngine({
    store: runStore,
    registry,
    stateStore: ClickHouseAlertStateStore.fromStore(runStore),
    channels,
    deliveryLog: memoryDeliveryLog(),
    now: Date.now,
    intervalMs: alertIntervalFromEnv(process.env),
    log: {
      info: (msg, fields) => log.info(msg, { component: "alerts", ...fields }),
      warn: (msg, fields) => log.warn(msg, { component: "alerts", ...fields }),
      error: (msg, fields) => log.error(msg, { component: "alerts", ...fields }),
    },
  });
  if (channels.length === 0) log.info("alerts: no channel configured (ALERT_WEBHOOK_URL)");
  // With simulated collectors, evaluate after their first round: before it, every collector would
  // look stale and the first notifications of a fresh start would be false alarms.
  let stopping = false;
  if (scheduler === null) alerts.start();
  else
    void scheduler.idle().then(() => {
      if (!stopping) alerts.start();
    });

  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.route(
    "/",
    createMonitorApp({
      store: runStore,
      registry,
      token: config.monitorToken,
      log,
      now: Date.now,
      alerts: () => alerts.firingAlerts(),
    }),
  );
  app.route("/", createSearchApp({ kv, retrieval, log }));
  app.route(
    "/",
    createApiApp({ table, kv, documents, adminToken: config.adminToken, log, now: () => new Date() }),
  );

  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
  });
  const address = server.address() as AddressInfo;
  const url = `http://${config.host}:${address.port}`;

  return {
    url,
    table,
    kv,
    changeLog,
    tailer,
    app,
    retrieval,
    runStore,
    scheduler,
    alerts,
    async stop() {
      stopping = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      unsubscribe();
      await tailer?.stop();
      await retrieval.flush();
      await scheduler?.stop();
      await alerts.stop();
      await runStore.close();
      settingsDb.close();
      kvDb.close();
    },
  };
}
