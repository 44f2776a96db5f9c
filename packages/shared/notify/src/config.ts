/**
 * The channels config file and the `ALERT_WEBHOOK_URL` shortcut. Validation parses and never throws:
 * it returns every problem with its path (`channels[1].url`).
 */

import type { Issue, Result } from "@shared/kernel";
import { type AlertmanagerAuth, alertmanagerChannel, PROMETHEUS_LABEL_NAME_RE } from "./alertmanager.ts";
import type { FetchLike } from "./http.ts";
import type { Channel } from "./ports.ts";
import { slackChannel } from "./slack.ts";
import { smtpChannel } from "./smtp.ts";
import { hostProblem, urlTargetProblem } from "./targets.ts";
import { webhookChannel } from "./webhook.ts";

export type { Issue, Result };

export interface WebhookChannelConfig {
  type: "webhook";
  name: string;
  url: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /**
   * Allow a link-local or cloud metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::/32,
   * metadata.google.internal, ...) as the target. Present only when true.
   */
  allowPrivateTargets?: boolean;
}
export interface SlackChannelConfig {
  type: "slack";
  name: string;
  webhookUrl: string;
  timeoutMs?: number;
  /**
   * Allow a link-local or cloud metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::/32,
   * metadata.google.internal, ...) as the target. Present only when true.
   */
  allowPrivateTargets?: boolean;
}
export interface SmtpChannelConfig {
  type: "smtp";
  name: string;
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  password?: string;
  from: string;
  to: string[];
  timeoutMs?: number;
  /**
   * Allow a link-local or cloud metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::/32,
   * metadata.google.internal, ...) as the target. Present only when true.
   */
  allowPrivateTargets?: boolean;
}
export interface AlertmanagerChannelConfig {
  type: "alertmanager";
  name: string;
  /** The Alertmanager's base URL (with its route prefix, if any); alerts go to `<url>/api/v2/alerts`. */
  url: string;
  /** `{ bearer }` or `{ user, password }` (basic auth), best given as `{ "env": "NAME" }` references. */
  auth?: AlertmanagerAuth;
  /** Labels added to every alert that lacks them; names are Prometheus label names. */
  extraLabels?: Record<string, string>;
  /** A firing alert's `endsAt` is the send time plus this (default: by severity, see alertmanager.ts). */
  firingHorizonMs?: number;
  timeoutMs?: number;
  /**
   * Allow a link-local or cloud metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::/32,
   * metadata.google.internal, ...) as the target. Present only when true.
   */
  allowPrivateTargets?: boolean;
}
export type ChannelConfig =
  | WebhookChannelConfig
  | SlackChannelConfig
  | SmtpChannelConfig
  | AlertmanagerChannelConfig;
export interface ChannelsConfig {
  channels: ChannelConfig[];
}

