import type { InMemoryRunStore } from "@monitor/core";
/**
 * The routes of the server-rendered /system page over `app.request` (no browser): the page arrives
 * with its data and a strict nonce CSP, the client script route, and `POST /system/silences` (the
 * silence buttons) with its origin, CSRF-token and session checks, also behind a TLS proxy and
 * across instances sharing the session keys.
 */

import { InMemoryCollectorRegistry, InMemorySilenceStore } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, makeApp, openMemoryStore, TOKEN } from "../test-support.ts";
import { CLIENT_JS } from "./client-bundle.gen.ts";
import { CLIENT_SCRIPT_PATH } from "./routes.ts";

let store: InMemoryRunStore;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-page-routes-");
  store = t.store;
  cleanup = t.cleanup;
});

afterAll(async () => {
  await cleanup();
});

const ORIGIN = "http://monitor.internal";
const KEYS = ["k".repeat(40)];

function app(silences = new InMemorySilenceStore(), trustProxy = false) {
  return makeApp({
    store,
    registry: new InMemoryCollectorRegistry([
      { name: "config_ec2", expected_interval_minutes: 15, freshness_threshold_minutes: 30 },
    ]),
    silences,
    sessionKeys: KEYS,
    trustProxy,
  });
}

async function session(a: ReturnType<typeof app>): Promise<{ cookie: string; csrf: string; html: string }> {
  const login = await a.request(`${ORIGIN}/system/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: TOKEN }).toString(),
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await a.request(`${ORIGIN}/system`, { headers: { cookie } });
  expect(page.status).toBe(200);
  const html = await page.text();
  const state = JSON.parse(
    /<script type="application\/json" id="page-state">(.*?)<\/script>/s.exec(html)?.[1] ?? "{}",
  );
  return { cookie, csrf: state.csrf as string, html };
}

const errorOf = async (r: Response) =>
  ((await r.json()) as { error: { code: string; details?: { path: string }[] } }).error;

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe("GET /system: served with its data", () => {
  it("holds the verdict, the cards and data-loaded; a nonce CSP for the inline style and the client script", async () => {
    const a = app();
    const { cookie, html } = await session(a);
    expect(html).toContain('<p id="overall">Overall: ');
    expect(html).toContain('id="collector-config_ec2"');
    expect(html).toMatch(/<body data-loaded="\d{4}-\d\d-\d\dT[^"]+Z">/);
    const res = await a.request(`${ORIGIN}/system`, { headers: { cookie } });
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    const body = await res.text();
    expect(body).toContain(`<script nonce="${nonce}" src="${CLIENT_SCRIPT_PATH}" defer="">`);
    expect(body).toContain(`<style nonce="${nonce}">`);
    // No other script runs: the state is JSON, not code.
    expect(body.match(/<script/g)).toHaveLength(2);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("the client script: JavaScript, cached for good under its hash; another name is 404", async () => {
    const a = app();
    const res = await a.request(`${ORIGIN}${CLIENT_SCRIPT_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await res.text()).toBe(CLIENT_JS);
    expect((await a.request(`${ORIGIN}/system/assets/client-0000000000000000.js`)).status).toBe(404);
  });
});

describe("POST /system/silences", () => {
  const fields = { rule: "dead_letter_queue", subject: "ingest-dlq", minutes: "60", reason: "replaying" };

  it("with the session, its CSRF token and this origin: 201 (fetch) or 303 (a plain form)", async () => {
    const silences = new InMemorySilenceStore();
    const a = app(silences);
    const { cookie, csrf } = await session(a);
    const json = await a.request(`${ORIGIN}/system/silences`, {
      method: "POST",
      headers: {
        cookie,
        origin: ORIGIN,
        accept: "application/json",
        "x-csrf-token": csrf,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form(fields),
    });
    expect(json.status).toBe(201);
    expect(await json.json()).toMatchObject({
      matchers: { rule: "dead_letter_queue", subject: { op: "eq", value: "ingest-dlq" } },
      author: "the /system page",
      reason: "replaying",
      state: "active",
    });
    // Without the script: the form's own csrf field, and back to the page.
    const plain = await a.request(`${ORIGIN}/system/silences`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
      body: form({ ...fields, reason: "", minutes: "1440", csrf }),
    });
    expect(plain.status).toBe(303);
    expect(plain.headers.get("location")).toBe("/system#h-silences");
    const list = await silences.list();
    expect(list.map((s) => s.reason)).toEqual(["replaying", "silenced for 24 h from the /system page"]);
  });

  it("refuses another origin, a missing or wrong token, no session, and a bad duration; nothing stored", async () => {
    const silences = new InMemorySilenceStore();
    const a = app(silences);
    const { cookie, csrf } = await session(a);
    const post = (headers: Record<string, string>, body = form({ ...fields, csrf })) =>
      a.request(`${ORIGIN}/system/silences`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
      });
    const cross = await post({ cookie, origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect((await errorOf(cross)).code).toBe("forbidden");
    // Same host, other scheme: another origin (no proxy trusted).
    expect((await post({ cookie, origin: "https://monitor.internal" })).status).toBe(403);
    const noToken = await post({ cookie, origin: ORIGIN }, form(fields));
    expect(noToken.status).toBe(403);
    expect((await errorOf(noToken)).code).toBe("csrf_token_invalid");
    expect((await post({ cookie, origin: ORIGIN }, form({ ...fields, csrf: `${csrf}x` }))).status).toBe(403);
    expect((await post({ origin: ORIGIN })).status).toBe(401);
    const bad = await post({ cookie, origin: ORIGIN }, form({ ...fields, minutes: "0", csrf }));
    expect(bad.status).toBe(422);
    expect((await errorOf(bad)).details?.[0]?.path).toBe("minutes");
    // A bad matcher is refused by the API's own checks.
    expect((await post({ cookie, origin: ORIGIN }, form({ ...fields, rule: "nope", csrf }))).status).toBe(
      422,
    );
    expect(await silences.list()).toEqual([]);
    // The bearer API is unchanged, and a session still cannot write through it.
    expect((await call(a, "GET", "/api/system/silences")).body.silences).toEqual([]);
    const viaApi = await a.request(`${ORIGIN}/api/system/silences`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({
        matchers: { rule: "dead_letter_queue" },
        author: "x",
        reason: "y",
        ends_at: Date.now() + 60_000,
      }),
    });
    expect(viaApi.status).toBe(401);
  });

  it("behind a trusted TLS proxy the scheme is not compared; a token works on another instance with the keys", async () => {
    const silences = new InMemorySilenceStore();
    const a = app(silences, true);
    const { cookie, csrf } = await session(a);
    const other = app(silences, true);
    const res = await other.request(`${ORIGIN}/system/silences`, {
      method: "POST",
      headers: {
        cookie,
        origin: "https://monitor.internal",
        "x-forwarded-proto": "https",
        "x-csrf-token": csrf,
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form(fields),
    });
    expect(res.status).toBe(201);
  });

  it("does not exist without a silence store, and the page then has no silence buttons", async () => {
    const a = makeApp({ store, sessionKeys: KEYS });
    const { html } = await session(a as ReturnType<typeof app>);
    expect(html).not.toContain('class="silence"');
    const res = await a.request(`${ORIGIN}/system/silences`, { method: "POST", headers: { origin: ORIGIN } });
    expect([404, 405]).toContain(res.status);
  });
});
