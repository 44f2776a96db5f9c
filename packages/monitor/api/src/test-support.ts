/**
 * Test helpers of the API tests. The routes' tests run on the in-memory run store (openMemoryStore),
 * which passes the same RunStore contract as the ClickHouse adapters (@monitor/core/contract/run-store);
 * tests of what only ClickHouse does open a chDB store (openTempStore).
 */

import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  type CollectorRunInput,
  InMemoryCollectorRegistry,
  InMemoryRunStore,
  type RunStore,
} from "@monitor/core";
import { createMonitorApp, type MonitorApiLogger, type MonitorAppDeps } from "./app.ts";

export { openTempStore } from "@monitor/clickhouse/test-support/temp-store";

/** An empty in-memory run store, in the shape openTempStore hands out. */
export async function openMemoryStore(
  _prefix?: string,
): Promise<{ store: InMemoryRunStore; cleanup(): Promise<void> }> {
  const store = new InMemoryRunStore();
  return { store, cleanup: () => store.close() };
}

/**
 * A fault-injecting wrapper of a real store: while `hang` is on, every call returns a promise that
 * never settles (a database that accepted the connection and went silent).
 */
export function hangingStore(real: RunStore): RunStore & { hang: boolean } {
  const state = { hang: true };
  const wrapper = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === "hang") return state.hang;
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) =>
        state.hang ? new Promise(() => {}) : (v as (...a: unknown[]) => unknown).apply(target, args);
    },
    set(_target, prop, value) {
      if (prop === "hang") {
        state.hang = Boolean(value);
        return true;
      }
      return false;
    },
  });
  return wrapper as RunStore & { hang: boolean };
}

export const TOKEN = "test-token-0123456789";
export const MIN = 60_000;

export interface Logged {
  level: "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown> | undefined;
}

export function memoryLog(): MonitorApiLogger & { lines: Logged[] } {
  const lines: Logged[] = [];
  return {
    lines,
    info: (message, fields) => lines.push({ level: "info", message, fields }),
    warn: (message, fields) => lines.push({ level: "warn", message, fields }),
    error: (message, fields) => lines.push({ level: "error", message, fields }),
  };
}

export function makeApp(
  deps: Partial<MonitorAppDeps> & Pick<MonitorAppDeps, "store">,
): ReturnType<typeof createMonitorApp> {
  return createMonitorApp({
    registry: new InMemoryCollectorRegistry(),
    token: TOKEN,
    log: memoryLog(),
    now: () => Date.now(),
    ...deps,
  });
}

export interface Call {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON replies loosely
  body: any;
}

/** `app.request` with the token (unless `token: null`) and a JSON body. */
export async function call(
  app: { request: (path: string, init?: RequestInit) => Response | Promise<Response> },
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string; token?: string | null } = {},
): Promise<Call> {
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? TOKEN : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

let seq = 0;
/** A distinct UUID per call within a test file (`tag` keeps files apart). */
export function uuid(tag: number): string {
  seq += 1;
  return `00000000-0000-4${tag.toString(16).padStart(3, "0")}-8000-${seq.toString(16).padStart(12, "0")}`;
}

/** A run record for the API (ISO timestamps), completed at `at`. */
export function runAt(at: number, p: Partial<Record<keyof CollectorRunInput, unknown>> = {}) {
  return {
    collector: "config_ec2",
    cloud_account_id: "111111111111",
    cloud_region: "us-east-1",
    started_at: new Date(at - 2000).toISOString(),
    completed_at: new Date(at).toISOString(),
    status: "succeeded",
    events_produced: 10,
    rows_inserted: 5,
    ...p,
  };
}

/** Stores each account through the API (`PUT /api/system/accounts/{id}`); throws on any answer but 200. */
export async function putAccounts(
  app: Parameters<typeof call>[0],
  accounts: readonly (readonly [id: string, name: string, svcStatus: string])[],
): Promise<void> {
  for (const [id, account_name, svc_status] of accounts) {
    const r = await call(app, "PUT", `/api/system/accounts/${id}`, { body: { account_name, svc_status } });
    if (r.status !== 200) throw new Error(`PUT account ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

/** The app served over real HTTP on 127.0.0.1 (a free port), as a browser reaches it. */
export async function serveOnLoopback(app: {
  fetch: (req: Request) => Response | Promise<Response>;
}): Promise<{ base: string; close(): Promise<void> }> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
