/**
 * `svcmon-alerts`: the alert engine on Lambda. An EventBridge rule invokes the function every minute
 * and each invocation is one `AlertEngine.tick()`: read what the status endpoint reads (runs, disk,
 * the event queue's dead-letter queue, svcmon-cur-ingest-dlq), step the alert state machine, save the state
 * (svc.alert_state), deliver what is owed through the channels and record every attempt
 * (svc.notification_attempts). All state is in ClickHouse, so an execution environment Lambda
 * recycles loses nothing and does not notify again; reserved concurrency 1 keeps ticks from
 * overlapping. A failed delivery is retried at a later tick, when its backoff is due.
 */

import type { Logger } from "@relevance/settings";
import { jsonLogger } from "@relevance/settings/json-logger";
import {
  ClickHouseAlertStateStore,
  ClickHouseCollectorRegistry,
  ClickHouseDeliveryLog,
  type ClickHouseRunStore,
} from "@svcmon/monitor-clickhouse";
import { AlertEngine } from "@svcmon/monitor-runtime";
import { type Channel, createChannels } from "@svcmon/notify";
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
}

export interface AlertsTickSummary {
  /** Alerts that changed state (started, resolved, muted...). */
  flips: number;
  /** Notifications delivered / not delivered (retried at a later tick). */
  delivered: number;
  failed: number;
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
    };
    deps.log.info("alert tick done", { ...summary });
    return summary;
  };
}

const deployed = once(async () => {
  const env = process.env;
  const { channels, publicUrl } = orThrow("svcmon-alerts", alertsFromEnv(env));
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
  });
});

/** The Lambda entry point (an EventBridge scheduled event; its content is not needed). */
export const handler = async (): Promise<AlertsTickSummary> => (await deployed())();
