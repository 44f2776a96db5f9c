/**
 * The collector runtime: runs every collector for each active account × region every
 * expected interval (read from the registry at each tick, so overrides apply), and writes exactly
 * one run record at the end of every run. See docs/monitor-runtime.md.
 */
import { randomUUID } from "node:crypto";
import {
  type Clock,
  type Collector,
  type CollectorAccount,
  type CollectorContext,
  type CollectorRegistry,
  type CollectorResult,
  type CollectorRunRow,
  type CollectorSpec,
  cronOf,
  DEPENDENCY_WINDOW_MINUTES,
  dependencyGate,
  errorText,
  MAX_ERROR_CHARS,
  MINUTE_MS,
  type RegionSource,
  type RunRecord,
  type RunStore,
  type RuntimeLogEvent,
  systemClock,
  UINT32_MAX,
  UPSTREAM_COLLECTORS,
} from "@monitor/core";
import { nextExpectedRun } from "@monitor/jobs";

/** A collector gated on recent successes of others. */
export interface DependencyGateConfig {
  upstream: readonly string[];
  windowMinutes: number;
}

export const DEFAULT_GATES: Readonly<Record<string, DependencyGateConfig>> = {
  hierarchy_builder: { upstream: UPSTREAM_COLLECTORS, windowMinutes: DEPENDENCY_WINDOW_MINUTES },
};

export interface SchedulerOptions {
  collectors: readonly Collector[];
  registry: CollectorRegistry;
  store: RunStore;
  /** The monitored accounts; accounts whose `svc_status` is given and not `active` are skipped. */
  accounts: () => Promise<readonly CollectorAccount[]>;
  /**
   * The regions of every account, or a source asked per account at each tick (the regions enabled
   * in that account, e.g. `describeRegionsSource` in ../aws/). A source that throws skips the
   * account for that tick (logged).
   */
  regions: readonly string[] | RegionSource;
  /** Per run; the run is aborted and recorded `failed` when it takes longer. */
  timeoutMs: number;
  clock?: Clock;
  log?: (e: RuntimeLogEvent) => void;
  /** Default DEFAULT_GATES (hierarchy_builder after a config_* success within 20 min). */
  gates?: Readonly<Record<string, DependencyGateConfig>>;
  /** Attempts to write a run record (same run_id each time; the store keeps it once). Default 3. */
  writeAttempts?: number;
  /** Wait between write attempts. Default 1000 ms. */
  writeRetryMs?: number;
  /** Wait before re-reading the registry when a collector has no spec or it cannot be read. Default 60 s. */
  registryRetryMs?: number;
}

export type RunOutcome =
  | { outcome: "recorded"; record: CollectorRunRow }
  /** The previous run of the same (collector, account, region) is still running: nothing recorded. */
  | { outcome: "skipped"; reason: string }
  /** Every write attempt failed: the run is lost (and the collector shows as stale). */
  | { outcome: "lost"; record: CollectorRunRow; error: string };

type Finished = Pick<CollectorRunRow, "status" | "events_produced" | "rows_inserted" | "error">;

function failed(error: string): Finished {
  return { status: "failed", events_produced: 0, rows_inserted: 0, error };
}

function isU32(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= UINT32_MAX;
}

/** A collector's report, checked; anything malformed is a failure (never a half-valid record). */
function fromResult(r: CollectorResult | undefined): Finished {
  if (typeof r !== "object" || r === null) return failed("invalid collector result: not an object");
  if (r.status !== "succeeded" && r.status !== "partial") {
    return failed(`invalid collector result: status ${JSON.stringify(r.status)}`);
  }
  if (!isU32(r.events_produced) || !isU32(r.rows_inserted)) {
    return failed(
      "invalid collector result: events_produced and rows_inserted must be integers in 0..2^32-1",
    );
  }
  const error = typeof r.error === "string" ? r.error.slice(0, MAX_ERROR_CHARS) : "";
  return { status: r.status, events_produced: r.events_produced, rows_inserted: r.rows_inserted, error };
}

