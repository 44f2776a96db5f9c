// The OpenAPI 3.1 document of the monitor's routes (docs/monitor-api.md, docs/monitor-page.md),
// served at GET /api/system/openapi.json behind the monitor token like every /api/system route.
// Hand-written to say what the routes do; a test walks the registered routes and fails on any
// route missing here. Bounds come from @monitor/core's limits.ts.
import {
  DEFAULT_MONITOR_BODY_BYTES,
  HEALTH_STATES,
  MAX_ACCOUNT_ID_CHARS,
  MAX_ACCOUNT_NAME_CHARS,
  MAX_COLLECTOR_NAME_CHARS,
  MAX_REGION_CHARS,
  MAX_REGISTRY_MINUTES,
  MAX_RUN_BATCH,
  MAX_RUN_ERROR_CHARS,
  MONITOR_LIMITS,
  REGISTERED_BY,
  SILENCE_AUTHOR_MAX,
  SILENCE_MAX_ACTIVE,
  SILENCE_REASON_MAX,
  SILENCE_SUBJECT_MAX,
} from "@monitor/core";

const json = (schema: object) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: json(ref("Error")) });
const ok = (description: string, schema: object = { type: "object" }) => ({
  description,
  content: json(schema),
});
const html = (description: string) => ({
  description,
  content: { "text/html": { schema: { type: "string" } } },
});
const bearer = { security: [{ monitorToken: [] }, { pageSession: [] }] };
const common = {
  "401": error("Missing or wrong token."),
  "429": error("Too many failed authentications from this client; Retry-After says when to retry."),
  "503": error("The analytics database is unavailable (analytics_db_unavailable)."),
};
const e507 = error(
  "No space left on the device (no_space_left_on_device): nothing was stored; free disk space and send it again. Reads keep working.",
);
const writes = {
  ...common,
  "413": error(`Body larger than ${DEFAULT_MONITOR_BODY_BYTES} bytes (MONITOR_MAX_BODY_BYTES).`),
  "422": error("A field is invalid or over its limit; details name it; nothing is stored."),
  "507": e507,
};
const param = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
const metricsGet = {
  get: {
    ...bearer,
    summary:
      "Prometheus metrics (text exposition 0.0.4): collectors, accounts, queues, analytics database, firing alerts (from the status evaluation) and the process's own metrics.",
    responses: {
      "200": {
        description:
          "The metrics (docs/monitor-api.md#metrics). Also 200 with svcmon_analytics_db_up 0 when the database is unavailable.",
        content: { "text/plain; version=0.0.4; charset=utf-8": { schema: { type: "string" } } },
      },
      "401": common["401"],
      "429": common["429"],
    },
  },
};
const statusGet = {
  get: {
    ...bearer,
    summary: "Collector health, account coverage, analytics database, queues, alerts, own cost.",
    responses: { "200": ok("The status body (docs/monitor-api.md).", ref("Status")), ...common },
  },
};

