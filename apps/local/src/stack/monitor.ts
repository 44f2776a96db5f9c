// The monitor of the embedded stack: run records, collectors, cost and alert state in embedded
// ClickHouse (chDB), the collectors' event queue, the alert engine with its SQLite stores, and the
// monitor's API and /system page. docs/monitor-runtime.md, docs/monitor-alerts.md.
import { join } from "node:path";
import { createMonitorApp } from "@monitor/api";
import {
  ClickHouseAlertStateStore,
  ClickHouseCollectorRegistry,
  ClickHouseDeliveryLog,
  ClickHouseEngineTickStore,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { ClickHouseCostStore } from "@monitor/cost";
import { queueHealthReader, SqliteQueue } from "@monitor/queues";
import {
  AlertEngine,
  hierarchyRulesFromEnv,
  httpHeartbeat,
  SqliteEndedSessionStore,
  SqliteMaintenanceStore,
  SqliteSilenceStore,
  SqliteTransitionStore,
} from "@monitor/runtime";
import type { Logger } from "@relevance/settings";
import type { AuthThrottle, ClientAddress } from "@shared/http";
import { createChannels } from "@shared/notify";
import type { LocalConfig } from "../env.ts";
import { sessionKeysFor } from "../session-key.ts";

/** What the monitor keeps: the stores the alerts, the API and the demo share. */
export interface MonitorStores {
  runStore: ClickHouseRunStore;
  registry: ClickHouseCollectorRegistry;
  /** Cost reports, cost per hierarchy node per day, the service's own cost (docs/monitor-cost.md). */
  cost: ClickHouseCostStore;
  /** The collectors' event queue (`$DATA_DIR/monitor-events.sqlite`). */
  eventQueue: SqliteQueue;
  queueHealth: ReturnType<typeof queueHealthReader>;
  hierarchyRules: Awaited<ReturnType<typeof hierarchyRulesFromEnv>>;
  /** Closes the queue and the database (after everything that writes them has stopped). */
  close(): Promise<void>;
}

export async function openMonitorStores(
  config: LocalConfig,
  log: Logger,
  now: () => number,
): Promise<MonitorStores> {
  // Hierarchy rules: the JSON file HIERARCHY_RULES names, else the defaults (docs/monitor-cost.md).
  const hierarchyRules = await hierarchyRulesFromEnv(process.env);
  // The monitor: run records in embedded ClickHouse (chDB owns its folder: one process at a time).
  const runStore = openChdbRunStore(
    join(config.dataDir, "chdb"),
    config.diskQuotaBytes === undefined ? {} : { diskQuotaBytes: config.diskQuotaBytes },
  );
  await runStore.migrate();
  // Registers the configured collectors the first time it lists them; a restart keeps that time.
  const registry = ClickHouseCollectorRegistry.fromStore(runStore, { now });
  const cost = ClickHouseCostStore.fromStore(runStore, {
    rules: hierarchyRules,
    onError: (err) =>
      log.error("cost re-attribution failed", { component: "cost", error: (err as Error).message }),
  });
  await cost.dropStaleStaging();
  // The collectors' event queue with its dead-letter queue, durable in DATA_DIR; its health is the
  // status body's `queues` and feeds the dead-letter alert (docs/monitor-runtime.md).
  const eventQueue = SqliteQueue.open(join(config.dataDir, "monitor-events.sqlite"), {
    name: "monitor-events",
  });
  const queueHealth = queueHealthReader(eventQueue, { source: "embedded-sqlite" });
  return {
    runStore,
    registry,
    cost,
    eventQueue,
    queueHealth,
    hierarchyRules,
    async close() {
      eventQueue.close();
      await runStore.close();
    },
  };
}

export interface MonitorAlerts {
  engine: AlertEngine;
  silences: SqliteSilenceStore;
  maintenance: SqliteMaintenanceStore;
  endedSessions: SqliteEndedSessionStore;
  /** The engine's flips and notifications and its delivery attempts: what a timeline reads. */
  transitions: SqliteTransitionStore;
  deliveryLog: ClickHouseDeliveryLog;
  /** Stops the evaluation and closes its SQLite stores. */
  stop(): Promise<void>;
}

/**
 * Alerts: evaluated and stored always; notified through the channels of ALERT_CONFIG and
 * ALERT_WEBHOOK_URL (validated by readConfig). Every delivery attempt is kept in the database, so a
 * restart does not send a notification again to a channel that already accepted it. Not started
 * here: the stack starts the evaluation once the collectors' first round has run.
 */
export function createAlerts(
  config: LocalConfig,
  log: Logger,
  stores: MonitorStores,
  options: { now: () => number; ownUrl: () => string | null },
): MonitorAlerts {
  const { runStore, registry, queueHealth } = stores;
  const channels = createChannels(config.alertChannels);
  // Status changes and notifications as rows, claimed before sending; the state under optimistic
  // concurrency (docs/monitor-alerts.md "Transitions"). chDB has no conditional writes: SQLite does.
  const transitions = new SqliteTransitionStore(join(config.dataDir, "alerts.sqlite"));
  // Silences in the same file: a table beside the transitions and the alert state.
  const silences = new SqliteSilenceStore(join(config.dataDir, "alerts.sqlite"));
  // Maintenance windows in the same file, beside the silences.
  const maintenance = new SqliteMaintenanceStore(join(config.dataDir, "alerts.sqlite"));
  // The /system sessions ended by a logout, in the same file: refused after a restart too.
  const endedSessions = new SqliteEndedSessionStore(join(config.dataDir, "alerts.sqlite"));
  const deliveryLog = ClickHouseDeliveryLog.fromStore(runStore);
  const engineLog = {
    info: (msg: string, fields?: Record<string, unknown>) =>
      log.info(msg, { component: "alerts", ...fields }),
    warn: (msg: string, fields?: Record<string, unknown>) =>
      log.warn(msg, { component: "alerts", ...fields }),
    error: (msg: string, fields?: Record<string, unknown>) =>
      log.error(msg, { component: "alerts", ...fields }),
  };
  const heartbeatUrl = config.heartbeatUrl ?? null;
  const engine = new AlertEngine({
    store: runStore,
    registry,
    stateStore: ClickHouseAlertStateStore.fromStore(runStore),
    transitions,
    silences,
    maintenance,
    channels,
    deliveryLog,
    now: options.now,
    intervalMs: config.alertIntervalMs,
    queues: queueHealth,
    // Notifications link to /system: MONITOR_PUBLIC_URL, else this stack's own URL once it listens.
    publicUrl: () => config.publicUrl ?? options.ownUrl(),
    log: engineLog,
    // Every tick recorded (the status body's alert_engine) and, with MONITOR_HEARTBEAT_URL, pinged.
    ticks: ClickHouseEngineTickStore.fromStore(runStore),
    ...(heartbeatUrl === null ? {} : { heartbeat: httpHeartbeat({ url: heartbeatUrl, log: engineLog }) }),
  });
  if (channels.length === 0) log.info("alerts: no channel configured (ALERT_CONFIG, ALERT_WEBHOOK_URL)");
  else log.info("alerts: channels", { channels: config.alertChannels.map((c) => `${c.type}:${c.name}`) });
  return {
    engine,
    silences,
    maintenance,
    endedSessions,
    transitions,
    deliveryLog,
    async stop() {
      await engine.stop();
      transitions.close();
      silences.close();
      maintenance.close();
      endedSessions.close();
    },
  };
}

/** The monitor's API and /system page, on the stack's shared failed-authentication budget. */
export function monitorApp(
  config: LocalConfig,
  log: Logger,
  stores: MonitorStores,
  alerts: MonitorAlerts,
  options: { now: () => number; clientAddress: ClientAddress; authThrottle: AuthThrottle },
): ReturnType<typeof createMonitorApp> {
  return createMonitorApp({
    store: stores.runStore,
    registry: stores.registry,
    token: config.monitorToken,
    log,
    now: options.now,
    alerts: () => alerts.engine.firingAlerts(),
    engineTicks: ClickHouseEngineTickStore.fromStore(stores.runStore),
    silences: alerts.silences,
    maintenance: alerts.maintenance,
    queues: stores.queueHealth,
    ownCost: (now) => stores.cost.ownCost(now),
    trustProxy: config.trustProxy,
    clientAddress: options.clientAddress,
    authThrottle: options.authThrottle,
    endedSessions: alerts.endedSessions,
    history: { transitions: alerts.transitions, deliveryLog: alerts.deliveryLog },
    sessionKeys: sessionKeysFor(config.dataDir, config.sessionKeys),
    ...(config.monitorMaxBodyBytes === undefined ? {} : { maxBodyBytes: config.monitorMaxBodyBytes }),
    ...(config.autoRegister === undefined ? {} : { autoRegister: config.autoRegister }),
    ...(config.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: config.maxClockSkewMs }),
  });
}
