/**
 * LOCAL TEST DOUBLE of Alertmanager's API v2 alerts endpoints, written from its OpenAPI spec
 * (prometheus/alertmanager `api/v2/openapi.yaml`: `postableAlerts`, `gettableAlerts`) and its
 * handler (`api/v2/api.go` postAlertsHandler, `alert/alert.go` Validate and Merge, `alert/validate.go`):
 *
 * - `POST /api/v2/alerts` takes `postableAlerts`. A body that is not a JSON array of alerts with
 *   string label and annotation values and RFC 3339 times is refused as go-swagger refuses it:
 *   400 `{"code":400,"message":"parsing alerts body from \"\" failed, because …"}`; an alert
 *   without `labels` (required by the schema) gets 422 `{"code":602,"message":"labels in body is
 *   required"}` (the wording of those two is go-swagger's, approximated). Then, as Alertmanager
 *   does: a missing `startsAt` becomes `endsAt` (or now), a missing `endsAt` now + `resolve_timeout`
 *   (default 5 m), empty labels are dropped, and each alert is validated: start time missing, "start
 *   time must be before end time", "at least one label pair required", `invalid label set: invalid
 *   name "…"` (classic label names `[a-zA-Z_][a-zA-Z0-9_]*` by default, as in `classic-mode`; any
 *   non-empty UTF-8 with `labelNames: "utf8"`), `invalid annotations: …`. The valid alerts are stored
 *   even when others are not (best effort, like Alertmanager); any invalid one makes the answer 400
 *   with the errors as a JSON string, joined by newlines. Otherwise 200.
 * - Alerts are stored by their label-set fingerprint (FNV-1a 64 of the sorted label pairs, as
 *   `model.LabelSet.Fingerprint`); a post that overlaps a stored alert in time is merged with it
 *   (earliest start; the younger post's end, a later explicit end kept), otherwise it replaces it.
 * - `GET /api/v2/alerts` answers `gettableAlerts` as Alertmanager does: only alerts not yet resolved
 *   (`endsAt` in the future), `status.state` `active`, the receivers from `routes`; `filter` with
 *   `name="value"` / `name!="value"` matchers and `receiver` (a regex) narrow it.
 *   `stored()` (the double's own) lists every stored alert, resolved ones too, with `resolved`.
 *
 * No silences, inhibition or grouping: a test checks what reaches Alertmanager, not its pipeline.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

export interface AlertmanagerRoute {
  /** Every label must equal the value. */
  match: Record<string, string>;
  receiver: string;
}

export interface AlertmanagerDoubleOptions {
  /** Label name validation: `classic` (default, the strictest) or `utf8`. */
  labelNames?: "classic" | "utf8";
  /** `global.resolve_timeout`; default 5 minutes. */
  resolveTimeoutMs?: number;
  /** First matching route wins; else `defaultReceiver` (default `default`). */
  routes?: AlertmanagerRoute[];
  defaultReceiver?: string;
  /** The `authorization` header every request must carry (else 401), when set. */
  authorization?: string;
  now?: () => number;
}

export interface StoredAlert {
  fingerprint: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  updatedAt: string;
  generatorURL: string;
  /** `endsAt` is past: Alertmanager considers the alert resolved (and sends its resolve). */
  resolved: boolean;
  /** `endsAt` came from `resolve_timeout`, not from the sender. */
  timeout: boolean;
  receiver: string;
}

export interface AlertmanagerPost {
  status: number;
  body: unknown;
  /** The answer's text (an error's JSON). */
  answer: string;
  headers: Record<string, string>;
}

export interface AlertmanagerDouble {
  /** The base URL, as a channel is configured with it. */
  url: string;
  posts: AlertmanagerPost[];
  stored(): StoredAlert[];
  /** The next `n` POSTs get a redirect (`status`, default 307) to `location`. */
  redirectNext(n: number, location: string, status?: number): void;
  /** The next `n` POSTs get `status` (default 500) with `body`. */
  failNext(n: number, status?: number, body?: string): void;
  close(): Promise<void>;
}

const CLASSIC_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** `model.LabelSet.Fingerprint`: FNV-1a 64 over sorted `name 0xff value 0xff`, 16 hex digits. */
export function labelSetFingerprint(labels: Record<string, string>): string {
  let h = 0xcbf29ce484222325n;
  const add = (b: number) => {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  };
  for (const name of Object.keys(labels).sort()) {
    for (const b of Buffer.from(name, "utf8")) add(b);
    add(0xff);
    for (const b of Buffer.from(labels[name] as string, "utf8")) add(b);
    add(0xff);
  }
  return h.toString(16).padStart(16, "0");
}

interface Alert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: number;
  endsAt: number;
  updatedAt: number;
  generatorURL: string;
  timeout: boolean;
}

