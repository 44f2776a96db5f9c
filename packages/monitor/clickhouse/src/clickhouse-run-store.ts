/**
 * RunStore over @clickhouse/client. The same code serves a ClickHouse server over HTTP and the
 * embedded chDB engine (chdb/connection plugs into createClient({ connection })). It composes the
 * store's jobs, each in its own file: the read cache (read-cache.ts, keyed by read-version.ts on a
 * server), the group commit of insertRuns (group-commit.ts) with its duplicate check
 * (stored-run-ids.ts, the rule in @monitor/core), the status reads (run-reads.ts) and the store's
 * health (store-health.ts).
 */

import {
  type ClickHouseClient,
  ClickHouseLogLevel,
  type ClickHouseSettings,
  createClient,
} from "@clickhouse/client";
import {
  type AccountLastSuccessRow,
  type CloudAccountRow,
  type CollectorRunInput,
  type CollectorRunRow,
  type FailureStreakRow,
  type FailuresPerDayRow,
  type InsertRunsResult,
  type LastSuccessRow,
  type LatestRunRow,
  MAX_OPEN_RUNS_READ,
  prepareGroup,
  type RunStartRow,
  type RunStore,
  type StoreHealth,
  validateAccount,
  validateRun,
} from "@monitor/core";
import { msToCh } from "./clickhouse-call.ts";
import { ClickHouseQueries } from "./clickhouse-queries.ts";
import { GROUP_GATHER_MS, GroupCommit } from "./group-commit.ts";
import { MIGRATIONS, MIGRATIONS_BOOTSTRAP, type Migration } from "./migrations.ts";
import { VersionedReadCache } from "./read-cache.ts";
import { partsVersion } from "./read-version.ts";
import { ClickHouseRunReads, NO_READ_CACHE } from "./run-reads.ts";
import { ClickHouseRunStarts } from "./run-starts.ts";
import { num } from "./run-store-sql.ts";
import { ClickHouseHealth, type LocalDiskUsage } from "./store-health.ts";
import { storedRunIds } from "./stored-run-ids.ts";

export interface ClickHouseRunStoreOptions {
  /** Upper bound for every statement, including connecting. Default 5000 ms. */
  timeoutMs?: number;
  /** Migrations to apply (tests may pass a subset). Default: MIGRATIONS. */
  migrations?: readonly Migration[];
  /** Samples kept for the client-side latency percentiles. Default 1024. */
  latencySamples?: number;
  /**
   * The disk figures of an embedded engine, read from its data folder rather than from system.disks
   * (the chDB entry passes `chdbFolderDisk(path)`): dbHealth then reports the folder's size as
   * `disk_used_bytes` and the filesystem's total and free space. When it throws, system.disks is read.
   */
  localDisk?: () => Promise<LocalDiskUsage>;
  /**
   * Reuse the answers of the status reads until the next write (default true): each read first reads
   * the write version (READ_VERSION_SQL, one cheap system.parts query shared by the reads started in
   * the same turn), and a read whose version is unchanged answers from memory. Exact with any number
   * of writers, as long as the version and the reads are answered by the same server (docs/monitor-tables.md,
   * "Read cache").
   */
  readCache?: boolean;
  /**
   * The read cache's write version, instead of READ_VERSION_SQL: a value that changes whenever a
   * write to the database may have started or ended (the embedded store: `chdbWriteVersion`, the
   * writes of its process). Entries then also expire after `readCacheMaxAgeMs`, so what no write
   * changes (a TTL dropping 90-day-old rows) is seen too.
   */
  writeVersion?: () => string;
  /** Age after which a cached read is read again although the `writeVersion` is the same. Default 60 s. */
  readCacheMaxAgeMs?: number;
  /** The monotonic clock of `readCacheMaxAgeMs`, in ms (default performance.now; tests pass a fake). */
  readCacheClock?: () => number;
  /**
   * The longest the next insert group waits for half of the rows in flight (insertRuns, "Group
   * commit" in docs/monitor-tables.md). Default GROUP_GATHER_MS; 0 never waits.
   */
  groupGatherMs?: number;
  /** Ask system.query_log for the query latency (default true; chDB has no such table). */
  queryLog?: boolean;
  /**
   * Settings sent with insertRuns' INSERT (default INSERT_SETTINGS: no `async_insert`, one block).
   * null sends none: the embedded engine has those defaults already, and chDB runs each setting as
   * a `SET` statement before the INSERT, which cost several milliseconds per INSERT.
   */
  insertSettings?: ClickHouseSettings | null;
  /**
   * The client insertRuns' duplicate check is sent through (default: the store's client), so that it
   * can run beside the INSERT before it: chDB runs one statement at a time per connection, and the
   * chDB entry passes a second connection to the same folder. Closed with the store.
   */
  checkClient?: ClickHouseClient;
}