export class Scheduler {
  readonly #o: Required<Omit<SchedulerOptions, "clock" | "log" | "gates">>;
  readonly #clock: Clock;
  readonly #log: (e: RuntimeLogEvent) => void;
  readonly #gates: Readonly<Record<string, DependencyGateConfig>>;
  readonly #byName = new Map<string, Collector>();
  /** Keys (collector, account, region) whose collector call has not settled yet. */
  readonly #running = new Set<string>();
  /** Work to wait for on stop()/idle(): ticks and record writes. */
  readonly #pending = new Set<Promise<unknown>>();
  readonly #timers = new Map<string, unknown>();
  /** Planned time of each collector's next tick (drift-free cadence). */
  readonly #nextAt = new Map<string, number>();
  #stopped = true;

  constructor(opts: SchedulerOptions) {
    this.#o = {
      collectors: opts.collectors,
      registry: opts.registry,
      store: opts.store,
      accounts: opts.accounts,
      regions: opts.regions,
      timeoutMs: opts.timeoutMs,
      writeAttempts: opts.writeAttempts ?? 3,
      writeRetryMs: opts.writeRetryMs ?? 1000,
      registryRetryMs: opts.registryRetryMs ?? 60_000,
    };
    this.#clock = opts.clock ?? systemClock;
    this.#log = opts.log ?? (() => {});
    this.#gates = opts.gates ?? DEFAULT_GATES;
    for (const c of opts.collectors) {
      if (this.#byName.has(c.name)) throw new Error(`collector ${c.name} given twice`);
      this.#byName.set(c.name, c);
    }
    if (!(opts.timeoutMs > 0)) throw new Error("timeoutMs must be positive");
  }

  /**
   * Starts the schedule: every collector runs now, then every expected interval. A gated collector
   * (hierarchy_builder) makes its first run once the first runs of its upstream collectors are
   * recorded, so a fresh start does not fail its gate for nothing.
   */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    const now = this.#clock.now();
    const first = new Map<string, Promise<void>>();
    for (const c of this.#o.collectors) {
      if (this.#gates[c.name]) continue;
      this.#nextAt.set(c.name, now);
      first.set(c.name, this.#track(this.#tick(c.name)));
    }
    for (const c of this.#o.collectors) {
      const gate = this.#gates[c.name];
      if (!gate) continue;
      this.#nextAt.set(c.name, now);
      const upstream = gate.upstream.flatMap((u) => first.get(u) ?? []);
      void this.#track(Promise.allSettled(upstream).then(() => this.#tick(c.name)));
    }
  }

  /** Stops scheduling and waits for ticks and record writes in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const h of this.#timers.values()) this.#clock.clearTimeout(h);
    this.#timers.clear();
    await this.idle();
  }

  /** Resolves when no tick or record write is in progress. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#pending.add(p);
    const done = () => this.#pending.delete(p);
    p.then(done, done);
    return p;
  }

  #schedule(name: string, at: number): void {
    if (this.#stopped) return;
    this.#nextAt.set(name, at);
    const delay = Math.max(0, at - this.#clock.now());
    // A timer longer than 2^31 − 1 ms fires at once in Node: a far cron run (a yearly job) waits in steps.
    const handle = this.#clock.setTimeout(
      () => {
        this.#timers.delete(name);
        if (delay > MAX_TIMER_MS) this.#schedule(name, at);
        else void this.#track(this.#tick(name));
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    this.#timers.set(name, handle);
  }

  async #tick(name: string): Promise<void> {
    if (this.#stopped) return;
    const planned = this.#nextAt.get(name) ?? this.#clock.now();
    let next: number;
    try {
      const spec = await this.#o.registry.get(name);
      if (spec === null) {
        this.#log({ level: "error", msg: "collector not in the registry; not run", collector: name });
        this.#schedule(name, this.#clock.now() + this.#o.registryRetryMs);
        return;
      }
      next = nextTick(spec, planned, this.#clock.now());
      if (!Number.isFinite(next)) {
        this.#log({ level: "error", msg: "its cron schedule runs no more; not scheduled", collector: name });
        return;
      }
    } catch (err) {
      this.#log({ level: "error", msg: `registry unreadable: ${errorText(err)}`, collector: name });
      this.#schedule(name, this.#clock.now() + this.#o.registryRetryMs);
      return;
    }
    this.#schedule(name, next);
    await this.runCollector(name);
  }

  /** Runs one collector for every active account × region now. */
  async runCollector(name: string): Promise<RunOutcome[]> {
    const collector = this.#collector(name);
    let accounts: readonly CollectorAccount[];
    try {
      accounts = await this.#o.accounts();
    } catch (err) {
      this.#log({ level: "error", msg: `accounts unreadable: ${errorText(err)}`, collector: name });
      return [];
    }
    const runs: Promise<RunOutcome[]>[] = [];
    for (const account of accounts) {
      if (account.svc_status !== undefined && account.svc_status !== "active") {
        this.#log({
          level: "debug",
          msg: `account skipped (${account.svc_status})`,
          collector: name,
          account: account.account_id,
        });
        continue;
      }
      runs.push(this.#runAccount(collector, account));
    }
    return (await Promise.all(runs)).flat();
  }