class ParseError extends Error {}
class SchemaError extends Error {}

function labelSetOf(v: unknown, what: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) {
    throw new ParseError(
      `json: cannot unmarshal ${Array.isArray(v) ? "array" : typeof v} into Go struct field ${what} of type models.LabelSet`,
    );
  }
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== "string") {
      throw new ParseError(
        `json: cannot unmarshal ${typeof val} into Go struct field ${what} of type string`,
      );
    }
    out[k] = val;
  }
  return out;
}

function timeOf(v: unknown): number {
  if (v === undefined || v === null || v === "") return 0;
  if (typeof v !== "string" || !DATE_TIME.test(v) || Number.isNaN(Date.parse(v))) {
    throw new ParseError(
      `parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05.000Z07:00": cannot parse`,
    );
  }
  return Date.parse(v);
}

/** The postableAlerts body → alerts, as go-swagger binds and validates it; throws Parse/SchemaError. */
function bind(body: unknown): Alert[] {
  if (!Array.isArray(body)) {
    throw new ParseError(`json: cannot unmarshal ${typeof body} into Go value of type models.PostableAlerts`);
  }
  return body.map((raw, i) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new ParseError(`json: cannot unmarshal ${typeof raw} into Go value of type models.PostableAlert`);
    }
    const r = raw as Record<string, unknown>;
    if (r.labels === undefined || r.labels === null) throw new SchemaError(`${i}.labels in body is required`);
    if (r.generatorURL !== undefined && typeof r.generatorURL !== "string") {
      throw new ParseError(
        `json: cannot unmarshal ${typeof r.generatorURL} into Go struct field .generatorURL of type strfmt.URI`,
      );
    }
    return {
      labels: labelSetOf(r.labels, ".labels"),
      annotations: labelSetOf(r.annotations, ".annotations"),
      startsAt: timeOf(r.startsAt),
      endsAt: timeOf(r.endsAt),
      updatedAt: 0,
      generatorURL: (r.generatorURL as string | undefined) ?? "",
      timeout: false,
    };
  });
}

function validateLs(ls: Record<string, string>, utf8: boolean): string | null {
  for (const [name, value] of Object.entries(ls)) {
    const ok = utf8 ? name !== "" && !/\p{Cs}/u.test(name) : CLASSIC_NAME.test(name);
    if (!ok) return `invalid name ${JSON.stringify(name)}`;
    if (/\p{Cs}/u.test(value)) return `invalid value ${JSON.stringify(value)}`;
  }
  return null;
}

/** `alert/alert.go` Validate. */
function validate(a: Alert, utf8: boolean): string | null {
  if (a.startsAt === 0) return "start time missing";
  if (a.endsAt !== 0 && a.endsAt < a.startsAt) return "start time must be before end time";
  if (Object.keys(a.labels).length === 0) return "at least one label pair required";
  const l = validateLs(a.labels, utf8);
  if (l !== null) return `invalid label set: ${l}`;
  const an = validateLs(a.annotations, utf8);
  if (an !== null) return `invalid annotations: ${an}`;
  return null;
}

const resolvedAt = (a: Alert, now: number) => a.endsAt !== 0 && a.endsAt <= now;

/** `alert/alert.go` Merge: `o` is the younger post. */
function merge(a: Alert, o: Alert, now: number): Alert {
  const res = { ...o, startsAt: Math.min(a.startsAt, o.startsAt) };
  if (resolvedAt(o, now)) {
    if (resolvedAt(a, now) && a.endsAt > o.endsAt) res.endsAt = a.endsAt;
  } else if (a.endsAt > o.endsAt && !a.timeout) res.endsAt = a.endsAt;
  return res;
}

