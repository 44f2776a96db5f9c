/**
 * The bounds of every input the monitor accepts (docs/limits.md, docs/monitor-api.md). The validators
 * (schemas/) and the HTTP app enforce these constants, and `MONITOR_LIMITS` documents the same
 * numbers, so the table cannot drift from what is checked. Pure: no I/O.
 */
import {
  MAX_CRON_CHARS,
  MAX_GRACE_MINUTES,
  MAX_OPEN_RUN_HOURS,
  MAX_OPEN_RUNS_READ,
  MAX_TIMEZONE_CHARS,
} from "@monitor/jobs";
import type { LimitRow } from "@shared/kernel";
import {
  MAINTENANCE_AUTHOR_MAX,
  MAINTENANCE_MAX_LIVE,
  MAINTENANCE_MAX_ONCE_MS,
  MAINTENANCE_MAX_RECURRING_MINUTES,
  MAINTENANCE_REASON_MAX,
  MAINTENANCE_SCOPE_MAX,
} from "./alerts/maintenance.ts";
import {
  SILENCE_AUTHOR_MAX,
  SILENCE_MAX_ACTIVE,
  SILENCE_MAX_DURATION_MS,
  SILENCE_REASON_MAX,
  SILENCE_REGEX_MAX_PATHS,
  SILENCE_REGEX_SUBJECT_CHARS,
  SILENCE_SUBJECT_MAX,
} from "./alerts/silences.ts";

/** The bounds of open runs (run starts without a final record), @monitor/jobs hung-runs.ts. */
export { MAX_OPEN_RUN_HOURS, MAX_OPEN_RUNS_READ };

/** Largest JSON request body of the monitor API, unless `maxBodyBytes` says otherwise: 1 MiB. */
export const DEFAULT_MONITOR_BODY_BYTES = 1024 * 1024;
/** The longest silence the /system page's buttons create (minutes): 7 days. */
export const MAX_PAGE_SILENCE_MINUTES = 7 * 24 * 60;
/** How deeply a request's JSON may nest; a run record needs 2 levels. */
export const MAX_MONITOR_JSON_DEPTH = 32;

/** Run records in one `POST /api/system/runs`: the whole batch is one INSERT, validated first. */
export const MAX_RUN_BATCH = 1000;

/** Collector names: registry keys, status cards and alert subjects. */
export const MAX_COLLECTOR_NAME_CHARS = 64;
export const COLLECTOR_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const COLLECTOR_NAME_CHARSET = "letters, digits, '.', '_' or '-', starting with a letter or digit";

/** Cloud account ids: AWS's 12 digits, Azure subscription GUIDs and OCI OCIDs (~90 characters) fit. */
export const MAX_ACCOUNT_ID_CHARS = 128;
export const ACCOUNT_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const ACCOUNT_ID_CHARSET = "letters, digits, '.', '_', ':' or '-', starting with a letter or digit";

/** Cloud regions (`us-east-1`, `europe-west1`, `southafricanorth`). */
export const MAX_REGION_CHARS = 64;
export const REGION_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const REGION_CHARSET = "letters, digits, '_' or '-', starting with a letter or digit";

/** A run's error text; `svcmon run` keeps the end of a longer stderr tail instead of sending it. */
export const MAX_RUN_ERROR_CHARS = 4096;

/** An account's display name; control characters are refused (it is shown on the page and in alerts). */
export const MAX_ACCOUNT_NAME_CHARS = 256;

/** `expected_interval_minutes` and `freshness_threshold_minutes`: at most one year. */
export const MAX_REGISTRY_MINUTES = 525_600;

/** Failed authentications (bearer token or `/system` login) one client address may make per window. */
export const AUTH_FAILURES_PER_ADDRESS = 20;
/** Failed authentications per credential prefix (its first 8 characters) per window. */
export const AUTH_FAILURES_PER_PREFIX = 50;
/** The throttle's window. */
export const AUTH_WINDOW_MS = 60_000;

/** Longest bearer token or login token compared at all; longer ones fail before hashing. */
export const MAX_CREDENTIAL_CHARS = 1024;

/** `MONITOR_HEARTBEAT_URL` and `svcmon ping --url`: an http(s) URL at most this long. */
export const MAX_HEARTBEAT_URL_CHARS = 2048;
/** The reason a `/fail` ping carries (healthchecks keeps the first 10,000 bytes of a ping's body). */
export const MAX_HEARTBEAT_BODY_BYTES = 10_000;
/** How long one heartbeat ping may take before it is abandoned. */
export const HEARTBEAT_TIMEOUT_MS = 10_000;

