/**
 * RunStore over @clickhouse/client. The same code serves a ClickHouse server over HTTP and the
 * embedded chDB engine (chdb/connection plugs into createClient({ connection })).
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
  type DbHealth,
  type FailureStreakRow,
  type FailuresPerDayRow,
  type InsertRunsResult,
  type LastSuccessRow,
  type LatestRunRow,
  type RunStatus,
  type RunStore,
  RunStoreQueryError,
  validateAccount,
  validateRun,
} from "@monitor/core";
import { chCall, msToCh } from "./clickhouse-call.ts";
import { MIGRATIONS, MIGRATIONS_BOOTSTRAP, type Migration } from "./migrations.ts";

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

/** The data folder of an embedded engine and the filesystem that holds it. */
export interface LocalDiskUsage {
  /** Bytes allocated to the files of the data folder. */
  used_bytes: number;
  /** Size of the filesystem holding the folder. */
  total_bytes: number;
  /** Bytes of that filesystem available to this process. */
  free_bytes: number;
}

const DAY_MS = 86_400_000;
/** The most rows one group commit of insertRuns writes (calls beyond wait for the next group). */
export const MAX_GROUP_ROWS = 20_000;

/**
 * The longest the next group waits for callers of the group just written to send again, when fewer
 * rows than half of those in flight are waiting (insertRuns, "Group commit" in docs/monitor-tables.md).
 */
export const GROUP_GATHER_MS = 50;

/** A call of insertRuns waiting for its group. Groups run one at a time in-process, so the
 * duplicate check and the write of one group cannot interleave with another's. */
interface PendingInsert {
  rows: readonly CollectorRunRow[];
  resolve: (r: InsertRunsResult) => void;
  reject: (err: unknown) => void;
}

/** A group ready to write: the rows not stored yet, and each call's answer once they are. */
interface PreparedGroup {
  fresh: CollectorRunRow[];
  results: InsertRunsResult[];
}

const UUID_LIST_RE = /^[0-9a-f,-]*$/;

/** Any string as a SQL expression that cannot end a literal: `unhex('<its UTF-8 bytes in hex>')`. */
function sqlString(s: string): string {
  return `unhex('${Buffer.from(s, "utf8").toString("hex")}')`;
}

/** An integer as SQL text (a validated epoch ms; anything else is a bug). */
function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

/** The run_ids of validated rows as one comma-separated list (checked again: it goes inside a SQL literal). */
function uuidList(rows: readonly CollectorRunRow[]): string {
  const list = rows.map((r) => r.run_id).join(",");
  if (!UUID_LIST_RE.test(list)) throw new Error("run_id is not a validated UUID");
  return list;
}
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

/** The most runs `recentRuns` returns. */
export const MAX_RECENT_RUNS = 200;
/** The windows (hours back from now) `recentRuns` tries before reading the collector's whole history. */
const RECENT_RUNS_WINDOWS_HOURS = [1, 24, 8 * 24, 64 * 24] as const;
/** Window of the server-side query latency percentiles (system.query_log). */
export const QUERY_LOG_WINDOW_MINUTES = 15;

/** Int64/UInt64 come back as strings over HTTP (quoted 64-bit) and as numbers from chDB. */
function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v);
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const idx = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, idx)] ?? null;
}

/**
 * One series of the streak query as read for a window starting at `since`: what it takes to answer
 * for that window and for any later start (streakRowsAt), so a cached read stays exact as `now` moves.
 */
export interface StreakSeries {
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  last_run_at: number;
  last_status: RunStatus;
  /** Latest `succeeded` completed_at of all time; 0 when none. */
  last_success_at: number;
  /** completed_at of the failed runs (distinct run_ids) after the last non-failed run, in the window. */
  streak: number[];
  /** The latest failed run in the window and its error; 0 and "" when none. */
  last_failure_at: number;
  last_error: string;
}

/**
 * The rows of `consecutiveFailuresPerCollectorAccountRegion(since)` from series read for a window
 * starting at or before `since`: the same answer as reading them for `since` (pure).
 */
export function streakRowsAt(series: readonly StreakSeries[], since: number): FailureStreakRow[] {
  const out: FailureStreakRow[] = [];
  for (const s of series) {
    if (s.last_run_at < since) continue;
    out.push({
      collector: s.collector,
      cloud_account_id: s.cloud_account_id,
      cloud_region: s.cloud_region,
      last_run_at: s.last_run_at,
      last_status: s.last_status,
      last_success_at: s.last_success_at > 0 && s.last_success_at >= since ? s.last_success_at : null,
      consecutive_failures: s.streak.reduce((n, at) => (at >= since ? n + 1 : n), 0),
      last_error: s.last_failure_at > 0 && s.last_failure_at >= since ? s.last_error : "",
    });
  }
  return out;
}

/**
 * The tables the cached reads come from (the status reads and recentRuns). The read cache is keyed
 * by their parts (readVersionSql): any write to them, by any process, changes it. `collector_runs`
 * (recentRuns) also changes with its merges: a needless re-read after a write, never a stale one.
 */
export const CACHED_READ_TABLES = [
  "collector_runs",
  "collector_series",
  "collector_failed_runs",
  "cloud_accounts",
  "account_first_active",
] as const;

/**
 * The write version of the cached reads' tables: per table and partition, the active parts' count,
 * rows, highest block number and data version. An INSERT adds a part with a new block number (higher
 * than any before in its partition), a mutation raises the data version, a TTL or partition drop
 * removes rows or parts, so no write leaves it unchanged; a merge may change it (a needless re-read).
 */