export async function startAlertmanagerDouble(
  options: AlertmanagerDoubleOptions = {},
): Promise<AlertmanagerDouble> {
  const now = options.now ?? Date.now;
  const utf8 = options.labelNames === "utf8";
  const resolveTimeout = options.resolveTimeoutMs ?? 5 * 60_000;
  const store = new Map<string, Alert>();
  const posts: AlertmanagerPost[] = [];
  let redirects = 0;
  let redirectTo = "";
  let redirectStatus = 307;
  let failures = 0;
  let failStatus = 500;
  let failBody = "alertmanager double: told to fail";

  const receiverOf = (labels: Record<string, string>) =>
    options.routes?.find((r) => Object.entries(r.match).every(([k, v]) => labels[k] === v))?.receiver ??
    options.defaultReceiver ??
    "default";

  const app = new Hono();
  app.use("*", async (c, next) => {
    if (options.authorization !== undefined && c.req.header("authorization") !== options.authorization) {
      return c.text("Unauthorized\n", 401);
    }
    await next();
  });

  app.post("/api/v2/alerts", async (c) => {
    const text = await c.req.text();
    const post: AlertmanagerPost = { status: 0, body: undefined, answer: "", headers: c.req.header() };
    posts.push(post);
    const answer = (status: number, payload: unknown) => {
      post.status = status;
      post.answer = payload === undefined ? "" : JSON.stringify(payload);
      return payload === undefined
        ? c.body(null, status as 200)
        : c.body(post.answer, status as 400, { "content-type": "application/json" });
    };
    if (redirects > 0) {
      redirects--;
      post.status = redirectStatus;
      return c.redirect(redirectTo, redirectStatus as 307);
    }
    if (failures > 0) {
      failures--;
      post.status = failStatus;
      post.answer = failBody;
      return c.text(failBody, failStatus as 500);
    }
    let alerts: Alert[];
    try {
      post.body = JSON.parse(text);
      alerts = bind(post.body);
    } catch (err) {
      if (err instanceof SchemaError) return answer(422, { code: 602, message: err.message });
      return answer(400, {
        code: 400,
        message: `parsing alerts body from "" failed, because ${(err as Error).message}`,
      });
    }
    const t = now();
    for (const a of alerts) {
      a.updatedAt = t;
      if (a.startsAt === 0) a.startsAt = a.endsAt === 0 ? t : a.endsAt;
      if (a.endsAt === 0) {
        a.timeout = true;
        a.endsAt = t + resolveTimeout;
      }
    }
    const errors: string[] = [];
    for (const a of alerts) {
      for (const [k, v] of Object.entries(a.labels)) if (v === "") delete a.labels[k];
      const problem = validate(a, utf8);
      if (problem !== null) {
        errors.push(problem);
        continue;
      }
      const fp = labelSetFingerprint(a.labels);
      const old = store.get(fp);
      const overlaps =
        old !== undefined &&
        ((a.endsAt > old.startsAt && a.endsAt < old.endsAt) ||
          (a.startsAt > old.startsAt && a.startsAt < old.endsAt) ||
          (a.startsAt <= old.startsAt && a.endsAt >= old.endsAt));
      store.set(fp, old !== undefined && overlaps ? merge(old, a, t) : a);
    }
    return errors.length > 0 ? answer(400, errors.join("\n")) : answer(200, undefined);
  });

  app.get("/api/v2/alerts", (c) => {
    const t = now();
    const matchers: { name: string; eq: boolean; value: string }[] = [];
    for (const f of c.req.queries("filter") ?? []) {
      const m = /^\s*([^=!\s]+)\s*(!?=)\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(f.replace(/^\{|\}$/g, ""));
      if (m === null) return c.json({ code: 400, message: `bad matcher format: ${f}` }, 400);
      matchers.push({ name: m[1] as string, eq: m[2] === "=", value: JSON.parse(`"${m[3]}"`) as string });
    }
    const receiverParam = c.req.query("receiver");
    const receiverRe = receiverParam === undefined ? null : new RegExp(`^(?:${receiverParam})$`);
    const out = [...store.entries()]
      .filter(([, a]) => !resolvedAt(a, t))
      .filter(([, a]) => matchers.every((m) => ((a.labels[m.name] ?? "") === m.value) === m.eq))
      .filter(([, a]) => receiverRe === null || receiverRe.test(receiverOf(a.labels)))
      .map(([fp, a]) => ({
        labels: a.labels,
        annotations: a.annotations,
        startsAt: new Date(a.startsAt).toISOString(),
        endsAt: new Date(a.endsAt).toISOString(),
        updatedAt: new Date(a.updatedAt).toISOString(),
        generatorURL: a.generatorURL,
        fingerprint: fp,
        receivers: [{ name: receiverOf(a.labels) }],
        status: { state: "active", silencedBy: [], inhibitedBy: [], mutedBy: [] },
      }));
    return c.json(out);
  });

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    stored() {
      const t = now();
      return [...store.entries()].map(([fp, a]) => ({
        fingerprint: fp,
        labels: { ...a.labels },
        annotations: { ...a.annotations },
        startsAt: new Date(a.startsAt).toISOString(),
        endsAt: new Date(a.endsAt).toISOString(),
        updatedAt: new Date(a.updatedAt).toISOString(),
        generatorURL: a.generatorURL,
        resolved: resolvedAt(a, t),
        timeout: a.timeout,
        receiver: receiverOf(a.labels),
      }));
    },
    redirectNext(n, location, status = 307) {
      redirects = n;
      redirectTo = location;
      redirectStatus = status;
    },
    failNext(n, status = 500, body = "alertmanager double: told to fail") {
      failures = n;
      failStatus = status;
      failBody = body;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
