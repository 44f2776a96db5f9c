/**
 * CollectorRegistry over ClickHouse (table svc.collectors, migration 4). The configured collectors
 * (constructor argument, DEFAULT_COLLECTORS by default) are overlaid by stored overrides (the latest
 * `updated_at` per name, via argMax); stored collectors that are not configured are listed after them.
 *
 * Registration times live in svc.collector_registrations (migration 10): a collector is registered
 * the first time this database sees it, by a `put` or by a `list` that finds it configured. The
 * earliest row per name counts, so neither a restart nor a second registration moves it.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import {
  type CollectorDeleteOutcome,
  type CollectorRegistry,
  type CollectorSpec,
  DEFAULT_COLLECTORS,
  DURATION_KNOBS,
  type EpochMs,
  type RegisteredBy,
  RunStoreValidationError,
  validateCollectorSpec,
} from "@monitor/core";
import { chCall, msToCh } from "./clickhouse-call.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";

export interface ClickHouseCollectorRegistryOptions {
  /** Configured collectors (before overrides). Default: DEFAULT_COLLECTORS. */
  defaults?: readonly CollectorSpec[];
  /** Upper bound per statement. Default 5000 ms. */
  timeoutMs?: number;
  /** Clock for `updated_at` and `registered_at`. Default Date.now. */
  now?: () => number;
}