/**
 * What insertRuns' INSERT asks of a ClickHouse server whatever its profile says: written before the
 * answer (no `async_insert`, so the next duplicate check sees it), as one block (all or nothing; a
 * group has at most MAX_GROUP_ROWS rows).
 */
export const INSERT_SETTINGS: ClickHouseSettings = { async_insert: 0, max_insert_block_size: "1048576" };

/** The columns insertRuns writes, in the order of `runRowValues`. */
export const RUN_COLUMNS = [
  "run_id",
  "collector",
  "cloud_account_id",
  "cloud_region",
  "started_at",
  "completed_at",
  "status",
  "events_produced",
  "rows_inserted",
  "error",
  "duration_ms",
] as const;
/** One run as insertRuns writes it (`JSONCompactEachRow`, the columns of `RUN_COLUMNS`). */
export function runRowValues(r: CollectorRunRow): (string | number)[] {
  return [
    r.run_id,
    r.collector,
    r.cloud_account_id,
    r.cloud_region,
    msToCh(r.started_at),
    msToCh(r.completed_at),
    r.status,
    r.events_produced,
    r.rows_inserted,
    r.error,
    r.duration_ms,
  ];
}

export class ClickHouseRunStore implements RunStore {
  readonly #q: ClickHouseQueries;
  readonly #migrations: readonly Migration[];
  readonly #insertSettings: ClickHouseSettings | null;
  readonly #checkClient: ClickHouseClient;
  readonly #reads: ClickHouseRunReads;
  readonly #health: ClickHouseHealth;
  readonly #groups: GroupCommit;
  readonly #starts: ClickHouseRunStarts;

  constructor(client: ClickHouseClient, opts: ClickHouseRunStoreOptions = {}) {
    this.#q = new ClickHouseQueries(client, opts.timeoutMs ?? 5000, opts.latencySamples ?? 1024);
    this.#migrations = opts.migrations ?? MIGRATIONS;
    this.#insertSettings = opts.insertSettings === undefined ? INSERT_SETTINGS : opts.insertSettings;
    this.#checkClient = opts.checkClient ?? client;
    const writeVersion = opts.writeVersion;
    const cache =
      (opts.readCache ?? true)
        ? new VersionedReadCache(
            writeVersion === undefined
              ? { version: partsVersion(this.#q), maxAgeMs: null }
              : {
                  version: () => Promise.resolve(writeVersion()),
                  maxAgeMs: opts.readCacheMaxAgeMs ?? 60_000,
                  ...(opts.readCacheClock === undefined ? {} : { now: opts.readCacheClock }),
                },
          )
        : NO_READ_CACHE;
    this.#reads = new ClickHouseRunReads(this.#q, cache);
    this.#starts = new ClickHouseRunStarts(this.#q);
    this.#health = new ClickHouseHealth(this.#q, {
      localDisk: opts.localDisk,
      queryLog: opts.queryLog ?? true,
    });
    this.#groups = new GroupCommit({
      gatherMs: opts.groupGatherMs ?? GROUP_GATHER_MS,
      prepare: (calls, writing) =>
        prepareGroup(calls, writing, (rows) => storedRunIds(this.#q, this.#checkClient, rows)),
      write: (fresh) => this.#writeGroup(fresh),
    });
  }

  get timeoutMs(): number {
    return this.#q.timeoutMs;
  }

  /** The underlying client, shared by adapters over the same database (the collector registry). */
  get client(): ClickHouseClient {
    return this.#q.client;
  }

