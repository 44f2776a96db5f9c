/**
 * The functions' settings from their environment (the stacks in infra/ set them; secrets arrive as
 * variables too, filled in from Secrets Manager before the first invocation). Parse, don't throw:
 * every problem is reported with the variable at fault.
 */

import { parseSessionKeys, SESSION_KEYS_ENV } from "@monitor/api/session-keys";
import {
  type AutoRegisterConfig,
  autoRegisterFromEnv,
  type Issue,
  MONITOR_TOKEN_CHARS,
  MONITOR_TOKEN_RULE,
  maxClockSkewFromEnv,
  type Result,
} from "@monitor/core";
import { heartbeatUrlFromEnv } from "@monitor/runtime/heartbeat";
import { type ChannelConfig, channelsFromEnv, parseChannelsConfig } from "@shared/notify";

export interface ClickHouseSettings {
  url: string;
  username: string;
  password: string;
  database: string;
  /** Bound of every statement. */
  timeoutMs: number;
}

export interface CollectorSettings {
  /** The collector this function runs, e.g. `config_ec2`. */
  collector: string;
  /** Regions scanned in every active account. */
  regions: string[];
  /** Per run (one account and region); a run over it is recorded `failed`. */
  runTimeoutMs: number;
}

/** What the AWS collectors of a collector function need (docs/deploy.md, svcmon-CollectorRole). */
export interface CollectorWiring {
  /** Role the collectors assume in each monitored account. */
  roleName: string;
  /** External id of that role's trust policy. */
  externalId: string;
  /** The event queue (SQS URL) collectors publish resource events to. */
  eventQueueUrl: string;
}

export interface StatusSettings {
  /** Bearer token of `/api/system/*` and the `/system` page login. */
  token: string;
  /**
   * MONITOR_SESSION_KEYS (from the secret svcmon/monitor-session-keys): keys of the page's signed
   * session cookies, the first signs, all verify; every instance shares them.
   */
  sessionKeys: string[];
}

type Env = Record<string, string | undefined>;

const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;
const COLLECTOR = /^[a-z][a-z0-9_]{0,63}$/;
export const MIN_TOKEN_LENGTH = 16;

function required(env: Env, name: string, errors: Issue[]): string {
  const v = env[name]?.trim() ?? "";
  if (v === "") errors.push({ path: name, message: "is not set" });
  return v;
}

function positiveInt(env: Env, name: string, fallback: number, errors: Issue[]): number {
  const raw = env[name]?.trim() ?? "";
  if (raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) errors.push({ path: name, message: "must be a positive integer" });
  return n;
}

const done = <T>(errors: Issue[], value: T): Result<T> =>
  errors.length > 0 ? { ok: false, errors } : { ok: true, value };

export function clickHouseFromEnv(env: Env): Result<ClickHouseSettings> {
  const errors: Issue[] = [];
  const url = required(env, "CLICKHOUSE_URL", errors);
  if (url !== "") {
    let protocol = "";
    try {
      protocol = new URL(url).protocol;
    } catch {
      errors.push({ path: "CLICKHOUSE_URL", message: "is not a URL" });
    }
    if (protocol !== "" && protocol !== "https:" && protocol !== "http:") {
      errors.push({ path: "CLICKHOUSE_URL", message: "must be an http(s) URL" });
    }
  }
  const username = required(env, "CLICKHOUSE_USERNAME", errors);
  const password = required(env, "CLICKHOUSE_PASSWORD", errors);
  const database = env.CLICKHOUSE_DATABASE?.trim() || "default";
  const timeoutMs = positiveInt(env, "CLICKHOUSE_TIMEOUT_MS", 5000, errors);
  return done(errors, { url, username, password, database, timeoutMs });
}