/** The channel name the `ALERT_WEBHOOK_URL` shortcut gets. */
export const ENV_WEBHOOK_CHANNEL = "alert-webhook-url";

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function validateChannelsConfig(input: unknown): Result<ChannelsConfig> {
  const errors: Issue[] = [];
  const err = (path: string, message: string) => errors.push({ path, message });
  if (!isObject(input)) return { ok: false, errors: [{ path: "", message: "must be an object" }] };
  const list = input.channels;
  if (!Array.isArray(list)) {
    return { ok: false, errors: [{ path: "channels", message: "required: an array of channels" }] };
  }
  const channels: ChannelConfig[] = [];
  const names = new Map<string, number>();
  for (const [i, raw] of list.entries()) {
    const p = `channels[${i}]`;
    if (!isObject(raw)) {
      err(p, "must be an object");
      continue;
    }
    const before = errors.length;
    const type = raw.type;
    if (type !== "webhook" && type !== "slack" && type !== "smtp" && type !== "alertmanager") {
      err(`${p}.type`, 'must be one of "webhook", "slack", "smtp", "alertmanager"');
      continue;
    }
    let name = `${type}-${i + 1}`;
    if (raw.name !== undefined) {
      if (typeof raw.name !== "string" || !NAME_RE.test(raw.name)) {
        err(`${p}.name`, "must be 1–64 letters, digits, '.', '_' or '-'");
      } else name = raw.name;
    }
    const seen = names.get(name);
    if (seen !== undefined) err(`${p}.name`, `duplicate channel name "${name}" (also channels[${seen}])`);
    else names.set(name, i);
    let timeoutMs: number | undefined;
    if (raw.timeoutMs !== undefined) {
      if (typeof raw.timeoutMs !== "number" || !Number.isInteger(raw.timeoutMs) || raw.timeoutMs < 1) {
        err(`${p}.timeoutMs`, "must be a positive integer (milliseconds)");
      } else timeoutMs = raw.timeoutMs;
    }
    let allowPrivate = false;
    if (raw.allowPrivateTargets !== undefined) {
      if (typeof raw.allowPrivateTargets !== "boolean") err(`${p}.allowPrivateTargets`, "must be a boolean");
      else allowPrivate = raw.allowPrivateTargets;
    }
    const t = {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(allowPrivate ? { allowPrivateTargets: true as const } : {}),
    };

    if (type === "webhook") {
      const problem = urlTargetProblem(raw.url, allowPrivate);
      if (problem) err(`${p}.url`, problem);
      let headers: Record<string, string> | undefined;
      if (raw.headers !== undefined) {
        if (!isObject(raw.headers)) err(`${p}.headers`, "must be an object of header names to strings");
        else {
          headers = {};
          for (const [k, v] of Object.entries(raw.headers)) {
            if (typeof v !== "string") err(`${p}.headers.${k}`, "must be a string");
            else if (/[\r\n]/.test(v)) err(`${p}.headers.${k}`, "must not contain line breaks");
            else headers[k] = v;
          }
        }
      }
      if (errors.length === before) {
        channels.push({ type, name, url: raw.url as string, ...(headers ? { headers } : {}), ...t });
      }
    } else if (type === "slack") {
      const problem = urlTargetProblem(raw.webhookUrl, allowPrivate);
      if (problem) err(`${p}.webhookUrl`, problem);
      if (errors.length === before) channels.push({ type, name, webhookUrl: raw.webhookUrl as string, ...t });
    } else if (type === "alertmanager") {
      const am = validateAlertmanager(raw, p, allowPrivate, err);
      if (errors.length === before && am !== undefined) channels.push({ type, name, ...am, ...t });
    } else {
      if (typeof raw.host !== "string" || raw.host === "") err(`${p}.host`, "required: a host name");
      else {
        const problem = hostProblem(raw.host, allowPrivate);
        if (problem) err(`${p}.host`, problem);
      }
      const port = raw.port;
      if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) {
        err(`${p}.port`, "required: an integer from 1 to 65535");
      }
      if (raw.secure !== undefined && typeof raw.secure !== "boolean")
        err(`${p}.secure`, "must be a boolean");
      for (const k of ["user", "password"] as const) {
        if (raw[k] !== undefined && typeof raw[k] !== "string") err(`${p}.${k}`, "must be a string");
      }
      if ((raw.user === undefined) !== (raw.password === undefined)) {
        err(`${p}.${raw.user === undefined ? "user" : "password"}`, "user and password go together");
      }
      if (typeof raw.from !== "string" || !raw.from.includes("@"))
        err(`${p}.from`, "required: an e-mail address");
      if (!Array.isArray(raw.to) || raw.to.length === 0) {
        err(`${p}.to`, "required: a non-empty array of e-mail addresses");
      } else {
        raw.to.forEach((a, j) => {
          if (typeof a !== "string" || !a.includes("@")) err(`${p}.to[${j}]`, "must be an e-mail address");
        });
      }
      if (errors.length === before) {
        channels.push({
          type,
          name,
          host: raw.host as string,
          port: port as number,
          secure: (raw.secure as boolean | undefined) ?? false,
          ...(raw.user === undefined ? {} : { user: raw.user as string, password: raw.password as string }),
          from: raw.from as string,
          to: [...(raw.to as string[])],
          ...t,
        });
      }
    }
  }
  return errors.length === 0 ? { ok: true, value: { channels } } : { ok: false, errors };
}

const noLineBreaks = (s: string) => !/[\r\n]/.test(s);