export const monitorOpenApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Cost-analytics self-monitoring API",
    version: "1.0.0",
    description:
      'Every /api/system route needs Authorization: Bearer <MONITOR_TOKEN> (or the /system page session for reads). Errors answer {"error": {"code", "message", "details"?}}. A path no route serves answers 404; a path served for other methods answers 405 with Allow. Bounds: x-limits (docs/limits.md).',
  },
  "x-limits": MONITOR_LIMITS,
  components: {
    securitySchemes: {
      monitorToken: { type: "http", scheme: "bearer", description: "MONITOR_TOKEN." },
      pageSession: {
        type: "apiKey",
        in: "cookie",
        name: "svcmon_session",
        description: "The /system login session (reads only).",
      },
    },
    schemas: {
      Error: {
        type: "object",
        required: ["error"],
        properties: {
          error: {
            type: "object",
            required: ["code", "message"],
            properties: {
              code: { type: "string" },
              message: { type: "string" },
              details: {
                type: "array",
                items: {
                  type: "object",
                  properties: { path: { type: "string" }, message: { type: "string" } },
                },
              },
            },
          },
        },
      },
      RunRecord: {
        type: "object",
        required: ["collector", "cloud_account_id", "cloud_region", "started_at", "completed_at", "status"],
        properties: {
          run_id: { type: "string", format: "uuid" },
          collector: { type: "string", maxLength: MAX_COLLECTOR_NAME_CHARS },
          cloud_account_id: { type: "string", maxLength: MAX_ACCOUNT_ID_CHARS },
          cloud_region: { type: "string", maxLength: MAX_REGION_CHARS },
          started_at: { type: "string", format: "date-time" },
          completed_at: { type: "string", format: "date-time" },
          status: { enum: ["succeeded", "failed", "partial"] },
          events_produced: { type: "integer", minimum: 0, maximum: 4294967295 },
          rows_inserted: { type: "integer", minimum: 0, maximum: 4294967295 },
          error: { type: "string", maxLength: MAX_RUN_ERROR_CHARS },
          duration_ms: { type: "integer", minimum: 0, maximum: 4294967295 },
        },
      },
      Health: {
        enum: [...HEALTH_STATES],
        description:
          "new: never ran, registered at most 2 × the expected interval ago, or gated while its upstream collectors are new (waiting; never alerted on). " +
          "green, amber, red: docs/monitor-rules.md. red is the collector_stale alert.",
      },
      CollectorStatus: {
        type: "object",
        required: ["name", "last_run", "status", "minutes_ago", "health"],
        properties: {
          name: { type: "string" },
          last_run: { type: ["string", "null"], format: "date-time", description: "null: never ran." },
          status: { enum: ["succeeded", "failed", "partial", null] },
          minutes_ago: { type: ["integer", "null"] },
          health: ref("Health"),
          registered_at: {
            type: ["string", "null"],
            format: "date-time",
            description:
              "When the registry first knew the collector; kept across restarts and re-registrations.",
          },
          new_until: {
            type: ["string", "null"],
            format: "date-time",
            description:
              "While health is new: the end of its grace; with no run by then, red. Otherwise null.",
          },
          registered_by: {
            enum: [...REGISTERED_BY, null],
            description:
              "How it came into the registry: config (configured), api (PUT /api/system/collectors/{name}), " +
              "first_run (registered by the first run of an unknown collector, with the deployment's defaults: " +
              "AUTO_REGISTER_INTERVAL_MINUTES, AUTO_REGISTER_FRESHNESS_MINUTES; adjust it with PUT or remove it with DELETE). null: unknown.",
          },
        },
      },
      NewAccount: {
        type: "object",
        required: ["account_id", "account_name", "first_active_at", "new_until"],
        description:
          "An active account never scanned, within 24 h of its first active version: not unscanned yet.",
        properties: {
          account_id: { type: "string" },
          account_name: { type: "string" },
          first_active_at: { type: "string", format: "date-time" },
          new_until: { type: "string", format: "date-time" },
        },
      },
      MutedBy: {
        description:
          "What holds a muted alert back: another alert that is its cause (kind alert; e.g. an account in no_access mutes the collector failures in it), or a silence (kind silence; notified when it ends if still firing).",
        oneOf: [
          {
            type: "object",
            required: ["kind", "rule", "subject", "fingerprint"],
            properties: {
              kind: { enum: ["alert"] },
              rule: { type: "string" },
              subject: { type: "string" },
              fingerprint: { type: "string", pattern: "^[0-9a-f]{16}$" },
            },
          },
          {
            type: "object",
            required: ["kind", "id", "author", "reason", "endsAt"],
            properties: {
              kind: { enum: ["silence"] },
              id: { type: "string" },
              author: { type: "string" },
              reason: { type: "string" },
              endsAt: { type: "integer", description: "When the silence ends (epoch ms)." },
            },
          },
        ],
      },
      SilenceMatchers: {
        type: "object",
        description: "Both set: both must hold. At least one of rule and subject.",
        properties: {
          rule: { oneOf: [{ type: "string" }, { type: "null" }], description: "An alert rule; null: any." },
          subject: {
            oneOf: [
              { type: "string", description: "Equal to this subject." },
              {
                type: "object",
                required: ["op", "value"],
                properties: {
                  op: { enum: ["eq", "prefix", "regex"], description: "regex matches the whole subject." },
                  value: { type: "string", maxLength: SILENCE_SUBJECT_MAX },
                },
              },
              { type: "null" },
            ],
          },
        },
      },
      Silence: {
        type: "object",
        required: ["id", "matchers", "author", "reason", "starts_at", "ends_at", "created_at", "state"],
        properties: {
          id: { type: "string" },
          matchers: ref("SilenceMatchers"),
          author: { type: "string" },
          reason: { type: "string" },
          starts_at: { type: "string", format: "date-time" },
          ends_at: { type: "string", format: "date-time" },
          created_at: { type: "string", format: "date-time" },
          state: { enum: ["active", "pending", "expired"] },
        },
      },
      Alert: {
        type: "object",
        required: [
          "rule",
          "subject",
          "severity",
          "since",
          "notified",
          "fingerprint",
          "summary",
          "last_error",
          "muted",
          "muted_by",
          "reason",
        ],
        description:
          "A firing alert of the alert engine's stored state, muted ones included (docs/monitor-alerts.md).",
        properties: {
          rule: { type: "string" },
          subject: { type: "string" },
          severity: { enum: ["warning", "critical"] },
          since: { type: "string", format: "date-time", description: "When it started firing." },
          notified: { type: "boolean", description: "Its start notification was confirmed delivered." },
          fingerprint: {
            type: "string",
            pattern: "^[0-9a-f]{16}$",
            description: "The stable key its notifications carry (a hash of rule and subject).",
          },
          summary: { type: "string", description: "One line: why it fires." },
          last_error: {
            type: ["string", "null"],
            description: "The last error text of the failing collector behind it; null when none is known.",
          },
          muted: {
            type: "boolean",
            description: "Held back: stored and shown here, never notified while muted.",
          },
          muted_by: { oneOf: [ref("MutedBy"), { type: "null" }] },
          reason: {
            type: ["string", "null"],
            description: "Why it is muted, in words; null when not muted.",
          },
        },
      },
      Status: {
        type: "object",
        required: ["collectors", "accounts", "analytics_db"],
        properties: {
          collectors: { type: "array", items: ref("CollectorStatus") },
          accounts: { type: "object" },
          analytics_db: { type: "object" },
          generated_at: { type: "string", format: "date-time" },
          overall_health: {
            ...ref("Health"),
            description:
              "The worst collector health, new counting below green: waiting for first runs never makes the system unhealthy (new only when every collector is new).",
          },
          unscanned_accounts: { type: "array", items: { type: "object" } },
          new_accounts: { type: "array", items: ref("NewAccount") },
          warnings: { type: "array", items: { type: "object" } },
          alerts: { type: "array", items: ref("Alert") },
          queues: { type: "array", items: { type: "object" } },
          triage: {
            type: "array",
            description:
              "Per red or amber collector (red first): reasons, since (its last success, else its registration), last_error and last_error_at, at_fault (accounts and regions whose latest run did not succeed), runs {href, command}.",
            items: {
              type: "object",
              required: ["collector", "health", "since", "last_error", "at_fault", "runs"],
              properties: {
                collector: { type: "string" },
                health: { enum: ["red", "amber"] },
                reasons: { type: "array", items: { type: "string" } },
                since: { type: ["string", "null"], format: "date-time" },
                last_success_at: { type: ["string", "null"], format: "date-time" },
                last_error: { type: ["string", "null"] },
                last_error_at: { type: ["string", "null"], format: "date-time" },
                at_fault: { type: "array", items: { type: "object" } },
                runs: {
                  type: "object",
                  properties: { href: { type: "string" }, command: { type: "string" } },
                },
              },
            },
          },
        },
      },
      RegisteredCollector: {
        type: "object",
        required: ["name", "expected_interval_minutes", "freshness_threshold_minutes"],
        properties: {
          name: { type: "string" },
          expected_interval_minutes: { type: "integer" },
          freshness_threshold_minutes: { type: "integer" },
          registered_at: { type: ["string", "null"], format: "date-time" },
          registered_by: { enum: [...REGISTERED_BY, null] },
        },
      },
    },
  },
  paths: {
    "/healthz": {
      get: {
        security: [],
        summary: "Liveness (no authentication).",
        responses: { "200": ok('{"status": "ok"}') },
      },
    },
    "/api/system/openapi.json": {
      get: {
        ...bearer,
        summary: "This document.",
        responses: { "200": ok("The OpenAPI document."), ...common },
      },
    },
    "/api/system/runs": {
      post: {
        ...bearer,
        summary: "Store collector run records (one or an array); a run_id sent twice is stored once.",
        requestBody: {
          required: true,
          content: json({
            oneOf: [ref("RunRecord"), { type: "array", items: ref("RunRecord"), maxItems: MAX_RUN_BATCH }],
          }),
        },
        description:
          "A started_at or completed_at more than MAX_CLOCK_SKEW_S (default 900 s) ahead of the server clock is refused (422 naming the field and the skew; nothing stored). " +
          "The first run of a collector the registry does not know registers it (registered_by first_run), unless AUTO_REGISTER=0.",
        responses: {
          "201": ok("{received, stored, duplicates, registered}", {
            type: "object",
            required: ["received", "stored", "duplicates"],
            properties: {
              received: { type: "integer" },
              stored: { type: "integer" },
              duplicates: { type: "array", items: { type: "string" } },
              registered: {
                type: "array",
                items: { type: "string" },
                description: "Collectors registered by these runs (first_run); [] when none.",
              },
            },
          }),
          ...writes,
        },
      },
      get: {
        ...bearer,
        summary:
          "The recent runs of one collector, newest first (optionally of one account and region): the triage link of the /system page.",
        parameters: [
          {
            name: "collector",
            in: "query",
            required: true,
            schema: { type: "string", maxLength: MAX_COLLECTOR_NAME_CHARS },
          },
          {
            name: "limit",
            in: "query",
            required: false,
            description: "How many runs (default 20).",
            schema: { type: "integer", minimum: 1, maximum: 200 },
          },
          {
            name: "account",
            in: "query",
            required: false,
            schema: { type: "string", maxLength: MAX_ACCOUNT_ID_CHARS },
          },
          {
            name: "region",
            in: "query",
            required: false,
            schema: { type: "string", maxLength: MAX_REGION_CHARS },
          },
        ],
        responses: {
          "200": ok("{collector, runs: [...]}, each run with ISO 8601 times.", {
            type: "object",
            required: ["collector", "runs"],
            properties: { collector: { type: "string" }, runs: { type: "array", items: ref("RunRecord") } },
          }),
          "422": error("collector missing or invalid, or limit out of range; details name it."),
          ...common,
        },
      },
    },
    "/api/system/accounts/{account_id}": {
      put: {
        ...bearer,
        summary: "A new version of a monitored account's record.",
        parameters: [param("account_id", `1 to ${MAX_ACCOUNT_ID_CHARS} characters.`)],
        requestBody: {
          required: true,
          content: json({
            type: "object",
            properties: {
              account_name: { type: "string", maxLength: MAX_ACCOUNT_NAME_CHARS },
              svc_status: { enum: ["active", "pending_setup", "no_access"] },
            },
          }),
        },
        responses: { "200": ok("The stored account row."), ...writes },
      },
    },
    "/api/system/accounts": {
      get: {
        ...bearer,
        summary:
          "Accounts counted and listed by status; never-scanned active accounts within 24 h in new_accounts.",
        responses: { "200": ok("Coverage."), ...common },
      },
    },
    "/api/system/collectors": {
      get: {
        ...bearer,
        summary: "The collector registry, with when and how each collector was registered.",
        responses: {
          "200": ok("Registered collectors.", {
            type: "object",
            properties: { collectors: { type: "array", items: ref("RegisteredCollector") } },
          }),
          ...common,
        },
      },
    },
    "/api/system/collectors/{name}": {
      put: {
        ...bearer,
        summary: "Register or adjust a collector (expected interval, freshness threshold).",
        parameters: [param("name", `1 to ${MAX_COLLECTOR_NAME_CHARS} characters.`)],
        requestBody: {
          required: true,
          content: json({
            type: "object",
            properties: {
              expected_interval_minutes: { type: "integer", minimum: 1, maximum: MAX_REGISTRY_MINUTES },
              freshness_threshold_minutes: { type: "integer", minimum: 1, maximum: MAX_REGISTRY_MINUTES },
            },
          }),
        },
        responses: { "200": ok("The registry entry."), ...writes },
      },
      delete: {
        ...bearer,
        summary:
          "Remove a collector from the registry (and its registration); its runs stay. A later run registers it again (first_run) unless AUTO_REGISTER=0.",
        parameters: [param("name", `1 to ${MAX_COLLECTOR_NAME_CHARS} characters.`)],
        responses: {
          "200": ok('{"name", "deleted": true}'),
          "404": error("No such collector in the registry (not_found)."),
          "409": error(
            "A configured collector; the configuration would bring it back (configured_collector).",
          ),
          ...common,
          "507": e507,
        },
      },
    },
    "/api/system/silences": {
      post: {
        ...bearer,
        summary: `Create a silence: alerts matching its rule and subject are muted (not notified) from starts_at until ends_at (at most 30 days ahead; at most ${SILENCE_MAX_ACTIVE} not ended). A still-firing alert is notified when it ends.`,
        requestBody: {
          required: true,
          content: json({
            type: "object",
            required: ["matchers", "author", "reason", "ends_at"],
            properties: {
              matchers: ref("SilenceMatchers"),
              author: { type: "string", minLength: 1, maxLength: SILENCE_AUTHOR_MAX },
              reason: { type: "string", minLength: 1, maxLength: SILENCE_REASON_MAX },
              starts_at: {
                oneOf: [{ type: "string", format: "date-time" }, { type: "integer" }],
                description: "Default: now.",
              },
              ends_at: { oneOf: [{ type: "string", format: "date-time" }, { type: "integer" }] },
            },
          }),
        },
        responses: { "201": ok("The silence created.", ref("Silence")), ...writes },
      },
      get: {
        ...bearer,
        summary:
          "Silences not yet ended (active or pending); with all=true also those ended in the last 5 days.",
        parameters: [{ name: "all", in: "query", required: false, schema: { enum: ["true", "false"] } }],
        responses: {
          "200": ok("Silences, by creation time.", {
            type: "object",
            properties: {
              generated_at: { type: "string", format: "date-time" },
              silences: { type: "array", items: ref("Silence") },
            },
          }),
          ...common,
        },
      },
    },
    "/api/system/silences/{id}": {
      delete: {
        ...bearer,
        summary:
          "Expire a silence now (it stays listed with all=true); its alerts, if still firing, are notified at the next evaluation.",
        parameters: [param("id", "The silence's id.")],
        responses: {
          "200": ok("The silence as expired.", ref("Silence")),
          "404": error("No silence with that id (not_found)."),
          ...common,
          "507": e507,
        },
      },
    },
    "/api/system/collectors/failures": {
      get: {
        ...bearer,
        summary:
          "Failures per collector per day over 7 days, each collector's latest run and its latest 40 runs oldest first (recent_runs: completed_at, status, duration_ms), for the page's cards.",
        responses: { "200": ok("Failure counts and latest runs."), ...common },
      },
    },
    "/api/system/status": statusGet,
    "/api/v1/system/status": statusGet,
    "/metrics": metricsGet,
    "/api/system/metrics": metricsGet,
    "/api/system/freshness": {
      get: {
        ...bearer,
        summary: "Collectors over their freshness threshold, oldest first (seed 3.2).",
        responses: { "200": ok("The freshness list."), ...common },
      },
    },
    "/system": {
      get: {
        security: [{ pageSession: [] }],
        summary: "The status page (redirects to /system/login without a session).",
        responses: { "200": html("The page."), "303": { description: "To /system/login." } },
      },
    },
    "/system/login": {
      get: { security: [], summary: "The login form.", responses: { "200": html("The form.") } },
      post: {
        security: [],
        summary: "Log in with the monitor token (form field token).",
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: { type: "object", properties: { token: { type: "string" } } },
            },
          },
        },
        responses: {
          "303": {
            description:
              "Logged in: session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS), to /system.",
          },
          "401": html("Wrong token: the form again."),
          "413": error(`Form larger than ${DEFAULT_MONITOR_BODY_BYTES} bytes.`),
          "429": html("Too many wrong tokens from this address: the form saying how long to wait."),
        },
      },
    },
    "/system/logout": {
      post: {
        security: [],
        summary: "End the session.",
        responses: { "303": { description: "To /system/login." } },
      },
    },
    "/system/silences": {
      post: {
        security: [{ pageSession: [] }],
        summary:
          "The page's silence buttons: a silence of one alert (rule and subject) for `minutes` (1 to 10080, default 60), with an optional reason. Needs the session's CSRF token (header X-CSRF-Token or form field csrf) and, when an Origin is sent, this origin. Only with a silence store.",
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: {
                type: "object",
                properties: {
                  rule: { type: "string" },
                  subject: { type: "string" },
                  minutes: { type: "string" },
                  reason: { type: "string" },
                  csrf: { type: "string" },
                },
              },
            },
          },
        },
        responses: {
          "201": ok("The silence (with Accept: application/json).", ref("Silence")),
          "303": { description: "To /system (a form posted without the page's script)." },
          "401": error("No session (unauthorized)."),
          "403": error("Another origin (forbidden), or a missing or wrong CSRF token (csrf_token_invalid)."),
          "422": error("The silence is invalid; nothing was stored (validation_failed)."),
          "507": e507,
        },
      },
    },
    "/system/assets/{file}": {
      get: {
        security: [],
        summary:
          "The page's client script, client-<hash>.js (cached for good: the name changes with the content); any other name is 404.",
        responses: { "200": { description: "JavaScript." }, "404": error("No such asset (not_found).") },
      },
    },
  },
} as const;