/** The limits table rows of the monitor (docs/limits.md). */
export const MONITOR_LIMITS: LimitRow[] = [
  {
    area: "monitor",
    field: "body",
    limit: DEFAULT_MONITOR_BODY_BYTES,
    unit: "bytes",
    status: 413,
    note: "every JSON body of the monitor API and the /system login form; checked from Content-Length before reading and counted while reading",
    env: "MONITOR_MAX_BODY_BYTES",
  },
  {
    area: "monitor",
    field: "body",
    limit: MAX_MONITOR_JSON_DEPTH,
    unit: "levels",
    status: 422,
    note: "JSON nesting; keys named __proto__, constructor or prototype are refused anywhere (422)",
  },
  {
    area: "monitor",
    field: "body",
    limit: MAX_RUN_BATCH,
    unit: "items",
    status: 422,
    note: "run records per POST /api/system/runs; nothing of a larger batch is stored",
  },
  {
    area: "monitor",
    field: "collector",
    limit: MAX_COLLECTOR_NAME_CHARS,
    unit: "characters",
    status: 422,
    note: `run records and PUT /api/system/collectors/{name}; ${COLLECTOR_NAME_CHARSET}`,
  },
  {
    area: "monitor",
    field: "cloud_account_id",
    limit: MAX_ACCOUNT_ID_CHARS,
    unit: "characters",
    status: 422,
    note: `run records and PUT /api/system/accounts/{account_id} (account_id); ${ACCOUNT_ID_CHARSET}`,
  },
  {
    area: "monitor",
    field: "cloud_region",
    limit: MAX_REGION_CHARS,
    unit: "characters",
    status: 422,
    note: REGION_CHARSET,
  },
  {
    area: "monitor",
    field: "error",
    limit: MAX_RUN_ERROR_CHARS,
    unit: "characters",
    status: 422,
    note: "a run's error text; `svcmon run` keeps the last 4096 characters of stderr instead",
  },
  {
    area: "monitor",
    field: "account_name",
    limit: MAX_ACCOUNT_NAME_CHARS,
    unit: "characters",
    status: 422,
    note: "no control characters",
  },
  {
    area: "monitor",
    field: "expected_interval_minutes",
    limit: MAX_REGISTRY_MINUTES,
    unit: "minutes",
    status: 422,
    note: "one year, a positive integer; the same bound for freshness_threshold_minutes",
  },
  {
    area: "monitor",
    field: "schedule",
    limit: MAX_CRON_CHARS,
    unit: "characters",
    status: 422,
    note: "a cron expression (5 fields, or 6 with seconds) that runs at least once; instead of expected_interval_minutes",
  },
  {
    area: "monitor",
    field: "timezone",
    limit: MAX_TIMEZONE_CHARS,
    unit: "characters",
    status: 422,
    note: "an IANA time zone, read with schedule only",
  },
  {
    area: "monitor",
    field: "grace_minutes",
    limit: MAX_GRACE_MINUTES,
    unit: "minutes",
    status: 422,
    note: "one week; 0 or more, read with schedule only",
  },
  {
    area: "monitor",
    field: "max_duration_minutes",
    limit: MAX_REGISTRY_MINUTES,
    unit: "minutes",
    status: 422,
    note: "PUT /api/system/collectors/{name}: the longest a run may take before it is hung; optional (null: learned, else a default)",
  },
  {
    area: "monitor",
    field: "run start age",
    limit: MAX_OPEN_RUN_HOURS / 24,
    unit: "days",
    status: 0,
    note: "MAX_OPEN_RUN_HOURS (168): a start (POST /api/system/runs/start) with no final record is forgotten after this: neither shown running or hung nor alerted on",
  },
  {
    area: "monitor",
    field: "open runs",
    limit: MAX_OPEN_RUNS_READ,
    unit: "items",
    status: 0,
    note: "open runs (started, no final record) read per status evaluation or alert tick, newest start first; older ones beyond it are not shown",
  },
  {
    area: "monitor",
    field: "authorization",
    limit: AUTH_FAILURES_PER_ADDRESS,
    unit: "per minute",
    status: 429,
    note: "failed authentications per client address (bearer token of /api/system/* and the /system login together, and in npm start one budget with the search, customer and admin APIs); Retry-After says when to try again",
  },
  {
    area: "monitor",
    field: "authorization",
    limit: AUTH_FAILURES_PER_PREFIX,
    unit: "per minute",
    status: 429,
    note: "failed authentications per credential prefix (its first 8 characters), from any address; refuses further wrong tokens under it, never the correct one",
  },
  {
    area: "monitor",
    field: "silence reason",
    limit: SILENCE_REASON_MAX,
    unit: "characters",
    status: 422,
    note: "POST /api/system/silences and svcmon silence add (required), and the /system silence buttons (empty: a default reason)",
  },
  {
    area: "monitor",
    field: "silence author",
    limit: SILENCE_AUTHOR_MAX,
    unit: "characters",
    status: 422,
    note: 'POST /api/system/silences and svcmon silence add (the page\'s buttons sign as "the /system page")',
  },
  {
    area: "monitor",
    field: "silence subject matcher",
    limit: SILENCE_SUBJECT_MAX,
    unit: "characters",
    status: 422,
    note: "equal, prefix or regex value",
  },
  {
    area: "monitor",
    field: "silence subject regex",
    limit: SILENCE_REGEX_MAX_PATHS,
    unit: "items",
    status: 422,
    note: `backtracking paths on a ${SILENCE_REGEX_SUBJECT_CHARS}-character subject: the product of what each quantifier may take (*, +, {n,}: ${SILENCE_REGEX_SUBJECT_CHARS} + 1; ?: 2; {n,m}: m - n + 1, capped the same), summed over alternatives; two unbounded quantifiers fit, three (or seven {1,9999}) do not; no groups or backreferences`,
  },
  {
    area: "monitor",
    field: "silence ends_at",
    limit: SILENCE_MAX_DURATION_MS / 60_000,
    unit: "minutes",
    status: 422,
    note: "after it is created (30 days)",
  },
  {
    area: "monitor",
    field: "silences",
    limit: SILENCE_MAX_ACTIVE,
    unit: "items",
    status: 422,
    note: "active or pending at once; expire one first",
  },
  {
    area: "monitor",
    field: "minutes (/system silence buttons)",
    limit: MAX_PAGE_SILENCE_MINUTES,
    unit: "minutes",
    status: 422,
    note: "POST /system/silences; from 1 (7 days)",
  },
  {
    area: "monitor",
    field: "MONITOR_HEARTBEAT_URL",
    limit: MAX_HEARTBEAT_URL_CHARS,
    unit: "characters",
    status: 0,
    note: "http(s) only; refused at start (npm start, svcmon-alerts) and by `svcmon ping --url` (exit 2)",
    env: "MONITOR_HEARTBEAT_URL",
  },
  {
    area: "monitor",
    field: "heartbeat /fail body",
    limit: MAX_HEARTBEAT_BODY_BYTES,
    unit: "bytes",
    status: 0,
    note: "the reason of a failed alert-engine round or `svcmon ping --fail`; longer text is cut, each ping is abandoned after 10 s",
  },
  ...maintenanceLimits(),
];