  async #runAccount(collector: Collector, account: CollectorAccount): Promise<RunOutcome[]> {
    const source = this.#o.regions;
    let regions: readonly string[];
    if (typeof source !== "function") regions = source;
    else {
      try {
        regions = await source(account);
      } catch (err) {
        this.#log({
          level: "error",
          msg: `regions unreadable: ${errorText(err)}`,
          collector: collector.name,
          account: account.account_id,
        });
        return [];
      }
    }
    return Promise.all(regions.map((region) => this.runOnce(collector, account, region)));
  }

  #collector(c: Collector | string): Collector {
    if (typeof c !== "string") return c;
    const found = this.#byName.get(c);
    if (!found) throw new Error(`unknown collector ${c}`);
    return found;
  }

  /**
   * One run of one collector for one account and region. Resolves once its record is written
   * (or the run is skipped because the previous run of the same subject is still running).
   */
  runOnce(collector: Collector | string, account: CollectorAccount, region: string): Promise<RunOutcome> {
    const c = this.#collector(collector);
    const key = `${c.name}\u0000${account.account_id}\u0000${region}`;
    const where = { collector: c.name, account: account.account_id, region };
    if (this.#running.has(key)) {
      const reason = "previous run of this collector, account and region is still running";
      this.#log({ level: "warn", msg: `run skipped: ${reason}`, ...where });
      return Promise.resolve({ outcome: "skipped", reason });
    }
    this.#running.add(key);
    return this.#track(this.#execute(c, account, region, () => this.#running.delete(key)));
  }

  async #execute(
    c: Collector,
    account: CollectorAccount,
    region: string,
    release: () => void,
  ): Promise<RunOutcome> {
    const runId = randomUUID();
    const startedAt = this.#clock.now();
    const where = { collector: c.name, account: account.account_id, region, run_id: runId };
    this.#log({ level: "info", msg: "run started", ...where });
    // The start under the final record's run_id, so the run is seen while it runs (running, then
    // hung past its max duration). Written beside the collector's work, not before it; a start that
    // cannot be written is logged and the run goes on.
    const startWritten = this.#o.store
      .recordStarts([
        {
          run_id: runId,
          collector: c.name,
          cloud_account_id: account.account_id,
          cloud_region: region,
          started_at: startedAt,
        },
      ])
      .catch((err: unknown) => {
        this.#log({
          level: "warn",
          msg: `run start write failed (the run goes on): ${errorText(err)}`,
          ...where,
        });
      });
    let finished: Finished | null = null;

    const gate = this.#gates[c.name];
    if (gate) {
      try {
        const result = dependencyGate(
          await this.#recentSuccesses(),
          this.#clock.now(),
          gate.windowMinutes,
          gate.upstream,
        );
        if (!result.ok) finished = failed(result.reason);
      } catch (err) {
        finished = failed(`dependency not met: could not read recent runs (${errorText(err)})`);
      }
    }
    if (finished === null) {
      finished = await this.#invoke(c, account, region, release, runId);
    } else {
      release(); // the collector was not called
    }

    const completedAt = Math.max(this.#clock.now(), startedAt);
    const record: CollectorRunRow = {
      run_id: runId,
      collector: c.name,
      cloud_account_id: account.account_id,
      cloud_region: region,
      started_at: startedAt,
      completed_at: completedAt,
      duration_ms: Math.min(completedAt - startedAt, UINT32_MAX),
      ...finished,
    };
    await startWritten;
    return this.#write(record, where);
  }

  /** Calls the collector under the timeout. `release` runs when the collector's promise settles. */
  async #invoke(
    c: Collector,
    account: CollectorAccount,
    region: string,
    release: () => void,
    runId: string,
  ): Promise<Finished> {
    const ac = new AbortController();
    const ctx: CollectorContext = {
      account: { account_id: account.account_id, account_name: account.account_name },
      region,
      signal: ac.signal,
      now: () => this.#clock.now(),
      run_id: runId,
    };
    const work = Promise.resolve()
      .then(() => c.run(ctx))
      .then(fromResult, (err: unknown) => failed(errorText(err)));
    // The slot stays taken until the collector really stops, even after a timeout: a collector
    // that ignores its signal never overlaps with its next run.
    void work.finally(release);
    let timer: unknown;
    const timeout = new Promise<Finished>((resolve) => {
      timer = this.#clock.setTimeout(() => {
        const msg = `timed out after ${this.#o.timeoutMs} ms`;
        ac.abort(new Error(msg));
        resolve(failed(msg));
      }, this.#o.timeoutMs);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      this.#clock.clearTimeout(timer);
    }
  }

  /** Latest success per collector: enough for the gate (only the latest upstream success matters). */
  async #recentSuccesses(): Promise<RunRecord[]> {
    const rows = await this.#o.store.lastSuccessPerCollector();
    return rows.map((r) => ({
      run_id: r.run_id,
      collector: r.collector,
      cloud_account_id: r.cloud_account_id,
      cloud_region: r.cloud_region,
      started_at: r.last_success_at,
      completed_at: r.last_success_at,
      status: "succeeded",
      events_produced: 0,
      rows_inserted: 0,
      error: "",
      duration_ms: 0,
    }));
  }

  async #write(record: CollectorRunRow, where: Omit<RuntimeLogEvent, "level" | "msg">): Promise<RunOutcome> {
    let lastErr = "";
    for (let attempt = 1; attempt <= this.#o.writeAttempts; attempt++) {
      try {
        await this.#o.store.insertRuns([record]);
        this.#log({
          level: record.status === "succeeded" ? "info" : "warn",
          msg: `run ${record.status} in ${record.duration_ms} ms${record.error ? `: ${record.error}` : ""}`,
          ...where,
        });
        return { outcome: "recorded", record };
      } catch (err) {
        lastErr = errorText(err);
        this.#log({ level: "error", msg: `run record write ${attempt} failed: ${lastErr}`, ...where });
        if (attempt < this.#o.writeAttempts) {
          await new Promise<void>((resolve) =>
            this.#clock.setTimeout(resolve, this.#o.writeRetryMs * 2 ** (attempt - 1)),
          );
        }
      }
    }
    return { outcome: "lost", record, error: lastErr };
  }
}

/** The monitored accounts as the store knows them (latest version each); the scheduler keeps the active ones. */
export function accountsFromStore(store: RunStore): () => Promise<readonly CollectorAccount[]> {
  return () => store.accountsLatest();
}

/** The longest delay a Node timer keeps (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When a collector ticks next, decided before it runs so a long run does not shift the cadence: an
 * interval collector one interval after the planned time (a tick late by more than an interval is not
 * replayed: one run per subject per tick at most); a cron collector at its next expected run.
 */
export function nextTick(spec: CollectorSpec, planned: number, now: number): number {
  const cron = cronOf(spec);
  if (cron !== null) return nextExpectedRun(cron, Math.max(planned, now)) ?? Number.POSITIVE_INFINITY;
  const intervalMs = (spec.expected_interval_minutes ?? 0) * MINUTE_MS;
  let next = planned + intervalMs;
  if (next <= now) next = now + intervalMs - ((now - planned) % intervalMs);
  return next;
}