export function collectorFromEnv(env: Env): Result<CollectorSettings> {
  const errors: Issue[] = [];
  const collector = required(env, "COLLECTOR", errors);
  if (collector !== "" && !COLLECTOR.test(collector)) {
    errors.push({ path: "COLLECTOR", message: "must be a collector name such as config_ec2" });
  }
  const raw = required(env, "COLLECTOR_REGIONS", errors);
  const regions = raw.split(/[\s,]+/).filter((r) => r !== "");
  if (raw !== "" && regions.length === 0)
    errors.push({ path: "COLLECTOR_REGIONS", message: "lists no region" });
  for (const r of regions) {
    if (!REGION.test(r))
      errors.push({ path: "COLLECTOR_REGIONS", message: `${JSON.stringify(r)} is not an AWS region` });
  }
  const runTimeoutMs = positiveInt(env, "RUN_TIMEOUT_MS", 600_000, errors);
  return done(errors, { collector, regions: [...new Set(regions)], runTimeoutMs });
}

const ROLE_NAME = /^[\w+=,.@-]{1,64}$/;

export function collectorWiringFromEnv(env: Env): Result<CollectorWiring> {
  const errors: Issue[] = [];
  const roleName = required(env, "COLLECTOR_ROLE_NAME", errors);
  if (roleName !== "" && !ROLE_NAME.test(roleName))
    errors.push({ path: "COLLECTOR_ROLE_NAME", message: "must be an IAM role name" });
  const externalId = required(env, "COLLECTOR_EXTERNAL_ID", errors);
  const eventQueueUrl = required(env, "EVENT_QUEUE_URL", errors);
  if (eventQueueUrl !== "" && !/^https:\/\/\S+$/.test(eventQueueUrl))
    errors.push({ path: "EVENT_QUEUE_URL", message: "must be an https:// SQS queue URL" });
  return done(errors, { roleName, externalId, eventQueueUrl });
}

export function statusFromEnv(env: Env): Result<StatusSettings> {
  const errors: Issue[] = [];
  const token = required(env, "MONITOR_TOKEN", errors);
  if (token !== "" && token.length < MIN_TOKEN_LENGTH) {
    errors.push({ path: "MONITOR_TOKEN", message: `must be at least ${MIN_TOKEN_LENGTH} characters` });
  }
  if (token !== "" && !MONITOR_TOKEN_CHARS.test(token)) {
    errors.push({ path: "MONITOR_TOKEN", message: `must be ${MONITOR_TOKEN_RULE}` });
  }
  let sessionKeys: string[] = [];
  if (required(env, SESSION_KEYS_ENV, errors) !== "") {
    const keys = parseSessionKeys(env[SESSION_KEYS_ENV] ?? "");
    if (keys.ok) sessionKeys = keys.value;
    else errors.push(...keys.errors);
  }
  return done(errors, { token, sessionKeys });
}

export interface RunIntakeSettings {
  /** AUTO_REGISTER, AUTO_REGISTER_INTERVAL_MINUTES, AUTO_REGISTER_FRESHNESS_MINUTES. */
  autoRegister: AutoRegisterConfig;
  /** MAX_CLOCK_SKEW_S in milliseconds. */
  maxClockSkewMs: number;
}

/**
 * How run records are taken in (`POST /api/system/runs` of svcmon-status): auto-registration of a
 * collector's first run and the clock-skew allowance, with their defaults (on, 24 h / 48 h; 15 min).
 */
export function runIntakeFromEnv(env: Env): Result<RunIntakeSettings> {
  const errors: Issue[] = [];
  const auto = autoRegisterFromEnv(env);
  if (!auto.ok)
    for (const e of auto.errors) {
      const [name, ...rest] = e.split(" ");
      errors.push({ path: name ?? "", message: rest.join(" ") });
    }
  const skew = maxClockSkewFromEnv(env);
  if (!skew.ok)
    errors.push({ path: "MAX_CLOCK_SKEW_S", message: skew.error.replace(/^MAX_CLOCK_SKEW_S /, "") });
  if (errors.length > 0 || !auto.ok || !skew.ok) return { ok: false, errors };
  return { ok: true, value: { autoRegister: auto.value, maxClockSkewMs: skew.value } };
}