/** The fields of an `alertmanager` channel, or undefined with every problem reported through `err`. */
function validateAlertmanager(
  raw: Record<string, unknown>,
  p: string,
  allowPrivate: boolean,
  err: (path: string, message: string) => void,
): Omit<AlertmanagerChannelConfig, "type" | "name" | "timeoutMs" | "allowPrivateTargets"> | undefined {
  let ok = true;
  const bad = (path: string, message: string) => {
    ok = false;
    err(path, message);
  };
  const problem = urlTargetProblem(raw.url, allowPrivate);
  if (problem) bad(`${p}.url`, problem);
  else {
    const u = new URL(raw.url as string);
    if (u.search !== "" || u.hash !== "")
      bad(`${p}.url`, "must be the Alertmanager's base URL, without a query or fragment");
    else if (/\/api\/v[12]\/alerts\/?$/.test(u.pathname)) {
      bad(
        `${p}.url`,
        "must be the Alertmanager's base URL (e.g. https://am.example:9093): /api/v2/alerts is added",
      );
    }
  }
  let auth: AlertmanagerAuth | undefined;
  if (raw.auth !== undefined) {
    const a = raw.auth;
    const str = (v: unknown) => typeof v === "string" && v !== "" && noLineBreaks(v);
    if (!isObject(a)) bad(`${p}.auth`, 'must be { "bearer": token } or { "user": ..., "password": ... }');
    else if ("bearer" in a) {
      if (Object.keys(a).length !== 1) bad(`${p}.auth`, "bearer goes alone (no user or password with it)");
      else if (!str(a.bearer)) bad(`${p}.auth.bearer`, "must be a non-empty string without line breaks");
      else auth = { bearer: a.bearer as string };
    } else if ("user" in a || "password" in a) {
      const extra = Object.keys(a).filter((k) => k !== "user" && k !== "password");
      if (extra.length > 0)
        bad(`${p}.auth.${extra[0]}`, "unknown field (auth has bearer, or user and password)");
      if (!str(a.user) || (a.user as string).includes(":")) {
        bad(`${p}.auth.user`, "required with password: a non-empty string without ':' or line breaks");
      }
      if (!str(a.password))
        bad(`${p}.auth.password`, "required with user: a non-empty string without line breaks");
      if (ok) auth = { user: a.user as string, password: a.password as string };
    } else bad(`${p}.auth`, 'must be { "bearer": token } or { "user": ..., "password": ... }');
  }
  let extraLabels: Record<string, string> | undefined;
  if (raw.extraLabels !== undefined) {
    if (!isObject(raw.extraLabels)) bad(`${p}.extraLabels`, "must be an object of label names to strings");
    else {
      extraLabels = {};
      for (const [k, v] of Object.entries(raw.extraLabels)) {
        if (!PROMETHEUS_LABEL_NAME_RE.test(k) || k.startsWith("__")) {
          bad(
            `${p}.extraLabels.${k}`,
            "must be a Prometheus label name: [a-zA-Z_][a-zA-Z0-9_]*, not starting with __",
          );
        } else if (typeof v !== "string" || v === "")
          bad(`${p}.extraLabels.${k}`, "must be a non-empty string");
        else extraLabels[k] = v;
      }
    }
  }
  let firingHorizonMs: number | undefined;
  if (raw.firingHorizonMs !== undefined) {
    const h = raw.firingHorizonMs;
    if (typeof h !== "number" || !Number.isInteger(h) || h < 60_000) {
      bad(`${p}.firingHorizonMs`, "must be an integer of at least 60000 (milliseconds)");
    } else firingHorizonMs = h;
  }
  if (!ok) return undefined;
  return {
    url: raw.url as string,
    ...(auth ? { auth } : {}),
    ...(extraLabels ? { extraLabels } : {}),
    ...(firingHorizonMs === undefined ? {} : { firingHorizonMs }),
  };
}

const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function isEnvReference(v: unknown): v is { env: unknown } {
  return isObject(v) && Object.keys(v).length === 1 && "env" in v;
}

/**
 * Replaces every `{ "env": "NAME" }` in the parsed file by the value of the environment variable NAME,
 * so secrets (an SMTP password, a Slack webhook URL, an authorization header) need not be in the file.
 * Any value may be a reference; an unset or empty variable is an error at the reference's path.
 */
