/**
 * CollectorRegistry over ClickHouse (table svc.collectors, migration 4). The configured collectors
 * (constructor argument, DEFAULT_COLLECTORS by default) are overlaid by stored overrides (the latest
 * `updated_at` per name, via argMax); stored collectors that are not configured are listed after them.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { type CollectorSpec, DEFAULT_COLLECTORS, validateCollectorSpec } from "@svcmon/core";
import { chCall, msToCh } from "./clickhouse-call.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import type { CollectorRegistry } from "./registry.ts";
import { RunStoreValidationError } from "./run-store.ts";

export interface ClickHouseCollectorRegistryOptions {
  /** Configured collectors (before overrides). Default: DEFAULT_COLLECTORS. */
  defaults?: readonly CollectorSpec[];
  /** Upper bound per statement. Default 5000 ms. */
  timeoutMs?: number;
  /** Clock for `updated_at`. Default Date.now. */
  now?: () => number;
}

export class ClickHouseCollectorRegistry implements CollectorRegistry {
  readonly #client: ClickHouseClient;
  readonly #defaults: readonly CollectorSpec[];
  readonly #timeoutMs: number;
  readonly #now: () => number;
  /** Last `updated_at` written by this instance: two puts in one millisecond still order correctly. */
  #lastWrite = 0;

  constructor(client: ClickHouseClient, opts: ClickHouseCollectorRegistryOptions = {}) {
    this.#client = client;
    this.#defaults = (opts.defaults ?? DEFAULT_COLLECTORS).map((s) => ({ ...s }));
    this.#timeoutMs = opts.timeoutMs ?? 5000;
    this.#now = opts.now ?? Date.now;
  }

  /** A registry on the run store's own client (same database, same migrations). */
  static fromStore(
    store: ClickHouseRunStore,
    opts: Omit<ClickHouseCollectorRegistryOptions, "timeoutMs"> = {},
  ): ClickHouseCollectorRegistry {
    return new ClickHouseCollectorRegistry(store.client, { ...opts, timeoutMs: store.timeoutMs });
  }

  #call<T>(op: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return chCall(op, this.#timeoutMs, fn);
  }

  async #stored(name?: string): Promise<CollectorSpec[]> {
    const where = name === undefined ? "" : "WHERE name = {name:String}";
    const rows = await this.#call("collector registry read", async (signal) => {
      const rs = await this.#client.query({
        query: `SELECT
    name,
    argMax(expected_interval_minutes, updated_at) AS expected_interval_minutes,
    argMax(freshness_threshold_minutes, updated_at) AS freshness_threshold_minutes
FROM svc.collectors
${where}
GROUP BY name
ORDER BY name`,
        format: "JSONEachRow",
        query_params: name === undefined ? {} : { name },
        abort_signal: signal,
      });
      return rs.json<Record<string, unknown>>();
    });
    return rows.map((r) => ({
      name: String(r.name),
      expected_interval_minutes: Number(r.expected_interval_minutes),
      freshness_threshold_minutes: Number(r.freshness_threshold_minutes),
    }));
  }

  async list(): Promise<CollectorSpec[]> {
    const stored = new Map((await this.#stored()).map((s) => [s.name, s]));
    const out = this.#defaults.map((d) => ({ ...(stored.get(d.name) ?? d) }));
    const configured = new Set(this.#defaults.map((d) => d.name));
    for (const [name, spec] of stored) if (!configured.has(name)) out.push(spec);
    return out;
  }

  async get(name: string): Promise<CollectorSpec | null> {
    const [stored] = await this.#stored(name);
    if (stored) return stored;
    const d = this.#defaults.find((x) => x.name === name);
    return d ? { ...d } : null;
  }

  async put(spec: CollectorSpec): Promise<void> {
    const v = validateCollectorSpec(spec);
    if (!v.ok) {
      const first = v.errors[0];
      throw new RunStoreValidationError(0, first?.path || "row", first?.message ?? "invalid collector spec");
    }
    const updatedAt = Math.max(this.#now(), this.#lastWrite + 1);
    this.#lastWrite = updatedAt;
    await this.#call("collector registry write", (signal) =>
      this.#client.insert({
        table: "svc.collectors",
        values: [{ ...v.value, updated_at: msToCh(updatedAt) }],
        format: "JSONEachRow",
        abort_signal: signal,
      }),
    );
  }
}