  async ping(): Promise<void> {
    await this.#q.call("ping", async (signal) => {
      const rs = await this.#q.client.query({
        query: "SELECT 1",
        format: "JSONEachRow",
        abort_signal: signal,
      });
      await rs.json();
    });
  }

  async close(): Promise<void> {
    if (this.#checkClient !== this.#q.client) await this.#checkClient.close();
    await this.#q.client.close();
  }

  async migrate(): Promise<number[]> {
    for (const stmt of MIGRATIONS_BOOTSTRAP) await this.#q.command("migrate", stmt);
    const done = await this.#q.rows<{ version: unknown }>(
      "migrate",
      "SELECT DISTINCT version FROM svc.schema_migrations",
    );
    const applied = new Set(done.map((r) => num(r.version)));
    const ran: number[] = [];
    const ordered = [...this.#migrations].sort((a, b) => a.version - b.version);
    for (const m of ordered) {
      if (applied.has(m.version)) continue;
      for (const stmt of m.statements) await this.#q.command(`migration ${m.version} (${m.name})`, stmt);
      await this.#q.call("migrate", (signal) =>
        this.#q.client.insert({
          table: "svc.schema_migrations",
          values: [{ version: m.version, name: m.name, applied_at: msToCh(Date.now()) }],
          format: "JSONEachRow",
          abort_signal: signal,
        }),
      );
      ran.push(m.version);
    }
    return ran;
  }

  /**
   * Stores the runs not stored yet (by run_id). Calls made while an insert is running are written
   * together by the next one (group commit, group-commit.ts): one duplicate check and one INSERT
   * for all of them. The next group's duplicate check runs while the group before it is written (a
   * pipeline of two: one INSERT at a time). Each call still gets its own answer, as if the calls had
   * run one after the other in the order they were made, and resolves only once its rows are
   * written; a call whose rows are invalid fails alone, before joining a group.
   */
  insertRuns(rows: readonly CollectorRunInput[]): Promise<InsertRunsResult> {
    let valid: CollectorRunRow[];
    try {
      // Validate everything first: a bad row means nothing of this call is written.
      valid = rows.map((r, i) => validateRun(i, r));
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#groups.submit(valid);
  }

  /** One INSERT statement: ClickHouse parses and checks the whole block before writing. */
  async #writeGroup(fresh: readonly CollectorRunRow[]): Promise<void> {
    if (fresh.length === 0) return;
    await this.#q.call("insertRuns", (signal) =>
      this.#q.client.insert({
        table: "svc.collector_runs",
        // Arrays rather than objects: about a tenth less to write and to parse.
        columns: [...RUN_COLUMNS],
        values: fresh.map(runRowValues),
        format: "JSONCompactEachRow",
        abort_signal: signal,
        ...(this.#insertSettings === null ? {} : { clickhouse_settings: this.#insertSettings }),
      }),
    );
  }

  async upsertAccount(row: CloudAccountRow): Promise<void> {
    const a = validateAccount(row);
    await this.#q.call("upsertAccount", (signal) =>
      this.#q.client.insert({
        table: "svc.cloud_accounts",
        values: [{ ...a, updated_at: msToCh(a.updated_at) }],
        format: "JSONEachRow",
        abort_signal: signal,
      }),
    );
  }

  latestRunPerCollector(): Promise<LatestRunRow[]> {
    return this.#reads.latestRunPerCollector();
  }

  lastSuccessPerCollector(): Promise<LastSuccessRow[]> {
    return this.#reads.lastSuccessPerCollector();
  }

  consecutiveFailuresPerCollectorAccountRegion(
    sinceMs: number,
    opts: { failingOnly?: boolean } = {},
  ): Promise<FailureStreakRow[]> {
    return this.#reads.consecutiveFailuresPerCollectorAccountRegion(sinceMs, opts);
  }

  accountsLatest(): Promise<CloudAccountRow[]> {
    return this.#reads.accountsLatest();
  }

  lastSucceededRunPerAccount(sinceMs: number): Promise<AccountLastSuccessRow[]> {
    return this.#reads.lastSucceededRunPerAccount(sinceMs);
  }

  failuresPerCollectorPerDay(days?: number, nowMs?: number): Promise<FailuresPerDayRow[]> {
    return this.#reads.failuresPerCollectorPerDay(days, nowMs);
  }

  recentRuns(
    collector: string,
    opts?: { limit?: number; cloud_account_id?: string; cloud_region?: string },
  ): Promise<CollectorRunRow[]> {
    return this.#reads.recentRuns(collector, opts);
  }

  dbHealth(): Promise<StoreHealth> {
    return this.#health.read();
  }

  recordStarts(starts: readonly RunStartRow[]): Promise<void> {
    return this.#starts.record(starts);
  }

  openStarts(sinceMs: number, opts: { limit?: number } = {}): Promise<RunStartRow[]> {
    return this.#starts.open(sinceMs, opts.limit ?? MAX_OPEN_RUNS_READ);
  }
}

export interface HttpRunStoreConfig extends ClickHouseRunStoreOptions {
  url: string;
  username?: string;
  password?: string;
  /** Default database of the session; the store always qualifies its tables with `svc.`. */
  database?: string;
}

/** A ClickHouse server or cluster over HTTP(S). */
export function openHttpRunStore(cfg: HttpRunStoreConfig): ClickHouseRunStore {
  const timeoutMs = cfg.timeoutMs ?? 5000;
  const client = createClient({
    url: cfg.url,
    username: cfg.username ?? "default",
    password: cfg.password ?? "",
    database: cfg.database ?? "default",
    request_timeout: timeoutMs,
    log: { level: ClickHouseLogLevel.OFF },
  });
  return new ClickHouseRunStore(client, { ...cfg, timeoutMs });
}