export const READ_VERSION_SQL = `SELECT table, partition_id, count() AS parts, sum(rows) AS rows,
    max(max_block_number) AS block, max(data_version) AS data_version
FROM system.parts
WHERE database = 'svc' AND active AND table IN (${CACHED_READ_TABLES.map((t) => `'${t}'`).join(", ")})
GROUP BY table, partition_id
ORDER BY table, partition_id`;

/** The most reads the read cache keeps (the entries read longest ago go first). */
export const MAX_CACHED_READS = 128;

interface CacheEntry {
  version: string;
  value: Promise<unknown>;
  /** What the value was read for (the streaks' window start); null for the other reads. */
  meta: unknown;
  /** When the read was sent (performance.now()). */
  at: number;
}

export class ClickHouseRunStore implements RunStore {
  readonly #client: ClickHouseClient;
  readonly #timeoutMs: number;
  readonly #migrations: readonly Migration[];
  readonly #latency: number[] = [];
  readonly #latencyMax: number;
  readonly #localDisk: (() => Promise<LocalDiskUsage>) | undefined;
  readonly #readCache: boolean;
  readonly #writeVersion: (() => string) | undefined;
  readonly #readCacheMaxAgeMs: number;
  readonly #groupGatherMs: number;
  readonly #queryLog: boolean;
  readonly #insertSettings: ClickHouseSettings | null;
  readonly #checkClient: ClickHouseClient;
  readonly #cache = new Map<string, CacheEntry>();
  #versionRead: Promise<string> | null = null;

  constructor(client: ClickHouseClient, opts: ClickHouseRunStoreOptions = {}) {
    this.#client = client;
    this.#timeoutMs = opts.timeoutMs ?? 5000;
    this.#migrations = opts.migrations ?? MIGRATIONS;
    this.#latencyMax = opts.latencySamples ?? 1024;
    this.#localDisk = opts.localDisk;
    this.#readCache = opts.readCache ?? true;
    this.#writeVersion = opts.writeVersion;
    this.#readCacheMaxAgeMs = opts.readCacheMaxAgeMs ?? 60_000;
    this.#groupGatherMs = Math.max(0, opts.groupGatherMs ?? GROUP_GATHER_MS);
    this.#queryLog = opts.queryLog ?? true;
    this.#insertSettings = opts.insertSettings === undefined ? INSERT_SETTINGS : opts.insertSettings;
    this.#checkClient = opts.checkClient ?? client;
  }