interface Registration {
  registered_at: EpochMs;
  registered_by: RegisteredBy;
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
    argMax(freshness_threshold_minutes, updated_at) AS freshness_threshold_minutes,
    argMax(schedule, updated_at) AS schedule,
    argMax(timezone, updated_at) AS timezone,
    argMax(grace_minutes, updated_at) AS grace_minutes,
    argMax(duration_too_long_factor, updated_at) AS duration_too_long_factor,
    argMax(duration_too_short_factor, updated_at) AS duration_too_short_factor,
    argMax(runs_too_often_factor, updated_at) AS runs_too_often_factor,
    argMax(duration_baseline_runs, updated_at) AS duration_baseline_runs,
    -- In a tuple: argMax skips a bare NULL, and a later put without it must clear it.
    argMax(tuple(max_duration_minutes), updated_at).1 AS max_duration_minutes
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
    return rows.map((r) => {
      const base = {
        name: String(r.name),
        freshness_threshold_minutes: Number(r.freshness_threshold_minutes),
        // 0 is "unset": the knob is left out, as the validated spec leaves it out.
        ...Object.fromEntries(
          DURATION_KNOBS.filter((k) => Number(r[k] ?? 0) > 0).map((k) => [k, Number(r[k])]),
        ),
        ...(r.max_duration_minutes == null ? {} : { max_duration_minutes: Number(r.max_duration_minutes) }),
      };
      const schedule = String(r.schedule ?? "");
      if (schedule === "") return { ...base, expected_interval_minutes: Number(r.expected_interval_minutes) };
      return {
        ...base,
        expected_interval_minutes: null,
        schedule,
        timezone: String(r.timezone),
        grace_minutes: Number(r.grace_minutes),
      };
    });
  }

  async #registrations(name?: string): Promise<Map<string, Registration>> {
    const where = name === undefined ? "" : "WHERE name = {name:String}";
    const rows = await this.#call("collector registrations read", async (signal) => {
      const rs = await this.#client.query({
        query: `SELECT
    name,
    toUnixTimestamp64Milli(min(registered_at)) AS registered_ms,
    argMin(registered_by, registered_at) AS registered_by
FROM svc.collector_registrations
${where}
GROUP BY name`,
        format: "JSONEachRow",
        query_params: name === undefined ? {} : { name },
        abort_signal: signal,
      });
      return rs.json<Record<string, unknown>>();
    });
    return new Map(
      rows.map((r) => [
        String(r.name),
        { registered_at: Number(r.registered_ms), registered_by: String(r.registered_by) as RegisteredBy },
      ]),
    );
  }

  /** Registers the names that have no registration yet (the caller has just read that), at `now`. */
  async #register(names: readonly string[], known: Map<string, Registration>): Promise<void> {
    const missing = names.filter((n) => !known.has(n));
    if (missing.length === 0) return;
    const at = this.#now();
    const configured = new Set(this.#defaults.map((d) => d.name));
    const rows = missing.map((name) => ({
      name,
      registered_at: at,
      registered_by: (configured.has(name) ? "config" : "api") as RegisteredBy,
    }));
    await this.#call("collector registration write", (signal) =>
      this.#client.insert({
        table: "svc.collector_registrations",
        values: rows.map((r) => ({ ...r, registered_at: msToCh(r.registered_at) })),
        format: "JSONEachRow",
        abort_signal: signal,
      }),
    );
    for (const r of rows)
      known.set(r.name, { registered_at: r.registered_at, registered_by: r.registered_by });
  }

  /**
   * Every collector with its registration. A collector listed for the first time (a configured one on
   * a fresh database, or after it was added to the configuration) is registered now: that starts its
   * grace as a `new` collector.
   */
  async list(): Promise<CollectorSpec[]> {
    const [storedRows, registrations] = await Promise.all([this.#stored(), this.#registrations()]);
    const stored = new Map(storedRows.map((s) => [s.name, s]));
    const out = this.#defaults.map((d) => ({ ...(stored.get(d.name) ?? d) }));
    const configured = new Set(this.#defaults.map((d) => d.name));
    for (const [name, spec] of stored) if (!configured.has(name)) out.push(spec);
    await this.#register(
      out.map((s) => s.name),
      registrations,
    );
    return out.map((s) => withRegistration(s, registrations.get(s.name)));
  }

  /** One collector with its registration (read only: `get` registers nothing). */
  async get(name: string): Promise<CollectorSpec | null> {
    const [[stored], registrations] = await Promise.all([this.#stored(name), this.#registrations(name)]);
    const spec = stored ?? this.#defaults.find((x) => x.name === name);
    return spec === undefined ? null : withRegistration(spec, registrations.get(name));
  }

  async put(spec: CollectorSpec): Promise<void> {
    const value = this.#checked(spec);
    await this.#write(value);
    // Re-registering (a second PUT) keeps the first registration time.
    await this.#register([value.name], await this.#registrations(value.name));
  }

  #checked(spec: CollectorSpec): CollectorSpec {
    const v = validateCollectorSpec(spec);
    if (!v.ok) {
      const first = v.errors[0];
      throw new RunStoreValidationError(0, first?.path || "row", first?.message ?? "invalid collector spec");
    }
    return v.value;
  }

  async #write(value: CollectorSpec): Promise<void> {
    const updatedAt = Math.max(this.#now(), this.#lastWrite + 1);
    this.#lastWrite = updatedAt;
    await this.#call("collector registry write", (signal) =>
      this.#client.insert({
        table: "svc.collectors",
        values: [{ ...storedColumns(value), updated_at: msToCh(updatedAt) }],
        format: "JSONEachRow",
        abort_signal: signal,
      }),
    );
  }

  /**
   * Auto-registration: stores an unknown collector and its registration (`by`). A configured, stored or
   * registered name is left alone. Two processes racing on the same new name both write the same
   * defaults, and the earliest registration counts.
   */
  async registerIfAbsent(spec: CollectorSpec, by: RegisteredBy): Promise<boolean> {
    const value = this.#checked(spec);
    if (this.#defaults.some((d) => d.name === value.name)) return false;
    const [[stored], registrations] = await Promise.all([
      this.#stored(value.name),
      this.#registrations(value.name),
    ]);
    if (stored !== undefined || registrations.has(value.name)) return false;
    await this.#write(value);
    const at = this.#now();
    await this.#call("collector registration write", (signal) =>
      this.#client.insert({
        table: "svc.collector_registrations",
        values: [{ name: value.name, registered_at: msToCh(at), registered_by: by }],
        format: "JSONEachRow",
        abort_signal: signal,
      }),
    );
    return true;
  }

  /**
   * Removes a stored collector: its overrides and its registration (synchronous mutations, so the next
   * read no longer sees it). A configured collector is refused (`configured`).
   */
  async delete(name: string): Promise<CollectorDeleteOutcome> {
    if (this.#defaults.some((d) => d.name === name)) return "configured";
    const [[stored], registrations] = await Promise.all([this.#stored(name), this.#registrations(name)]);
    if (stored === undefined && !registrations.has(name)) return "not_found";
    for (const table of ["svc.collectors", "svc.collector_registrations"]) {
      await this.#call("collector delete", (signal) =>
        this.#client.command({
          query: `ALTER TABLE ${table} DELETE WHERE name = {name:String} SETTINGS mutations_sync = 1`,
          query_params: { name },
          abort_signal: signal,
        }),
      );
    }
    return "deleted";
  }
}

function withRegistration(spec: CollectorSpec, r: Registration | undefined): CollectorSpec {
  return { ...spec, registered_at: r?.registered_at ?? null, registered_by: r?.registered_by ?? null };
}

/** A validated spec as the columns of svc.collectors: '' and 0 stand for the absent schedule and interval. */
function storedColumns(spec: CollectorSpec): Record<string, unknown> {
  return {
    name: spec.name,
    expected_interval_minutes: spec.expected_interval_minutes ?? 0,
    freshness_threshold_minutes: spec.freshness_threshold_minutes,
    schedule: spec.schedule ?? "",
    timezone: spec.schedule ? (spec.timezone ?? "UTC") : "",
    grace_minutes: spec.schedule ? (spec.grace_minutes ?? 0) : 0,
    ...Object.fromEntries(DURATION_KNOBS.map((k) => [k, spec[k] ?? 0])),
    max_duration_minutes: spec.max_duration_minutes ?? null,
  };
}
