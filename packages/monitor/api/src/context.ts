/**
 * What the monitor app's sub-apps share: the app's dependencies, its deadlines and body limit, and
 * the per-app memory the routes keep (collectors known to be registered, the account write chain).
 * Built once per app by createMonitorApp (app.ts). docs/monitor-api.md.
 */

import {
  type AutoRegisterConfig,
  type CollectorRegistry,
  DEFAULT_MONITOR_BODY_BYTES,
  type EndedSessionStore,
  type EngineTickStore,
  type MaintenanceStore,
  type OwnCostReport,
  type QueueHealth,
  type RunStore,
  type SilenceStore,
} from "@monitor/core";
import type { FiringAlertJson, TimelineReadDeps } from "@monitor/runtime";
import { ApiError, type AuthThrottle, type ClientAddress } from "@shared/http";
import type { Logger } from "@shared/kernel";
import { withDeadline } from "@shared/kernel";
import type { MiddlewareHandler } from "hono";

/** The kernel's Logger port, under the name this app's callers know. */
export type MonitorApiLogger = Logger;

export interface MonitorAppDeps {
  store: RunStore;
  registry: CollectorRegistry;
  /** Bearer token of every `/api/system/*` and `/api/v1/system/*` route. Must not be empty. */
  token: string;
  log: MonitorApiLogger;
  /** Epoch ms; read once per request. */
  now: () => number;
  /** Bound of every read route (status, freshness, accounts, collectors). Default 2000 ms. */
  statusTimeoutMs?: number;
  /** Bound of every write route. Default 10000 ms. */
  writeTimeoutMs?: number;
  /** Largest accepted request body (JSON bodies and the login form). Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * The app runs behind a proxy that terminates TLS and sets `X-Forwarded-Proto` and
   * `X-Forwarded-For` (`TRUST_PROXY=1`): the login cookie is `Secure` when the proxy says the request
   * came over HTTPS, and the client address is the first `X-Forwarded-For` entry. Default false: both
   * headers are ignored, since any client can send them.
   */
  trustProxy?: boolean;
  /**
   * Failed authentications (bearer token of `/api/system/*`, `POST /system/login`), counted per client
   * address and token prefix; over budget is 429 with `Retry-After`. Default: 20 per address and 50
   * per prefix a minute (`AUTH_FAILURES_PER_ADDRESS`, `AUTH_FAILURES_PER_PREFIX`).
   */
  authThrottle?: AuthThrottle;
  /**
   * The address of the connection (the runtime's connection info: `getConnInfo` on Node, the Lambda
   * event's `sourceIp`). Default `headerClientAddress` (`CF-Connecting-IP`, `X-Real-IP`). With
   * `trustProxy` the first `X-Forwarded-For` entry is used instead when present.
   */
  clientAddress?: ClientAddress;
  /**
   * Silences (docs/monitor-alerts.md): `POST|GET /api/system/silences`, `DELETE /api/system/silences/{id}`. The
   * alert engine must read the same store. Absent: the routes answer 404.
   */
  silences?: SilenceStore;
  /**
   * The alert history a timeline reads (`GET /api/system/timeline`): the transition store's flips and
   * notifications and the delivery log's attempts. Absent: timelines have runs and silences only.
   */
  history?: Omit<TimelineReadDeps, "store" | "silences">;
  /**
   * Maintenance windows (docs/monitor-alerts.md): `POST|GET /api/system/maintenance`,
   * `DELETE /api/system/maintenance/{id}`, the status body's `maintenance` and `in_maintenance`, and
   * the collectors' freshness after a window. The alert engine must read the same store. Absent: the
   * routes answer 404 and the status has no `maintenance`.
   */
  maintenance?: MaintenanceStore;
  /** The firing alerts of the status body (the alert engine's stored state); none when absent. */
  alerts?: () => Promise<FiringAlertJson[]>;
  /**
   * The alert engine's recorded rounds (svc.engine_ticks): the status body's `alert_engine`, its
   * metrics and the page's engine line (docs/monitor-alerts.md "The monitor watched"). Absent: the
   * body has no `alert_engine`.
   */
  engineTicks?: EngineTickStore;
  /**
   * Queue health (`queueHealthReader(source)`): the status body's `queues`. A queue that cannot be read
   * is listed as `unreadable` and the status still answers 200. None when absent (`queues: []`).
   */
  queues?: () => Promise<QueueHealth[]>;
  /**
   * The service's own cost (`ClickHouseCostStore.ownCost`, docs/monitor-cost.md): the status body's
   * `own_cost`. Absent: the body has no `own_cost`.
   */
  ownCost?: (now: number) => Promise<OwnCostReport>;
  /**
   * Auto-registration of a collector's first run (`autoRegisterFromEnv`: `AUTO_REGISTER`,
   * `AUTO_REGISTER_INTERVAL_MINUTES`, `AUTO_REGISTER_FRESHNESS_MINUTES`). Default on, 24 h / 48 h.
   */
  autoRegister?: AutoRegisterConfig;
  /** How far ahead of `now` a run's times may be (`MAX_CLOCK_SKEW_S`). Default 15 min. */
  maxClockSkewMs?: number;
  /**
   * Keys of the `/system` page's signed session cookies (`MONITOR_SESSION_KEYS`): the first signs,
   * all verify. Every instance given the same keys accepts the others' sessions. Absent: one random
   * key per app, so a session is valid only on the instance that issued it.
   */
  sessionKeys?: readonly string[];
  /**
   * Where `POST /system/logout` records the session it ends, read by every instance (SQLite in
   * DATA_DIR, the transitions table on AWS): a copy of the cookie is refused after the logout.
   * Absent: the logout only clears the browser's cookie. Whatever the store, a session is bound to
   * `token`: a new monitor token refuses every earlier cookie.
   */
  endedSessions?: EndedSessionStore;
}

export const DEFAULT_STATUS_TIMEOUT_MS = 2000;
export const DEFAULT_WRITE_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = DEFAULT_MONITOR_BODY_BYTES;

const dbUnavailable = (message: string) => new ApiError(503, "analytics_db_unavailable", message);

/** Races `work` against a deadline; a late answer is dropped (its rejection is swallowed). */
export function within<T>(ms: number, what: string, work: () => Promise<T>): Promise<T> {
  return withDeadline(ms, work, () =>
    dbUnavailable(`the analytics database did not answer ${what} within ${ms} ms`),
  );
}

/** A read or write of the analytics database under the app's deadline for it. */
export type Bounded = <T>(what: string, work: () => Promise<T>) => Promise<T>;

export interface MonitorContext {
  deps: MonitorAppDeps;
  store: RunStore;
  registry: CollectorRegistry;
  log: Logger;
  now: () => number;
  /** Under the read deadline (`statusTimeoutMs`). */
  read: Bounded;
  readMs: number;
  /** Under the write deadline (`writeTimeoutMs`). */
  write: Bounded;
  /** The request-body limit of every route that takes a body. */
  limit: MiddlewareHandler;
  /** Collector names known to be registered, until when (epoch ms): run batches skip the registry read. */
  knownCollectors: Map<string, number>;
}