export function resolveEnvReferences(
  input: unknown,
  env: Record<string, string | undefined>,
): Result<unknown> {
  const errors: Issue[] = [];
  const walk = (v: unknown, path: string): unknown => {
    if (isEnvReference(v)) {
      const name = v.env;
      if (typeof name !== "string" || !ENV_NAME_RE.test(name)) {
        errors.push({ path: `${path}.env`, message: "must be the name of an environment variable" });
        return undefined;
      }
      const value = env[name];
      if (value === undefined || value === "") {
        errors.push({ path, message: `environment variable ${name} is not set` });
        return undefined;
      }
      return value;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${path}[${i}]`));
    if (isObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[k] = walk(item, path === "" ? k : `${path}.${k}`);
      return out;
    }
    return v;
  };
  const value = walk(input, "");
  return errors.length === 0 ? { ok: true, value } : { ok: false, errors };
}

/**
 * The channels config file's text → validated channels: JSON, then environment references
 * (`resolveEnvReferences`), then `validateChannelsConfig`. Never throws; I/O is the caller's.
 */
export function parseChannelsConfig(
  text: string,
  env: Record<string, string | undefined>,
): Result<ChannelsConfig> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [{ path: "", message: `not valid JSON: ${(err as Error).message}` }] };
  }
  const resolved = resolveEnvReferences(json, env);
  if (!resolved.ok) return resolved;
  return validateChannelsConfig(resolved.value);
}

/**
 * Adds a webhook channel named `alert-webhook-url` for `ALERT_WEBHOOK_URL` (if set and not blank) to
 * the channels from the config file, unless a webhook channel with that URL is already configured.
 */
export function channelsFromEnv(
  env: Record<string, string | undefined>,
  fromFile: readonly ChannelConfig[] = [],
): Result<ChannelConfig[]> {
  const url = env.ALERT_WEBHOOK_URL?.trim() ?? "";
  if (url === "") return { ok: true, value: [...fromFile] };
  // The shortcut has no allowPrivateTargets: such a target needs a channel in the config file.
  const problem = urlTargetProblem(url, false);
  if (problem) return { ok: false, errors: [{ path: "ALERT_WEBHOOK_URL", message: problem }] };
  if (fromFile.some((c) => c.type === "webhook" && c.url === url)) return { ok: true, value: [...fromFile] };
  if (fromFile.some((c) => c.name === ENV_WEBHOOK_CHANNEL)) {
    return {
      ok: false,
      errors: [
        {
          path: "ALERT_WEBHOOK_URL",
          message: `a configured channel is already named "${ENV_WEBHOOK_CHANNEL}"`,
        },
      ],
    };
  }
  return { ok: true, value: [...fromFile, { type: "webhook", name: ENV_WEBHOOK_CHANNEL, url }] };
}

/** Builds the adapters for validated channel configs. */
export function createChannels(
  configs: readonly ChannelConfig[],
  options: { fetch?: FetchLike } = {},
): Channel[] {
  const f = options.fetch ? { fetch: options.fetch } : {};
  return configs.map((c) => {
    const t = {
      ...(c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs }),
      ...(c.allowPrivateTargets ? { allowPrivateTargets: true } : {}),
    };
    if (c.type === "webhook") {
      return webhookChannel({
        name: c.name,
        url: c.url,
        ...(c.headers ? { headers: c.headers } : {}),
        ...t,
        ...f,
      });
    }
    if (c.type === "slack") return slackChannel({ name: c.name, webhookUrl: c.webhookUrl, ...t, ...f });
    if (c.type === "alertmanager") {
      return alertmanagerChannel({
        name: c.name,
        url: c.url,
        ...(c.auth ? { auth: c.auth } : {}),
        ...(c.extraLabels ? { extraLabels: c.extraLabels } : {}),
        ...(c.firingHorizonMs === undefined ? {} : { firingHorizonMs: c.firingHorizonMs }),
        ...t,
        ...f,
      });
    }
    return smtpChannel({
      name: c.name,
      host: c.host,
      port: c.port,
      secure: c.secure,
      ...(c.user !== undefined && c.password !== undefined
        ? { auth: { user: c.user, pass: c.password } }
        : {}),
      from: c.from,
      to: c.to,
      ...t,
    });
  });
}