  /**
   * The write version, read once for the calls made in the same turn of the event loop: the query
   * is sent after all of them began, so it sees every write that finished before any of them.
   */
  #version(): Promise<string> {
    if (this.#writeVersion !== undefined) return Promise.resolve(this.#writeVersion());
    this.#versionRead ??= Promise.resolve().then(() => {
      this.#versionRead = null;
      return this.#rows<Record<string, unknown>>("read version (system.parts)", READ_VERSION_SQL).then(
        (rows) => JSON.stringify(rows.map((r) => Object.values(r).map(String))),
      );
    });
    return this.#versionRead;
  }

  /**
   * read() reused while the write version is unchanged and reuse(meta of the cached read) holds:
   * the version is read before the data, so a write that lands during the read changes the version
   * the next call sees. Calls that find the same version share one read; a failed read is not kept.
   */
  async #cached<T>(
    key: string,
    read: () => Promise<T>,
    meta: unknown = null,
    reuse: (cachedMeta: unknown) => boolean = () => true,
  ): Promise<T> {
    if (!this.#readCache) return read();
    const version = await this.#version();
    const hit = this.#cache.get(key);
    const fresh =
      this.#writeVersion === undefined || performance.now() - (hit?.at ?? 0) <= this.#readCacheMaxAgeMs;
    if (hit !== undefined && hit.version === version && fresh && reuse(hit.meta))
      return hit.value as Promise<T>;
    const value = read();
    const entry: CacheEntry = { version, value, meta, at: performance.now() };
    this.#cache.delete(key);
    this.#cache.set(key, entry);
    // A few keys in use (one per read, per days and UTC day for the failures chart): the oldest go.
    for (const old of this.#cache.keys()) {
      if (this.#cache.size <= MAX_CACHED_READS) break;
      this.#cache.delete(old);
    }
    value.catch(() => {
      if (this.#cache.get(key) === entry) this.#cache.delete(key);
    });
    return value;
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** The underlying client, shared by adapters over the same database (the collector registry). */
  get client(): ClickHouseClient {
    return this.#client;
  }

  /** Runs one database call with a hard deadline (chCall); `timed` calls feed the latency samples. */
  async #call<T>(op: string, fn: (signal: AbortSignal) => Promise<T>, timed = false): Promise<T> {
    const started = performance.now();
    const out = await chCall(op, this.#timeoutMs, fn);
    if (timed) this.#recordLatency(performance.now() - started);
    return out;
  }

  #recordLatency(ms: number): void {
    this.#latency.push(ms);
    if (this.#latency.length > this.#latencyMax) this.#latency.shift();
  }

  async #rows<T>(
    op: string,
    query: string,
    params: Record<string, unknown> = {},
    client: ClickHouseClient = this.#client,
  ): Promise<T[]> {
    return this.#call(
      op,
      async (signal) => {
        const rs = await client.query({
          query,
          format: "JSONEachRow",
          query_params: params,
          abort_signal: signal,
        });
        return rs.json<T>();
      },
      true,
    );
  }

  async #command(op: string, query: string): Promise<void> {
    await this.#call(op, (signal) => this.#client.command({ query, abort_signal: signal }));
  }

  async ping(): Promise<void> {
    await this.#call("ping", async (signal) => {
      const rs = await this.#client.query({ query: "SELECT 1", format: "JSONEachRow", abort_signal: signal });
      await rs.json();
    });
  }

  async close(): Promise<void> {
    if (this.#checkClient !== this.#client) await this.#checkClient.close();
    await this.#client.close();
  }

  async migrate(): Promise<number[]> {
    for (const stmt of MIGRATIONS_BOOTSTRAP) await this.#command("migrate", stmt);
    const done = await this.#rows<{ version: unknown }>(
      "migrate",
      "SELECT DISTINCT version FROM svc.schema_migrations",
    );
    const applied = new Set(done.map((r) => num(r.version)));
    const ran: number[] = [];
    const ordered = [...this.#migrations].sort((a, b) => a.version - b.version);
    for (const m of ordered) {
      if (applied.has(m.version)) continue;
      for (const stmt of m.statements) await this.#command(`migration ${m.version} (${m.name})`, stmt);
      await this.#call("migrate", (signal) =>
        this.#client.insert({
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
   * together by the next one (group commit): one duplicate check and one INSERT for all of them, so
   * the fixed cost of an insert (a part in svc.collector_runs and one per materialized view) is paid
   * once per group, not per call. The next group's duplicate check runs while the group before it is
   * written (a pipeline of two: one INSERT at a time). Each call still gets its own answer, as if the
   * calls had run one after the other in the order they were made, and resolves only once its rows
   * are written; a call whose rows are invalid fails alone, before joining a group.
   */
  insertRuns(rows: readonly CollectorRunInput[]): Promise<InsertRunsResult> {
    let valid: CollectorRunRow[];
    try {
      // Validate everything first: a bad row means nothing of this call is written.
      valid = rows.map((r, i) => validateRun(i, r));
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<InsertRunsResult>((resolve, reject) => {
      this.#pendingInserts.push({ rows: valid, resolve, reject });
      this.#pendingRows += valid.length;
      if (!this.#inserting) void this.#drainInserts();
      else if (this.#gather !== null && this.#pendingRows >= this.#gather.rows) this.#gather.done();
    });
  }

  readonly #pendingInserts: PendingInsert[] = [];
  #pendingRows = 0;
  #inserting = false;
  /** While the next group gathers (see #drainInserts): the rows it waits for, and how to stop waiting. */
  #gather: { rows: number; done: () => void } | null = null;

  /** Waits until `rows` calls' rows are waiting, or `until` settles, or `ms` pass (when given). */
  async #waitForRows(rows: number, until: Promise<unknown> | null, ms: number | null): Promise<void> {
    if (this.#pendingRows >= rows) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#gather = { rows, done: resolve };
      if (ms !== null) timer = setTimeout(resolve, ms);
      until?.then(
        () => resolve(),
        () => resolve(),
      );
    });
    clearTimeout(timer);
    this.#gather = null;
  }

  /**
   * After a group is written, the calls already waiting form the next group. When they hold fewer
   * rows than half of those in flight (the waiting ones and the group just answered, whose callers
   * are likely to send again), wait up to `groupGatherMs` (GROUP_GATHER_MS) for that half. Without
   * this, 8 callers settle into groups of 1 and 7 calls (a straggler forms a group alone while the
   * others come back), and a 1,000-row group costs nearly what a 7,000-row one does. One caller at a
   * time never waits: nothing is waiting when its group is written.
   */
  async #gatherNextGroup(answeredRows: number): Promise<void> {
    const want = Math.min(MAX_GROUP_ROWS, Math.ceil((this.#pendingRows + answeredRows) / 2));
    if (this.#pendingRows === 0 || this.#pendingRows >= want || this.#groupGatherMs === 0) return;
    await this.#waitForRows(want, null, this.#groupGatherMs);
  }

  /** The calls waiting, in order, up to MAX_GROUP_ROWS rows (at least one call). */
  #takeGroup(): PendingInsert[] {
    const group: PendingInsert[] = [];
    let n = 0;
    while (this.#pendingInserts.length > 0) {
      const next = this.#pendingInserts[0] as PendingInsert;
      if (group.length > 0 && n + next.rows.length > MAX_GROUP_ROWS) break;
      group.push(next);
      n += next.rows.length;
      this.#pendingInserts.shift();
    }
    this.#pendingRows -= n;
    return group;
  }

  /**
   * The pipeline: while a group is written, the next one forms as soon as as many rows wait as are
   * being written (half of those in flight), and its duplicate check runs beside the write; it is
   * written once the write before it has ended. A run_id of the group being written counts as stored
   * for the next (as it would had the groups run one after the other); should that write fail, the
   * next group is checked again. When a write ends with too few rows waiting, the next group gathers
   * (#gatherNextGroup) as before.
   */
  async #drainInserts(): Promise<void> {
    this.#inserting = true;
    let writing: {
      rows: number;
      ids: ReadonlySet<string>;
      written: Promise<boolean>;
      ended: boolean;
    } | null = null;
    try {
      // Calls made in the same turn of the event loop join the first group.
      await Promise.resolve();
      let answered = 0;
      while (this.#pendingInserts.length > 0 || writing !== null) {
        if (writing !== null) {
          const current = writing;
          await this.#waitForRows(Math.min(MAX_GROUP_ROWS, current.rows), current.written, null);
          // A write that ended answers its calls before the next group forms (then gathered).
          await Promise.resolve();
          if (current.ended) {
            answered = current.rows;
            writing = null;
            continue;
          }
        } else if (answered > 0) {
          await this.#gatherNextGroup(answered);
        }
        if (this.#pendingInserts.length === 0) continue;
        const group = this.#takeGroup();
        const calls = group.map((g) => g.rows);
        let prepared: PreparedGroup;
        try {
          prepared = await this.#prepareGroup(calls, writing?.ids ?? null);
          if (writing !== null) {
            const ok = await writing.written;
            answered = writing.rows;
            writing = null;
            // The group before was not written: its run_ids are not stored after all.
            if (!ok) prepared = await this.#prepareGroup(calls, null);
          }
        } catch (err) {
          for (const g of group) g.reject(err);
          continue;
        }
        const next = {
          rows: prepared.fresh.length,
          ids: new Set(prepared.fresh.map((r) => r.run_id)),
          ended: false,
          written: this.#writeGroup(prepared.fresh).then(
            () => {
              next.ended = true;
              for (const [k, g] of group.entries()) g.resolve(prepared.results[k] as InsertRunsResult);
              return true;
            },
            (err: unknown) => {
              next.ended = true;
              for (const g of group) g.reject(err);
              return false;
            },
          ),
        };
        writing = next;
      }
    } finally {
      this.#inserting = false;
    }
  }

  /**
   * Each call's answer and the rows to write: repeats inside a call (first occurrence wins), run_ids
   * of an earlier call of the group, of the group being written (`writing`) and those already stored
   * are duplicates, as they would be had the calls run one after the other.
   */
  async #prepareGroup(
    calls: readonly (readonly CollectorRunRow[])[],
    writing: ReadonlySet<string> | null,
  ): Promise<PreparedGroup> {
    // 2. Drop repeats inside each call (first occurrence wins). A run_id of an earlier call of the
    // group counts as already stored (step 3), as it would be had the calls run one after the other.
    const perCall = calls.map((rows) => {
      const seen = new Set<string>();
      const duplicates: string[] = [];
      const unique: CollectorRunRow[] = [];
      for (const r of rows) {
        if (seen.has(r.run_id)) duplicates.push(r.run_id);
        else {
          seen.add(r.run_id);
          unique.push(r);
        }
      }
      return { duplicates, unique };
    });
    const unique = [...new Map(perCall.flatMap((c) => c.unique.map((r) => [r.run_id, r] as const))).values()];
    const toCheck = writing === null ? unique : unique.filter((r) => !writing.has(r.run_id));
    const stored = toCheck.length === 0 ? new Set<string>() : await this.#storedRunIds(toCheck);
    const fresh: CollectorRunRow[] = [];
    const written = new Set<string>();
    const results = perCall.map((c) => {
      let inserted = 0;
      for (const r of c.unique) {
        if (stored.has(r.run_id) || written.has(r.run_id) || writing?.has(r.run_id) === true)
          c.duplicates.push(r.run_id);
        else {
          written.add(r.run_id);
          fresh.push(r);
          inserted += 1;
        }
      }
      return { inserted, duplicates: c.duplicates };
    });
    return { fresh, results };
  }

  /**
   * 3. The run_ids of `rows` already stored. A run sent again (a retry, a replayed batch) is the same
   * record with the same collector, started_at and completed_at, so the lookup is limited to the
   * batch's collectors and time ranges: the primary key (collector, completed_at, ...) reads only
   * those granules, and the started_at range skips every part whose rows all started outside it (the
   * parts' min/max index of the partition key): the bulk of an old table is never opened. A bloom
   * filter alone on 1,000 ids matches most granules of a 59M-row table. (A run_id re-sent with other
   * timestamps is not caught here; reads still count it once, since they aggregate by run_id.)
   */
  async #storedRunIds(rows: readonly CollectorRunRow[]): Promise<Set<string>> {
    let minCompleted = Number.POSITIVE_INFINITY;
    let maxCompleted = Number.NEGATIVE_INFINITY;
    let minStarted = Number.POSITIVE_INFINITY;
    let maxStarted = Number.NEGATIVE_INFINITY;
    const collectors = new Set<string>();
    for (const r of rows) {
      minCompleted = Math.min(minCompleted, r.completed_at);
      maxCompleted = Math.max(maxCompleted, r.completed_at);
      minStarted = Math.min(minStarted, r.started_at);
      maxStarted = Math.max(maxStarted, r.started_at);
      collectors.add(r.collector);
    }
    // No query parameters: chdb-node sends parameterised statements one after another, process-wide,
    // and formatting thousands of ids as parameters cost more than the lookup. Every value is a
    // literal that cannot end its quotes: the collectors as hex (unhex), the times as integers, the
    // ids as one string split by the database (has() over the constant array was cheaper than IN
    // with a subquery: 8–10 against 13–17 ms for 4,000 ids at 59 M rows). validateRun has checked
    // each id is a UUID in lower case, as toString writes it; uuidList checks again.
    const names = [...collectors].map(sqlString).join(", ");
    const existing = await this.#rows<{ run_id: string }>(
      "insertRuns (duplicate check)",
      `SELECT DISTINCT run_id FROM svc.collector_runs
       WHERE collector IN (${names})
         AND completed_at >= fromUnixTimestamp64Milli(${int(minCompleted)})
         AND completed_at <= fromUnixTimestamp64Milli(${int(maxCompleted)})
         AND started_at >= fromUnixTimestamp64Milli(${int(minStarted)})
         AND started_at <= fromUnixTimestamp64Milli(${int(maxStarted)})
         AND has(splitByChar(',', '${uuidList(rows)}'), toString(run_id))`,
      {},
      this.#checkClient,
    );
    return new Set(existing.map((r) => r.run_id.toLowerCase()));
  }

  /** 4. One INSERT statement: ClickHouse parses and checks the whole block before writing. */
  async #writeGroup(fresh: readonly CollectorRunRow[]): Promise<void> {
    if (fresh.length === 0) return;
    await this.#call("insertRuns", (signal) =>
      this.#client.insert({
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
    await this.#call("upsertAccount", (signal) =>
      this.#client.insert({
        table: "svc.cloud_accounts",
        values: [{ ...a, updated_at: msToCh(a.updated_at) }],
        format: "JSONEachRow",
        abort_signal: signal,
      }),
    );
  }

  latestRunPerCollector(): Promise<LatestRunRow[]> {
    return this.#heads().then((h) => copyRows(h.latest));
  }

  lastSuccessPerCollector(): Promise<LastSuccessRow[]> {
    return this.#heads().then((h) => copyRows(h.successes));
  }

  /** One cached read serves both per-collector reads (#collectorHeads). */
  #heads(): Promise<{ latest: LatestRunRow[]; successes: LastSuccessRow[] }> {
    return this.#cached("heads", () => this.#collectorHeads());
  }

  /**
   * Both per-collector reads at once (docs/monitor-tables.md, "Per collector from the series"): each
   * collector's highest latest_key and latest_success_key of svc.collector_series, then the runs
   * those keys name, read from svc.collector_runs by their primary key (collector, completed_at).
   * A key packs the order of "latest" (LATEST_KEY_EXPR) but its last tie-break, run_id: of the runs
   * a key names, the highest run_id is the one, as argMax over the full order picked it.
   */
  async #collectorHeads(): Promise<{ latest: LatestRunRow[]; successes: LastSuccessRow[] }> {
    const keys = await this.#rows<{ collector: string; k: string; s: string }>(
      "latestRunPerCollector (keys)",
      `SELECT collector, toString(max(latest_key)) AS k, toString(max(latest_success_key)) AS s
FROM svc.collector_series GROUP BY collector`,
    );
    if (keys.length === 0) return { latest: [], successes: [] };
    const heads = keys.map((r) => ({
      name: sqlString(String(r.collector)),
      latest: unpackKey(r.k),
      success: BigInt(r.s) > 0n ? unpackKey(r.s) : null,
    }));
    const at = (ms: number) => `fromUnixTimestamp64Milli(${int(ms)})`;
    // Literals, not parameters or a subquery: the keys read above, then the runs at those times,
    // read by the primary key (a granule per collector and part; an IN over a subquery read every
    // granule's index), newest run_id first in the database's own UUID order (argMax's order).
    const pairs = heads.flatMap((h) => [
      `(${h.name}, ${at(h.latest.completed)})`,
      ...(h.success === null ? [] : [`(${h.name}, ${at(h.success.completed)})`]),
    ]);
    const rows = await this.#rows<Record<string, unknown>>(
      "latestRunPerCollector",
      // Other names for the ms columns: an alias named as a column would stand in for it in WHERE.
      `SELECT
    collector,
    toString(run_id) AS id,
    cloud_account_id,
    cloud_region,
    toUnixTimestamp64Milli(started_at) AS started_ms,
    toUnixTimestamp64Milli(completed_at) AS completed_ms,
    status,
    events_produced,
    rows_inserted,
    error,
    duration_ms
FROM svc.collector_runs
WHERE (collector, completed_at) IN (${pairs.join(", ")})
ORDER BY collector, run_id DESC`,
    );
    const byName = new Map(keys.map((r, i) => [String(r.collector), heads[i] as (typeof heads)[number]]));
    const latestBy = new Map<string, LatestRunRow>();
    const successBy = new Map<string, LastSuccessRow>();
    for (const r of rows) {
      const run = toRunRow({ ...r, run_id: r.id, started_at: r.started_ms, completed_at: r.completed_ms });
      const h = byName.get(run.collector);
      if (h === undefined) continue;
      const rank = run.status === "failed" ? 2 : run.status === "partial" ? 1 : 0;
      const { latest: l, success: s } = h;
      if (
        !latestBy.has(run.collector) &&
        run.completed_at === l.completed &&
        run.started_at === l.started &&
        rank === l.rank
      )
        latestBy.set(run.collector, run);
      if (
        s !== null &&
        !successBy.has(run.collector) &&
        run.status === "succeeded" &&
        run.completed_at === s.completed &&
        run.started_at === s.started
      )
        successBy.set(run.collector, {
          collector: run.collector,
          last_success_at: run.completed_at,
          run_id: run.run_id,
          cloud_account_id: run.cloud_account_id,
          cloud_region: run.cloud_region,
        });
    }
    const byCollector = <T extends { collector: string }>(m: Map<string, T>) =>
      [...m.values()].sort((a, b) => (a.collector < b.collector ? -1 : a.collector > b.collector ? 1 : 0));
    const latest = byCollector(latestBy);
    const found = byCollector(successBy);
    return { latest, successes: found };
  }

  /**
   * The latest `limit` runs of one collector, newest first (by completed_at, then run_id), optionally
   * of one account and region: what an operator reads to triage it (`GET /api/system/runs`).
   */
  recentRuns(
    collector: string,
    opts: { limit?: number; cloud_account_id?: string; cloud_region?: string } = {},
  ): Promise<CollectorRunRow[]> {
    const limit = Math.max(1, Math.min(MAX_RECENT_RUNS, Math.floor(opts.limit ?? 20)));
    const account = opts.cloud_account_id ?? "";
    const region = opts.cloud_region ?? "";
    // Cached as the status reads are (the page asks for every collector's at each load and refresh).
    return this.#cached(JSON.stringify(["recent", collector, account, region, limit]), () =>
      this.#recentRuns(collector, account, region, limit),
    ).then(copyRows);
  }

  async #recentRuns(
    collector: string,
    account: string,
    region: string,
    limit: number,
  ): Promise<CollectorRunRow[]> {
    // The table is ordered by (collector, completed_at, …): a window on completed_at reads only the
    // collector's newest stretch of the key range, where the whole history sorted would be read
    // otherwise (6 M rows: 45 ms a call). A collector with many accounts × regions fills `limit`
    // within the hour; the wider windows (then none) serve sparse ones, each narrower read cheap.
    let rows: Record<string, unknown>[] = [];
    for (const hours of [...RECENT_RUNS_WINDOWS_HOURS, null]) {
      rows = await this.#rows<Record<string, unknown>>(
        "recentRuns",
        // The inner query names the table's own columns: an outer alias of the same name (the ms
        // conversions) would otherwise stand in for the column in WHERE and ORDER BY, and neither
        // the window nor the sorting key could narrow the read.
        `SELECT
    collector,
    toString(run_id) AS run_id,
    cloud_account_id,
    cloud_region,
    toUnixTimestamp64Milli(started_at) AS started_at,
    toUnixTimestamp64Milli(completed_at) AS completed_at,
    status,
    events_produced,
    rows_inserted,
    error,
    duration_ms
FROM (
  SELECT collector, run_id, cloud_account_id, cloud_region, started_at, completed_at, status,
    events_produced, rows_inserted, error, duration_ms
  FROM svc.collector_runs
  WHERE collector = {collector:String}
    AND ({account:String} = '' OR cloud_account_id = {account:String})
    AND ({region:String} = '' OR cloud_region = {region:String})
    ${hours === null ? "" : "AND completed_at >= now64(3) - toIntervalHour({hours:UInt32})"}
  ORDER BY completed_at DESC, toString(run_id) DESC
  LIMIT 1 BY run_id
  LIMIT {limit:UInt32}
)
ORDER BY completed_at DESC, run_id DESC`,
        {
          collector,
          account,
          region,
          limit,
          ...(hours === null ? {} : { hours }),
        },
      );
      if (rows.length >= limit) break;
    }
    return rows.map(toRunRow);
  }

  async consecutiveFailuresPerCollectorAccountRegion(
    sinceMs: number,
    opts: { failingOnly?: boolean } = {},
  ): Promise<FailureStreakRow[]> {
    const since = Math.max(0, Math.floor(sinceMs));
    const failingOnly = opts.failingOnly === true;
    // The series as read for a window starting at or before `since` answer for `since` too
    // (streakRowsAt), so a cached read serves every later window until the next write.
    const series = await this.#cached(
      `streaks/${failingOnly ? "failing" : "all"}`,
      () => this.#readStreakSeries(since, failingOnly),
      since,
      (readSince) => typeof readSince === "number" && readSince <= since,
    );
    return streakRowsAt(series, since);
  }

  /**
   * The streak query (docs/monitor-tables.md, "Latest state"): the maxima per series from
   * svc.collector_series (a few thousand rows), the failed runs of the window from
   * svc.collector_failed_runs (about 2 % of the runs): the same answer as aggregating
   * svc.collector_runs over the window (the query before migration 13; compared in
   * latest-state.test.ts). All-time maxima serve for the window's: a series is listed when its last
   * run is in the window, so its latest key is too; a success or non-failure before the window counts
   * as none (no failure precedes it). `failingOnly` keeps the series whose latest run did not succeed:
   * a series whose latest run succeeded has no failure after it (its last non-failed run is its last
   * run), so it has 0 failures in a row whatever the window.
   */
  async #readStreakSeries(since: number, failingOnly: boolean): Promise<StreakSeries[]> {
    const rows = await this.#rows<Record<string, unknown>>(
      "consecutiveFailuresPerCollectorAccountRegion",
      `SELECT
    collector,
    cloud_account_id,
    cloud_region,
    toUnixTimestamp64Milli(s.last_run) AS last_run_at,
    ['succeeded', 'partial', 'failed'][toUInt8(s.latest_key % 4) + 1] AS last_status,
    toUnixTimestamp64Milli(s.last_success) AS last_success_at,
    arrayMap(x -> toUnixTimestamp64Milli(x.2), arrayFilter(x -> x.2 > s.last_non_failed, f.fails)) AS streak,
    toUnixTimestamp64Milli(f.last_failure) AS last_failure_at,
    f.last_error AS last_error
FROM (
    SELECT
        collector,
        cloud_account_id,
        cloud_region,
        max(last_run_at) AS last_run,
        max(latest_key) AS latest_key,
        max(last_success_at) AS last_success,
        max(last_non_failed_at) AS last_non_failed
    FROM svc.collector_series
    GROUP BY collector, cloud_account_id, cloud_region
    HAVING last_run >= fromUnixTimestamp64Milli({since:Int64})
       AND ({failing_only:UInt8} = 0 OR latest_key % 4 != 0)
) AS s
LEFT JOIN (
    SELECT
        collector,
        cloud_account_id,
        cloud_region,
        groupUniqArray((run_id, completed_at)) AS fails,
        argMax(error, completed_at) AS last_error,
        max(completed_at) AS last_failure
    FROM svc.collector_failed_runs
    WHERE completed_at >= fromUnixTimestamp64Milli({since:Int64})
    GROUP BY collector, cloud_account_id, cloud_region
) AS f USING (collector, cloud_account_id, cloud_region)
ORDER BY collector, cloud_account_id, cloud_region
SETTINGS join_use_nulls = 0`,
      { since, failing_only: failingOnly ? 1 : 0 },
    );
    return rows.map((r) => ({
      collector: String(r.collector),
      cloud_account_id: String(r.cloud_account_id),
      cloud_region: String(r.cloud_region),
      last_run_at: num(r.last_run_at),
      last_status: String(r.last_status) as RunStatus,
      last_success_at: num(r.last_success_at),
      streak: Array.isArray(r.streak) ? r.streak.map(num) : [],
      last_failure_at: num(r.last_failure_at),
      last_error: r.last_error === null || r.last_error === undefined ? "" : String(r.last_error),
    }));
  }

  accountsLatest(): Promise<CloudAccountRow[]> {
    return this.#cached("accounts", () => this.#accountsLatest()).then(copyRows);
  }

  async #accountsLatest(): Promise<CloudAccountRow[]> {
    const rows = await this.#rows<Record<string, unknown>>(
      "accountsLatest",
      `SELECT
    account_id,
    a.account_id AS account_id,
    a.latest_name AS latest_name,
    a.latest_status AS latest_status,
    a.updated_ms AS updated_ms,
    f.first_active_ms AS first_active_ms
FROM (
    SELECT
        account_id,
        argMax(account_name, updated_at) AS latest_name,
        argMax(svc_status, updated_at) AS latest_status,
        toUnixTimestamp64Milli(max(updated_at)) AS updated_ms
    FROM svc.cloud_accounts
    GROUP BY account_id
) AS a
LEFT JOIN (
    SELECT account_id, toNullable(toUnixTimestamp64Milli(min(first_active_at))) AS first_active_ms
    FROM svc.account_first_active
    GROUP BY account_id
) AS f ON f.account_id = a.account_id
ORDER BY account_id`,
    );
    return rows.map((r) => ({
      account_id: String(r.account_id),
      account_name: String(r.latest_name),
      svc_status: String(r.latest_status) as CloudAccountRow["svc_status"],
      updated_at: num(r.updated_ms),
      first_active_at:
        r.first_active_ms === null || r.first_active_ms === undefined ? null : num(r.first_active_ms),
    }));
  }

  lastSucceededRunPerAccount(sinceMs: number): Promise<AccountLastSuccessRow[]> {
    const since = Math.max(1, Math.floor(sinceMs));
    return this.#cached(`scans/${since}`, () => this.#lastSucceededRunPerAccount(since)).then(copyRows);
  }

  async #lastSucceededRunPerAccount(sinceMs: number): Promise<AccountLastSuccessRow[]> {
    const rows = await this.#rows<Record<string, unknown>>(
      "lastSucceededRunPerAccount",
      `SELECT cloud_account_id, toUnixTimestamp64Milli(max(last_success_at)) AS last_success_ms
FROM svc.collector_series
GROUP BY cloud_account_id
HAVING max(last_success_at) >= fromUnixTimestamp64Milli({since:Int64})
ORDER BY cloud_account_id`,
      { since: Math.max(1, Math.floor(sinceMs)) },
    );
    return rows.map((r) => ({
      cloud_account_id: String(r.cloud_account_id),
      last_success_at: num(r.last_success_ms),
    }));
  }

  /** Cached per number of days and UTC day until the next write (the days are the only input). */
  failuresPerCollectorPerDay(days = 7, nowMs = Date.now()): Promise<FailuresPerDayRow[]> {
    const n = Math.max(1, Math.floor(days));
    const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
    return this.#cached(`failures/${n}/${today}`, () => this.#failuresPerCollectorPerDay(n, today)).then(
      copyRows,
    );
  }

  async #failuresPerCollectorPerDay(days: number, nowMs: number): Promise<FailuresPerDayRow[]> {
    const n = Math.max(1, Math.floor(days));
    const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
    const from = today - (n - 1) * DAY_MS;
    const dayList = Array.from({ length: n }, (_, i) =>
      new Date(from + i * DAY_MS).toISOString().slice(0, 10),
    );
    const [counts, collectors] = await Promise.all([
      this.#rows<Record<string, unknown>>(
        "failuresPerCollectorPerDay",
        `SELECT collector, toString(toDate(completed_at, 'UTC')) AS day, uniqExact(run_id) AS failures
FROM svc.collector_failed_runs
WHERE completed_at >= fromUnixTimestamp64Milli({from:Int64})
  AND completed_at < fromUnixTimestamp64Milli({to:Int64})
GROUP BY collector, day`,
        { from, to: today + DAY_MS },
      ),
      this.#rows<{ collector: string }>(
        "failuresPerCollectorPerDay (collectors)",
        "SELECT DISTINCT collector FROM svc.collector_series",
      ),
    ]);
    const byKey = new Map(counts.map((r) => [`${r.collector}\u0000${r.day}`, num(r.failures)]));
    const names = new Set([...collectors.map((c) => c.collector), ...counts.map((r) => String(r.collector))]);
    const out: FailuresPerDayRow[] = [];
    for (const collector of [...names].sort()) {
      for (const day of dayList) {
        out.push({ collector, day, failures: byKey.get(`${collector}\u0000${day}`) ?? 0 });
      }
    }
    return out;
  }

  async dbHealth(): Promise<DbHealth> {
    // The independent reads at once: the parts, the data folder (embedded), the running queries and
    // the server's query log.
    const partsRead = this.#rows<Record<string, unknown>>(
      "dbHealth (system.parts)",
      `SELECT sum(bytes_on_disk) AS used, sumIf(bytes_on_disk, database = 'svc') AS svc_used
FROM system.parts WHERE active`,
    );
    const localRead: Promise<LocalDiskUsage | null> =
      this.#localDisk === undefined
        ? Promise.resolve(null)
        : // the folder or its filesystem cannot be read: system.disks below
          this.#localDisk().catch(() => null);
    const activeRead = this.#rows<Record<string, unknown>>(
      "dbHealth (system.processes)",
      "SELECT count() AS n FROM system.processes WHERE query_id != queryID()",
    ).then(
      ([p]) => (p ? num(p.n) : null),
      (err: unknown) => {
        if (!(err instanceof RunStoreQueryError)) throw err;
        return null;
      },
    );
    const [[parts], local, active, server] = await Promise.all([
      partsRead,
      localRead,
      activeRead,
      this.#queryLogLatency(),
    ]);
    let total: number | null = local?.total_bytes ?? null;
    let free: number | null = local?.free_bytes ?? null;
    const folderUsed: number | null = local?.used_bytes ?? null;
    if (folderUsed === null) {
      try {
        const [d] = await this.#rows<Record<string, unknown>>(
          "dbHealth (system.disks)",
          "SELECT sum(total_space) AS total, sum(free_space) AS free FROM system.disks",
        );
        total = d ? num(d.total) : null;
        free = d ? num(d.free) : null;
      } catch (err) {
        if (!(err instanceof RunStoreQueryError)) throw err;
      }
    }
    const sorted = [...this.#latency].sort((a, b) => a - b);
    const round = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);
    const latency = server ?? {
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      samples: sorted.length,
    };
    return {
      disk_used_bytes: folderUsed ?? num(parts?.used ?? 0),
      svc_disk_used_bytes: num(parts?.svc_used ?? 0),
      disk_total_bytes: total,
      disk_free_bytes: free,
      active_queries: active,
      query_p50_ms: round(latency.p50),
      query_p95_ms: round(latency.p95),
      query_p99_ms: round(latency.p99),
      query_samples: latency.samples,
      sources: {
        disk: folderUsed === null ? "system.parts+system.disks" : "data-folder+statfs",
        active_queries: active === null ? "unavailable" : "system.processes",
        query_latency: server === null ? "client-timings" : "system.query_log",
      },
    };
  }

  /**
   * p50/p95/p99 and count of the queries the server finished in the last QUERY_LOG_WINDOW_MINUTES,
   * from system.query_log (initial queries only, so a distributed query counts once). Null when
   * the table does not exist (chDB), cannot be read (grants) or holds no such query (logging off):
   * the caller then falls back to its own client-side timings.
   */
  async #queryLogLatency(): Promise<{ p50: number; p95: number; p99: number; samples: number } | null> {
    if (!this.#queryLog) return null;
    let row: Record<string, unknown> | undefined;
    try {
      [row] = await this.#rows<Record<string, unknown>>(
        "dbHealth (system.query_log)",
        `SELECT count() AS n, quantilesTiming(0.5, 0.95, 0.99)(query_duration_ms) AS q
FROM system.query_log
WHERE event_date >= toDate(now() - INTERVAL ${QUERY_LOG_WINDOW_MINUTES} MINUTE)
  AND event_time >= now() - INTERVAL ${QUERY_LOG_WINDOW_MINUTES} MINUTE
  AND type = 'QueryFinish'
  AND is_initial_query`,
      );
    } catch (err) {
      if (err instanceof RunStoreQueryError) return null;
      throw err;
    }
    const samples = num(row?.n ?? 0);
    const q = Array.isArray(row?.q) ? row.q.map(num) : [];
    const [p50, p95, p99] = q;
    if (!(samples > 0) || p50 === undefined || p95 === undefined || p99 === undefined) return null;
    if (![p50, p95, p99].every(Number.isFinite)) return null;
    return { p50, p95, p99, samples };
  }
}

/** A copy of cached rows for one caller (callers may sort or change what they get). */
function copyRows<T extends object>(rows: readonly T[]): T[] {
  return rows.map((r) => ({ ...r }));
}

/** The times and status rank a latest_key / latest_success_key packs: completed ms · 2⁵⁴ + started ms · 4 + rank. */
function unpackKey(key: string): { completed: number; started: number; rank: number } {
  const k = BigInt(key);
  return {
    completed: Number(k >> 54n),
    started: Number((k >> 2n) & ((1n << 52n) - 1n)),
    rank: Number(k & 3n),
  };
}

function toRunRow(r: Record<string, unknown>): CollectorRunRow {
  return {
    run_id: String(r.run_id),
    collector: String(r.collector),
    cloud_account_id: String(r.cloud_account_id),
    cloud_region: String(r.cloud_region),
    started_at: num(r.started_at),
    completed_at: num(r.completed_at),
    status: String(r.status) as RunStatus,
    events_produced: num(r.events_produced),
    rows_inserted: num(r.rows_inserted),
    error: String(r.error),
    duration_ms: num(r.duration_ms),
  };
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