/** Where the alerts function's channels config arrives (from the secret svcmon/alert-channels). */
export const ALERT_CONFIG_JSON = "ALERT_CONFIG_JSON";

export interface AlertsSettings {
  /** ALERT_CONFIG_JSON's channels, then the ALERT_WEBHOOK_URL shortcut; may be empty. */
  channels: ChannelConfig[];
  /**
   * The base of the notifications' `/system#<subject>` links: MONITOR_PUBLIC_URL, else
   * MONITOR_STATUS_URL (the status function's URL, set by the stack); null when neither is set (the
   * alerts then carry `generatorURL: null` and say there is no link).
   */
  publicUrl: string | null;
  /**
   * MONITOR_TRANSITIONS_TABLE: the DynamoDB table of status changes and claimed notifications (set by
   * the stack); null when unset (the state then stays one last-write-wins document in ClickHouse).
   */
  transitionsTable: string | null;
  /**
   * MONITOR_HEARTBEAT_URL: the dead-man's switch pinged around every tick (`/start`, success,
   * `/fail`; docs/monitor-alerts.md "The monitor watched"); null when unset.
   */
  heartbeatUrl: string | null;
}

function httpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * The alert channels: ALERT_CONFIG_JSON (the text of a channels config `{"channels": [...]}`, as the
 * ALERT_CONFIG file of npm start; `{"env": "NAME"}` references resolve against the environment), then
 * ALERT_WEBHOOK_URL. Unset or blank: no channel from it. Problems name the variable and the field.
 */
export function alertsFromEnv(env: Env): Result<AlertsSettings> {
  const text = env[ALERT_CONFIG_JSON]?.trim() ?? "";
  let fromConfig: ChannelConfig[] = [];
  if (text !== "") {
    const parsed = parseChannelsConfig(text, env);
    if (!parsed.ok) {
      return {
        ok: false,
        errors: parsed.errors.map((e) => ({
          path: e.path === "" ? ALERT_CONFIG_JSON : `${ALERT_CONFIG_JSON}.${e.path}`,
          message: e.message,
        })),
      };
    }
    fromConfig = parsed.value.channels;
  }
  const channels = channelsFromEnv(env, fromConfig);
  if (!channels.ok) return channels;
  let publicUrl: string | null = null;
  for (const name of ["MONITOR_PUBLIC_URL", "MONITOR_STATUS_URL"]) {
    const v = env[name]?.trim() ?? "";
    if (v === "") continue;
    if (!httpUrl(v)) return { ok: false, errors: [{ path: name, message: "must be an http or https URL" }] };
    publicUrl ??= v;
  }
  const table = silencesTableFromEnv(env);
  if (!table.ok) return table;
  const heartbeat = heartbeatUrlFromEnv(env);
  if (!heartbeat.ok) return heartbeat;
  return {
    ok: true,
    value: {
      channels: channels.value,
      publicUrl,
      transitionsTable: table.value,
      heartbeatUrl: heartbeat.value,
    },
  };
}

/**
 * MONITOR_TRANSITIONS_TABLE (set by the stack on svcmon-alerts and svcmon-status): the DynamoDB table
 * of the alerts' status changes, which also keeps the silences. Absent or empty: null.
 */
export function silencesTableFromEnv(env: Env): Result<string | null> {
  const table = env.MONITOR_TRANSITIONS_TABLE?.trim() ?? "";
  if (table !== "" && !/^[A-Za-z0-9_.-]{3,255}$/.test(table))
    return {
      ok: false,
      errors: [{ path: "MONITOR_TRANSITIONS_TABLE", message: "must be a DynamoDB table name" }],
    };
  return { ok: true, value: table === "" ? null : table };
}

/** The value, or an Error naming the component and every variable at fault (a cold start cannot go on). */
export function orThrow<T>(component: string, result: Result<T>): T {
  if (result.ok) return result.value;
  throw new Error(`${component}: ${result.errors.map((e) => `${e.path} ${e.message}`).join("; ")}`);
}
