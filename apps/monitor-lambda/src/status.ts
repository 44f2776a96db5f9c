/**
 * `svcmon-status`: the monitor's HTTP app (status, freshness, accounts, ingest over HTTP, the
 * `/system` page) behind a Lambda function URL, on ClickHouse over HTTP, with the health of the event
 * queue and its dead-letter queue from SQS (MONITOR_SQS_QUEUE_URLS), and of the failure queues
 * watched directly (MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: svcmon-cur-ingest-dlq). See docs/deploy.md.
 */

import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createMonitorApp, type MonitorAppDeps } from "@monitor/api";
import {
  DynamoDbEndedSessionStore,
  DynamoDbMaintenanceStore,
  DynamoDbSilenceStore,
  DynamoDbTransitionStore,
} from "@monitor/aws";
import {
  ClickHouseAlertStateStore,
  ClickHouseCollectorRegistry,
  ClickHouseDeliveryLog,
  ClickHouseEngineTickStore,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import {
  DEFAULT_HIERARCHY_RULES,
  type EndedSessionStore,
  type HierarchyRules,
  type MaintenanceStore,
  type SilenceStore,
  type TransitionStore,
} from "@monitor/core";
import { ClickHouseCostStore } from "@monitor/cost";
import { firingAlerts } from "@monitor/runtime";
import { type AuthThrottle, lambdaClientAddress } from "@shared/http";
import type { Logger } from "@shared/kernel";
import { jsonLogger } from "@shared/kernel/json-logger";
import type { Hono } from "hono";
import { handle } from "hono/aws-lambda";
import {
  clickHouseFromEnv,
  orThrow,
  runIntakeFromEnv,
  silencesTableFromEnv,
  statusFromEnv,
} from "./config.ts";
import { hierarchyRulesFromLambdaEnv } from "./hierarchy-rules-env.ts";
import { queueHealthFromEnv } from "./queues.ts";
import { once, openStore } from "./store.ts";

export interface StatusDeps {
  store: ClickHouseRunStore;
  token: string;
  log: Logger;
  now: () => number;
  queues?: MonitorAppDeps["queues"];
  /** Hierarchy rules of the cost store (HIERARCHY_RULES_JSON); default: the built-in rules. */
  rules?: HierarchyRules;
  /**
   * A proxy (CloudFront, say) in front of the function URL sets X-Forwarded-For and X-Forwarded-Proto
   * (TRUST_PROXY=1). Default false: the caller is the event's `sourceIp`.
   */
  trustProxy?: boolean;
  /** The failed-authentication throttle; default the app's own (per warm instance). */
  authThrottle?: AuthThrottle;
  /** Auto-registration of a collector's first run (AUTO_REGISTER*); default on, 24 h / 48 h. */
  autoRegister?: MonitorAppDeps["autoRegister"];
  /** MAX_CLOCK_SKEW_S in ms; default 15 min. */
  maxClockSkewMs?: number;
  /**
   * Keys of the page's signed session cookies (MONITOR_SESSION_KEYS): shared by every instance, so a
   * session works whichever instance answers. Absent: a random key per instance.
   */
  sessionKeys?: readonly string[];
  /** Silences: the transitions table's item the alert engine reads. Absent: routes 404. */
  silences?: SilenceStore;
  /** Maintenance windows: the transitions table's item the alert engine reads. Absent: routes 404. */
  maintenance?: MaintenanceStore;
  /**
   * The `/system` sessions ended by a logout (an item per session in the transitions table), read by
   * every instance. Absent: a logout only clears the browser's cookie.
   */
  endedSessions?: EndedSessionStore;
  /**
   * The alert engine's flips and notifications (the transitions table), for timelines. Absent: a
   * timeline has runs and silences only.
   */
  transitions?: TransitionStore;
}

/** The monitor app on one store: its registry and the alert engine's stored state share the store's client. */
export function createStatusApp(deps: StatusDeps): Hono {
  const alertState = ClickHouseAlertStateStore.fromStore(deps.store);
  // The cost tables are filled by svcmon-cur-ingest; here only the svc-infrastructure node is read.
  const cost = ClickHouseCostStore.fromStore(deps.store, { rules: deps.rules ?? DEFAULT_HIERARCHY_RULES });
  return createMonitorApp({
    store: deps.store,
    registry: ClickHouseCollectorRegistry.fromStore(deps.store),
    token: deps.token,
    log: deps.log,
    now: deps.now,
    alerts: async () => firingAlerts(await alertState.load()),
    // The rounds svcmon-alerts records: the body's alert_engine (late when its schedule stopped).
    engineTicks: ClickHouseEngineTickStore.fromStore(deps.store),
    ...(deps.queues === undefined ? {} : { queues: deps.queues }),
    ownCost: (now) => cost.ownCost(now),
    clientAddress: lambdaClientAddress,
    ...(deps.trustProxy === undefined ? {} : { trustProxy: deps.trustProxy }),
    ...(deps.authThrottle === undefined ? {} : { authThrottle: deps.authThrottle }),
    ...(deps.autoRegister === undefined ? {} : { autoRegister: deps.autoRegister }),
    ...(deps.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: deps.maxClockSkewMs }),
    ...(deps.sessionKeys === undefined ? {} : { sessionKeys: deps.sessionKeys }),
    ...(deps.silences === undefined ? {} : { silences: deps.silences }),
    ...(deps.maintenance === undefined ? {} : { maintenance: deps.maintenance }),
    ...(deps.endedSessions === undefined ? {} : { endedSessions: deps.endedSessions }),
    history: {
      deliveryLog: ClickHouseDeliveryLog.fromStore(deps.store),
      ...(deps.transitions === undefined ? {} : { transitions: deps.transitions }),
    },
  });
}

export const createStatusHandler = (deps: StatusDeps) => handle(createStatusApp(deps));

type Handler = ReturnType<typeof createStatusHandler>;

const deployed = once(async (): Promise<Handler> => {
  const { token, sessionKeys } = orThrow("svcmon-status", statusFromEnv(process.env));
  const queues = queueHealthFromEnv("svcmon-status", process.env);
  const rules = orThrow("svcmon-status", hierarchyRulesFromLambdaEnv(process.env));
  const intake = orThrow("svcmon-status", runIntakeFromEnv(process.env));
  const silencesTable = orThrow("svcmon-status", silencesTableFromEnv(process.env));
  const store = openStore(orThrow("svcmon-status", clickHouseFromEnv(process.env)));
  await store.migrate();
  return createStatusHandler({
    store,
    token,
    sessionKeys,
    log: jsonLogger("svcmon-status"),
    now: Date.now,
    rules,
    ...intake,
    ...(queues === undefined ? {} : { queues }),
    ...(silencesTable === null
      ? {}
      : {
          silences: new DynamoDbSilenceStore({ client: new DynamoDBClient({}), tableName: silencesTable }),
          maintenance: new DynamoDbMaintenanceStore({
            client: new DynamoDBClient({}),
            tableName: silencesTable,
          }),
          endedSessions: new DynamoDbEndedSessionStore({
            client: new DynamoDBClient({}),
            tableName: silencesTable,
          }),
          transitions: new DynamoDbTransitionStore({
            client: new DynamoDBClient({}),
            tableName: silencesTable,
          }),
        }),
  });
});

/** The Lambda entry point: built on the first invocation (migrations applied), then reused. */
export const handler: Handler = async (event, context) => (await deployed())(event, context);
