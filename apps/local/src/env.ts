import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseSessionKeys, SESSION_KEYS_ENV } from "@monitor/api/session-keys";
import { diskQuotaFromEnv } from "@monitor/clickhouse";
import {
  type AutoRegisterConfig,
  autoRegisterFromEnv,
  MONITOR_TOKEN_CHARS,
  MONITOR_TOKEN_RULE,
  maxClockSkewFromEnv,
} from "@monitor/core";
import { alertIntervalFromEnv, heartbeatUrlFromEnv } from "@monitor/runtime";
import { BEARER_TOKEN, BEARER_TOKEN_RULE, type BodyLimits, bodyLimitsFromEnv } from "@relevance/admin";
import { formatIssues } from "@relevance/core";
import { type DriftCheckEnv, driftCheckEnv, retentionDaysFromEnv } from "@relevance/outcomes";
import {
  artifactMaxBytes,
  DEFAULT_MODEL_CACHE_MB,
  type RecordingTuning,
  recordingTuning,
} from "@relevance/search";
import { type ChannelConfig, channelsFromEnv, parseChannelsConfig } from "@shared/notify";

export interface LocalConfig {
  port: number;
  host: string;
  dataDir: string;
  adminToken: string;
  /** Whether ADMIN_TOKEN was generated for this run (and must be printed). */
  adminTokenGenerated: boolean;
  demo: boolean;
  /** Run the settings exporter in this process (EXPORTER=0 leaves the change log unexported). */
  exporter: boolean;
  /** Bearer token of the monitor's /api/system/* routes. */
  monitorToken: string;
  monitorTokenGenerated: boolean;
  /**
   * MONITOR_SESSION_KEYS: keys of the /system page's signed session cookies (the first signs, all
   * verify). Undefined: the key kept in DATA_DIR/session-key (generated on first start).
   */
  sessionKeys?: string[];
  /** Alert channels: the ALERT_CONFIG file's, then the ALERT_WEBHOOK_URL shortcut; may be empty. */
  alertChannels: ChannelConfig[];
  /** The drift check (DRIFT_PSI_THRESHOLD, DRIFT_CHECK_INTERVAL_MS; docs/quality.md). */
  drift: DriftCheckEnv;
  /** Absolute path of ALERT_CONFIG, or null when unset. */
  alertConfigFile: string | null;
  /** ALERT_EVAL_INTERVAL_S in milliseconds. */
  alertIntervalMs: number;
  /**
   * MONITOR_HEARTBEAT_URL: a dead-man's switch (healthchecks-compatible) pinged around every alert
   * tick (docs/monitor-alerts.md "The monitor watched"); null when unset. Optional for configs built
   * by hand (tests).
   */
  heartbeatUrl?: string | null;
  /**
   * MONITOR_PUBLIC_URL: the base URL people reach the stack at; notifications link to
   * `<it>/system#<subject>`. Null (unset): the stack's own URL is used.
   */
  publicUrl: string | null;
  /**
   * TRUST_PROXY=1: the stack runs behind a proxy that sets `X-Forwarded-For` and `X-Forwarded-Proto`
   * (TLS terminated there), so those headers name the client and the scheme. Off by default: a
   * client could otherwise pick its own address and dodge the failed-login throttle.
   */
  trustProxy: boolean;
  /** MAX_JSON_BODY_BYTES / MAX_DOCUMENTS_BODY_BYTES of the admin and customer APIs (docs/limits.md). */
  apiBodyLimits: Partial<BodyLimits>;
  /** MONITOR_MAX_BODY_BYTES: the monitor API's largest JSON body; undefined keeps its 1 MiB default. */
  monitorMaxBodyBytes: number | undefined;
  /** AUTO_REGISTER, AUTO_REGISTER_INTERVAL_MINUTES, AUTO_REGISTER_FRESHNESS_MINUTES (docs/monitor-api.md). */
  autoRegister?: AutoRegisterConfig;
  /** MAX_CLOCK_SKEW_S in milliseconds (default 15 min). */
  maxClockSkewMs?: number;
  /** MODEL_CACHE_MB: bound on the estimated memory of the search proxy's parsed models (default 32). */
  modelCacheMb: number;
  /** MODEL_MAX_BYTES: the largest model artifact the proxy loads (default 8 MiB, at most 25 MiB). */
  modelMaxBytes: number;
  /** RECORD_MAX_PER_SECOND, RECORD_QUEUE_MAX, EVENTS_PER_KEY_PER_SECOND (docs/limits.md). */
  recording?: RecordingTuning;
  /** OUTCOME_RETENTION_DAYS: days served searches and outcome events are kept (default 90, 1..3650). */
  outcomeRetentionDays: number;
  /**
   * MONITOR_DISK_QUOTA_BYTES: the bytes the embedded analytics DB may use (its disk figures and the
   * disk_high alert are then the data folder against it); null: the filesystem that holds the folder.
   * Undefined (a config built by hand): the process environment decides.
   */
  diskQuotaBytes?: number | null;
}

