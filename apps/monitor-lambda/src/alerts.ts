/**
 * `svcmon-alerts`: the alert engine on Lambda. An EventBridge rule invokes the function every minute
 * and each invocation is one `AlertEngine.tick()`: read what the status endpoint reads (runs, disk,
 * the event queue's dead-letter queue, svcmon-cur-ingest-dlq), step the alert state machine, save the state
 * (svc.alert_state), deliver what is owed through the channels and record every attempt
 * (svc.notification_attempts). With MONITOR_TRANSITIONS_TABLE (set by the stack) each status change
 * and each notification is a row of that DynamoDB table, claimed with a ConditionExpression before it
 * is sent, and the state is saved there against the version it was read at (docs/monitor-alerts.md
 * "Transitions"): two overlapping invocations never send the same notification twice, and one that
 * dies between claim and send is replaced after the claim's lease. svc.alert_state stays the state's
 * copy for the status function. A failed delivery is retried at a later tick, when its backoff is due.
 * Each tick is recorded in svc.engine_ticks (the status function's `alert_engine`) and, with
 * MONITOR_HEARTBEAT_URL, pinged to a dead-man's switch (`/start`, success, `/fail` with the reason;
 * docs/monitor-alerts.md "The monitor watched").
 */

import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDbMaintenanceStore, DynamoDbSilenceStore, DynamoDbTransitionStore } from "@monitor/aws";
import {
  ClickHouseAlertStateStore,
  ClickHouseCollectorRegistry,
  ClickHouseDeliveryLog,
  ClickHouseEngineTickStore,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import type { MaintenanceStore, SilenceStore, TransitionStore } from "@monitor/core";
import { AlertEngine, type Heartbeat, httpHeartbeat } from "@monitor/runtime";
import type { Logger } from "@shared/kernel";
import { jsonLogger } from "@shared/kernel/json-logger";
import { type Channel, createChannels } from "@shared/notify";
import { alertsFromEnv, clickHouseFromEnv, orThrow } from "./config.ts";
import { type QueueHealthRead, queueHealthFromEnv } from "./queues.ts";
import { once, openStore } from "./store.ts";

export interface AlertsDeps {
  store: ClickHouseRunStore;
  /** None: alerts are evaluated, stored and shown on /system, and stay un-notified. */
  channels: readonly Channel[];
  log: Logger;
  now: () => number;
  /** The event queue's health, for the dead-letter rule. */
  queues?: QueueHealthRead;
  /** Base of the notifications' /system links (`alertsFromEnv`); null: no link. */
  publicUrl?: string | null;
  /** Status changes and claims (DynamoDB in production); absent: the state is one ClickHouse document. */
  transitions?: TransitionStore;
  /** Silences (kept in the transitions table, as svcmon-status writes them); absent: none. */
  silences?: SilenceStore;
  /** The dead-man's switch (MONITOR_HEARTBEAT_URL); absent: no ping. */
  heartbeat?: Heartbeat;
  /** Maintenance windows (an item of the transitions table, beside the silences); absent: none. */
  maintenance?: MaintenanceStore;
}

export interface AlertsTickSummary {
  /** Alerts that changed state (started, resolved, muted...). */
  flips: number;
  /** Notifications delivered / not delivered (retried at a later tick). */
  delivered: number;
  failed: number;
  /** Notifications another invocation had claimed (not sent by this one). */
  claimedElsewhere: number;
  /** With no channel configured: alerts owing a notification, held (not attempted) until there is one. */
  held: number;
}

/** The engine on one store: registry, state and delivery log share the store's client. */
export function createAlertEngine(deps: AlertsDeps): AlertEngine {
  return new AlertEngine({
    store: deps.store,
    registry: ClickHouseCollectorRegistry.fromStore(deps.store),
    stateStore: ClickHouseAlertStateStore.fromStore(deps.store),
    channels: deps.channels,
    deliveryLog: ClickHouseDeliveryLog.fromStore(deps.store),
    now: deps.now,
    log: deps.log,
    ...(deps.queues === undefined ? {} : { queues: deps.queues }),
    publicUrl: deps.publicUrl ?? null,
    ...(deps.transitions === undefined ? {} : { transitions: deps.transitions }),
    ...(deps.silences === undefined ? {} : { silences: deps.silences }),
    // Every tick recorded where svcmon-status reads it; the interval is the schedule's (one minute).
    ticks: ClickHouseEngineTickStore.fromStore(deps.store),
    ...(deps.heartbeat === undefined ? {} : { heartbeat: deps.heartbeat }),
    ...(deps.maintenance === undefined ? {} : { maintenance: deps.maintenance }),
  });
}

/** One tick per call. It rejects (the invocation counts as an error) when the tick cannot run. */
export function createAlertsHandler(deps: AlertsDeps): () => Promise<AlertsTickSummary> {
  const engine = createAlertEngine(deps);
  return async () => {
    const result = await engine.tick();
    const summary = {
      flips: result.flips.length,
      delivered: result.delivered.length,
      failed: result.failed.length,
      claimedElsewhere: result.claimedElsewhere?.length ?? 0,
      held: result.held.length,
    };
    deps.log.info("alert tick done", { ...summary });
    return summary;
  };
}

const deployed = once(async () => {
  const env = process.env;
  const { channels, publicUrl, transitionsTable, heartbeatUrl } = orThrow(
    "svcmon-alerts",
    alertsFromEnv(env),
  );
  const queues = queueHealthFromEnv("svcmon-alerts", env);
  const store = openStore(orThrow("svcmon-alerts", clickHouseFromEnv(env)));
  await store.migrate();
  const log = jsonLogger("svcmon-alerts");
  if (channels.length === 0) log.info("alerts: no channel configured (ALERT_CONFIG_JSON, ALERT_WEBHOOK_URL)");
  return createAlertsHandler({
    store,
    channels: createChannels(channels),
    log,
    now: Date.now,
    publicUrl,
    ...(queues === undefined ? {} : { queues }),
    ...(heartbeatUrl === null ? {} : { heartbeat: httpHeartbeat({ url: heartbeatUrl, log }) }),
    ...(transitionsTable === null
      ? {}
      : {
          transitions: new DynamoDbTransitionStore({
            client: new DynamoDBClient({}),
            tableName: transitionsTable,
          }),
          silences: new DynamoDbSilenceStore({ client: new DynamoDBClient({}), tableName: transitionsTable }),
          maintenance: new DynamoDbMaintenanceStore({
            client: new DynamoDBClient({}),
            tableName: transitionsTable,
          }),
        }),
  });
});

/** The Lambda entry point (an EventBridge scheduled event; its content is not needed). */
export const handler = async (): Promise<AlertsTickSummary> => (await deployed())();