/** The bounds of a maintenance window (`POST /api/system/maintenance`, `svcmon maintenance add`). */
function maintenanceLimits(): LimitRow[] {
  const row = (field: string, limit: number, unit: LimitRow["unit"], note: string): LimitRow => ({
    area: "monitor",
    field,
    limit,
    unit,
    status: 422,
    note,
  });
  return [
    row(
      "maintenance reason",
      MAINTENANCE_REASON_MAX,
      "characters",
      "POST /api/system/maintenance and svcmon maintenance add (required)",
    ),
    row(
      "maintenance author",
      MAINTENANCE_AUTHOR_MAX,
      "characters",
      "POST /api/system/maintenance and svcmon maintenance add (required)",
    ),
    row(
      "maintenance scope",
      MAINTENANCE_SCOPE_MAX,
      "items",
      "collectors or accounts named by one window (from 1), or {all: true}",
    ),
    row(
      "maintenance ends_at",
      MAINTENANCE_MAX_ONCE_MS / 60_000,
      "minutes",
      "a one-off window, after it is created (30 days)",
    ),
    row(
      "maintenance duration_minutes",
      MAINTENANCE_MAX_RECURRING_MINUTES,
      "minutes",
      "each occurrence of a recurring window, from 1 (24 hours)",
    ),
    row(
      "maintenance windows",
      MAINTENANCE_MAX_LIVE,
      "items",
      "active, pending or recurring at once; end one first",
    ),
  ];
}

/**
 * The characters of the monitor token (RFC 6750's b64token): the only tokens a bearer header carries
 * as Hono's `bearerAuth` reads it, so the monitor refuses at start a token made of others.
 */
export const MONITOR_TOKEN_CHARS = /^[A-Za-z0-9._~+/-]+=*$/;
export const MONITOR_TOKEN_RULE = "letters, digits and - . _ ~ + / (then = padding)";