export type ConfigResult = { ok: true; config: LocalConfig } | { ok: false; error: string };

/** Reads the local stack's environment; a bad value is one clear line naming the variable. */
export function readConfig(env: NodeJS.ProcessEnv): ConfigResult {
  const rawPort = env.PORT ?? "8787";
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535)
    return { ok: false, error: `PORT must be a port number (0-65535), got "${rawPort}"` };
  const flag = (name: string, fallback: boolean): boolean | string => {
    const value = env[name];
    if (value === undefined || value === "") return fallback;
    if (value === "1" || value === "true") return true;
    if (value === "0" || value === "false") return false;
    return `${name} must be 0 or 1, got "${value}"`;
  };
  const demo = flag("DEMO", true);
  if (typeof demo === "string") return { ok: false, error: demo };
  const exporter = flag("EXPORTER", true);
  if (typeof exporter === "string") return { ok: false, error: exporter };
  const trustProxy = flag("TRUST_PROXY", false);
  if (typeof trustProxy === "string") return { ok: false, error: trustProxy };
  let apiBodyLimits: Partial<BodyLimits>;
  try {
    apiBodyLimits = bodyLimitsFromEnv(env);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  const rawCacheMb = env.MODEL_CACHE_MB?.trim() ?? "";
  const modelCacheMb = rawCacheMb === "" ? DEFAULT_MODEL_CACHE_MB : Number(rawCacheMb);
  if (!(Number.isFinite(modelCacheMb) && modelCacheMb > 0 && modelCacheMb <= 65_536)) {
    return { ok: false, error: `MODEL_CACHE_MB must be a positive number of megabytes, got "${rawCacheMb}"` };
  }
  const modelMaxBytes = artifactMaxBytes(env.MODEL_MAX_BYTES);
  if (!modelMaxBytes.ok) return { ok: false, error: formatIssues(modelMaxBytes.errors) };
  const rawMonitorBody = env.MONITOR_MAX_BODY_BYTES?.trim() ?? "";
  if (rawMonitorBody !== "" && !/^[1-9]\d{0,14}$/.test(rawMonitorBody)) {
    return {
      ok: false,
      error: `MONITOR_MAX_BODY_BYTES must be a positive whole number of bytes, got "${rawMonitorBody}"`,
    };
  }
  const token = env.ADMIN_TOKEN === "" ? undefined : env.ADMIN_TOKEN;
  if (token !== undefined && token.length < 16)
    return { ok: false, error: "ADMIN_TOKEN must be at least 16 characters" };
  if (token !== undefined && !BEARER_TOKEN.test(token))
    return { ok: false, error: `ADMIN_TOKEN must be ${BEARER_TOKEN_RULE}` };
  const monitorToken = env.MONITOR_TOKEN === "" ? undefined : env.MONITOR_TOKEN;
  if (monitorToken !== undefined && monitorToken.length < 16) {
    return { ok: false, error: "MONITOR_TOKEN must be at least 16 characters" };
  }
  if (monitorToken !== undefined && !MONITOR_TOKEN_CHARS.test(monitorToken))
    return { ok: false, error: `MONITOR_TOKEN must be ${MONITOR_TOKEN_RULE}` };
  const rawSessionKeys = env[SESSION_KEYS_ENV]?.trim() ?? "";
  const sessionKeys = rawSessionKeys === "" ? undefined : parseSessionKeys(rawSessionKeys);
  if (sessionKeys !== undefined && !sessionKeys.ok)
    return { ok: false, error: sessionKeys.errors.map((e) => `${e.path} ${e.message}`).join("; ") };
  const alerts = readAlertChannels(env);
  if (!alerts.ok) return alerts;
  const publicUrl = env.MONITOR_PUBLIC_URL?.trim() ?? "";
  if (publicUrl !== "" && !isHttpUrl(publicUrl)) {
    return { ok: false, error: `MONITOR_PUBLIC_URL must be an http or https URL, got "${publicUrl}"` };
  }
  const heartbeat = heartbeatUrlFromEnv(env);
  if (!heartbeat.ok)
    return { ok: false, error: heartbeat.errors.map((e) => `${e.path} ${e.message}`).join("; ") };
  let alertIntervalMs: number;
  try {
    alertIntervalMs = alertIntervalFromEnv(env);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  const autoRegister = autoRegisterFromEnv(env);
  if (!autoRegister.ok) return { ok: false, error: autoRegister.errors.join("; ") };
  const maxSkew = maxClockSkewFromEnv(env);
  if (!maxSkew.ok) return { ok: false, error: maxSkew.error };
  const drift = driftCheckEnv(env);
  if (!drift.ok) return { ok: false, error: drift.error };
  const recording = recordingTuning(env);
  if (!recording.ok) return { ok: false, error: recording.problems.map((p) => p.message).join("; ") };
  const diskQuota = diskQuotaFromEnv(env);
  if (!diskQuota.ok) return { ok: false, error: diskQuota.error };
  let outcomeRetentionDays: number;
  try {
    outcomeRetentionDays = retentionDaysFromEnv(env);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  return {
    ok: true,
    config: {
      port,
      host: env.HOST ?? "127.0.0.1",
      dataDir: resolve(env.DATA_DIR ?? "./.data"),
      adminToken: token ?? randomBytes(24).toString("base64url"),
      adminTokenGenerated: token === undefined,
      demo,
      exporter,
      monitorToken: monitorToken ?? randomBytes(24).toString("base64url"),
      monitorTokenGenerated: monitorToken === undefined,
      ...(sessionKeys === undefined ? {} : { sessionKeys: sessionKeys.value }),
      alertChannels: alerts.channels,
      drift: drift.value,
      alertConfigFile: alerts.file,
      alertIntervalMs,
      heartbeatUrl: heartbeat.value,
      publicUrl: publicUrl === "" ? null : publicUrl,
      trustProxy,
      apiBodyLimits,
      monitorMaxBodyBytes: rawMonitorBody === "" ? undefined : Number(rawMonitorBody),
      autoRegister: autoRegister.value,
      maxClockSkewMs: maxSkew.value,
      modelCacheMb,
      modelMaxBytes: modelMaxBytes.value,
      recording: recording.value,
      outcomeRetentionDays,
      // unset here: left to the process environment (tests build configs from their own variables)
      ...(diskQuota.value === null ? {} : { diskQuotaBytes: diskQuota.value }),
    },
  };
}

const READ_ERRORS: Record<string, string> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "is a directory",
};

/**
 * ALERT_CONFIG (a JSON file `{ "channels": [...] }`, docs/notifications.md) plus ALERT_WEBHOOK_URL.
 * Every problem of the file is in the one line, each with its path (`channels[1].url`).
 */
function readAlertChannels(
  env: NodeJS.ProcessEnv,
): { ok: true; channels: ChannelConfig[]; file: string | null } | { ok: false; error: string } {
  const raw = env.ALERT_CONFIG?.trim() ?? "";
  const file = raw === "" ? null : resolve(raw);
  let fromFile: ChannelConfig[] = [];
  if (file !== null) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "";
      const why = READ_ERRORS[code] ?? (err as Error).message;
      return { ok: false, error: `ALERT_CONFIG: cannot read ${file}: ${why}` };
    }
    const parsed = parseChannelsConfig(text, env);
    if (!parsed.ok) {
      const problems = parsed.errors.map((e) => (e.path === "" ? e.message : `${e.path}: ${e.message}`));
      return { ok: false, error: `ALERT_CONFIG ${file}: ${problems.join("; ")}` };
    }
    fromFile = parsed.value.channels;
  }
  const all = channelsFromEnv(env, fromFile);
  if (!all.ok) return { ok: false, error: all.errors.map((e) => `${e.path}: ${e.message}`).join("; ") };
  return { ok: true, channels: all.value, file };
}

/** readConfig for programs that embed the stack (tests, benchmarks): a bad value throws. */
export function configFrom(env: NodeJS.ProcessEnv): LocalConfig {
  const parsed = readConfig(env);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.config;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}
