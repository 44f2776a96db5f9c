/**
 * Test helpers of the API tests. Nothing here stands in for the run store: tests run on real chDB.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CollectorSpec, DEFAULT_COLLECTORS, type RegisteredBy } from "@svcmon/core";
import { type ClickHouseRunStore, openChdbRunStore } from "../clickhouse-run-store.ts";
import type { CollectorRegistry } from "../registry.ts";
import type { CollectorRunInput, RunStore } from "../run-store.ts";
import { createMonitorApp, type MonitorApiLogger, type MonitorAppDeps } from "./app.ts";

/**
 * An in-memory CollectorRegistry seeded with DEFAULT_COLLECTORS. The port is three methods; the
 * ClickHouse registry has its own contract tests. With `now`, it registers like the ClickHouse one: a
 * collector without a registration is registered at `now()` the first time it is listed or put, and
 * a second registration keeps the first time. Without `now`, seeded collectors keep the registration
 * they were given (none: unknown, so a collector that never ran has no grace and is red).
 */
export class InMemoryCollectorRegistry implements CollectorRegistry {
  readonly #specs = new Map<string, CollectorSpec>();
  readonly #now: (() => number) | undefined;
  constructor(seed: readonly CollectorSpec[] = DEFAULT_COLLECTORS, opts: { now?: () => number } = {}) {
    for (const s of seed) this.#specs.set(s.name, { ...s });
    this.#now = opts.now;
  }
  #register(spec: CollectorSpec, by: RegisteredBy): CollectorSpec {
    if ((spec.registered_at ?? null) !== null || this.#now === undefined) return spec;
    const registered = { ...spec, registered_at: this.#now(), registered_by: by };
    this.#specs.set(spec.name, registered);
    return registered;
  }
  async list(): Promise<CollectorSpec[]> {
    return [...this.#specs.values()].map((s) => ({ ...this.#register(s, "config") }));
  }
  async get(name: string): Promise<CollectorSpec | null> {
    const s = this.#specs.get(name);
    return s === undefined ? null : { ...s };
  }
  async put(spec: CollectorSpec): Promise<void> {
    const prev = this.#specs.get(spec.name);
    const kept = {
      ...spec,
      registered_at: prev?.registered_at ?? null,
      registered_by: prev?.registered_by ?? null,
    };
    this.#specs.set(spec.name, kept);
    this.#register(kept, prev === undefined ? "api" : (prev.registered_by ?? "config"));
  }
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

/** One chDB data folder per test file (one engine per folder per process), migrated. */
export async function openTempStore(
  prefix: string,
): Promise<{ store: ClickHouseRunStore; dir: string; cleanup(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
  return {
    store,
    dir,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
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
