/**
 * The OutcomeStore on ClickHouse (a server over HTTP, or chDB), over the ClickHouseSql port. Two
 * MergeTree tables in their own database (docs/outcomes.md): `served_searches` and
 * `outcome_events`. quality() and trainingRows() aggregate in the database: a busy shop's week is
 * millions of searches, and JavaScript only ever sees the aggregates. Every value reaches SQL as a
 * query parameter; only the database name (a checked identifier) and the retention (a checked
 * integer) are written into DDL, where parameters are not allowed.
 */
import { clickhouseShadowComparison } from "./clickhouse-comparison.ts";
import { type ClickHouseSql, type SqlParams, sqlIdentifier } from "./clickhouse-sql.ts";
import { checkDriftCountsQuery, emptyBinCounts } from "./drift/drift-counts.ts";
import { DEFAULT_RETENTION_DAYS } from "./limits.ts";
import { EVENT_LEAD_MS } from "./outcome-math.ts";
import type {
  DriftCountsQuery,
  DriftDayCounts,
  OutcomeScope,
  OutcomeStore,
  QualityInputs,
  QualityQuery,
  ScoredModel,
  ScoredModelsQuery,
  ShadowComparisonInputs,
  ShadowComparisonQuery,
  ShadowPair,
  ShadowPairsQuery,
  TrainingQueryRow,
  TrainingRowsQuery,
} from "./ports.ts";
import type { OutcomeEvent, ServedSearch } from "./records.ts";
import { checkRetentionDays } from "./retention.ts";

export interface ClickHouseOutcomeStoreOptions {
  /** The database of the two tables (default `relevance`). */
  database?: string;
  /** Days rows are kept (the tables' TTL): OUTCOME_RETENTION_DAYS, default 90. */
  retentionDays?: number;
}

export const DEFAULT_OUTCOME_DATABASE = "relevance";

/** DateTime64(3, 'UTC') text of an epoch-ms time, as JSONEachRow input takes it. */
function chTime(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace("Z", "");
}

const n = (v: unknown): number => Number(v);

export class ClickHouseOutcomeStore implements OutcomeStore {
  readonly database: string;
  readonly retentionDays: number;
  private readonly db: string;
  private readonly sql: ClickHouseSql;
  private migrated: Promise<void> | null = null;

  constructor(sql: ClickHouseSql, opts: ClickHouseOutcomeStoreOptions = {}) {
    this.sql = sql;
    this.database = opts.database ?? DEFAULT_OUTCOME_DATABASE;
    this.db = sqlIdentifier(this.database);
    this.retentionDays = checkRetentionDays(opts.retentionDays ?? DEFAULT_RETENTION_DAYS);
  }

  /** Creates the database and tables if missing and sets their TTL to the retention. Idempotent. */
  migrate(): Promise<void> {
    this.migrated ??= this.runMigrations().catch((err: unknown) => {
      this.migrated = null;
      throw err;
    });
    return this.migrated;
  }

  private async runMigrations(): Promise<void> {
    const days = this.retentionDays;
    await this.sql.exec(`CREATE DATABASE IF NOT EXISTS ${this.db}`);
    await this.sql.exec(
      `CREATE TABLE IF NOT EXISTS ${this.db}.served_searches (
        account LowCardinality(String),
        index_name LowCardinality(String),
        index_uid LowCardinality(String),
        query_uid String,
        model_id LowCardinality(String),
        score Float64,
        features Array(Float64),
        query String,
        query_key String,
        hit_ids Array(String),
        estimated_total_hits UInt64,
        latency_ms Float64,
        served_at DateTime64(3, 'UTC'),
        user_hash Nullable(String),
        INDEX query_uid_bloom query_uid TYPE bloom_filter GRANULARITY 4
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(served_at)
      ORDER BY (account, index_name, served_at, query_uid)
      TTL toDateTime(served_at) + INTERVAL ${days} DAY`,
    );
    await this.sql.exec(
      `CREATE TABLE IF NOT EXISTS ${this.db}.outcome_events (
        account LowCardinality(String),
        index_name LowCardinality(String),
        query_uid Nullable(String),
        event_type Enum8('click' = 1, 'conversion' = 2),
        event_name String,
        object_id Nullable(String),
        object_name Nullable(String),
        position Nullable(UInt32),
        user_hash String,
        received_at DateTime64(3, 'UTC'),
        INDEX query_uid_bloom query_uid TYPE bloom_filter GRANULARITY 4
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(received_at)
      ORDER BY (account, index_name, received_at)
      TTL toDateTime(received_at) + INTERVAL ${days} DAY`,
    );
    // Columns added after the table was first made: idempotent, so an existing table gains them once.
    // Nullable: rows from before shadow scoring, and unsampled searches, have no shadow score.
    await this.sql.exec(
      `ALTER TABLE ${this.db}.served_searches
        ADD COLUMN IF NOT EXISTS shadow_model_id Nullable(String),
        ADD COLUMN IF NOT EXISTS shadow_score Nullable(Float64)`,
    );
    // A changed OUTCOME_RETENTION_DAYS changes the TTL of tables made under the old one.
    for (const [table, column] of [
      ["served_searches", "served_at"],
      ["outcome_events", "received_at"],
    ] as const) {
      const current = await this.tableTtlDays(table);
      if (current !== days)
        await this.sql.exec(
          `ALTER TABLE ${this.db}.${table} MODIFY TTL toDateTime(${column}) + INTERVAL ${days} DAY`,
        );
    }
  }

  /** The TTL in days a table has now (from its engine clause), or null. */
  async tableTtlDays(table: "served_searches" | "outcome_events"): Promise<number | null> {
    const rows = await this.sql.query<{ engine_full: string }>(
      "SELECT engine_full FROM system.tables WHERE database = {db:String} AND name = {table:String}",
      { db: this.database, table },
    );
    const m = /toIntervalDay\((\d+)\)/.exec(rows[0]?.engine_full ?? "");
    return m === null ? null : Number(m[1]);
  }

  async recordSearches(rows: readonly ServedSearch[]): Promise<void> {
    if (rows.length === 0) return;
    await this.migrate();
    await this.sql.insert(
      `${this.database}.served_searches`,
      rows.map((r) => ({
        account: r.account,
        index_name: r.index,
        index_uid: r.indexUid,
        query_uid: r.queryUid,
        model_id: r.modelId,
        score: r.score,
        features: r.features,
        query: r.query,
        query_key: r.queryKey,
        hit_ids: r.hitIds,
        estimated_total_hits: r.estimatedTotalHits,
        latency_ms: r.latencyMs,
        served_at: chTime(r.servedAt),
        user_hash: r.userHash,
        shadow_model_id: r.shadowModelId ?? null,
        shadow_score: r.shadowScore ?? null,
      })),
    );
  }

  async shadowPairs(q: ShadowPairsQuery): Promise<ShadowPair[]> {
    await this.migrate();
    const { where, params } = this.scope(q);
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT query_uid, toUnixTimestamp64Milli(served_at) AS served_ms, model_id, score,
          assumeNotNull(shadow_model_id) AS shadow_model, assumeNotNull(shadow_score) AS shadow
        FROM ${this.db}.served_searches
        WHERE ${where} AND shadow_model_id IS NOT NULL AND shadow_score IS NOT NULL
        ORDER BY served_at, query_uid
        LIMIT {limit:UInt32}`,
      { ...params, limit: Math.max(0, Math.floor(q.limit)) },
    );
    return rows.map((r) => ({
      queryUid: String(r.query_uid),
      servedAt: Number(r.served_ms),
      modelId: String(r.model_id),
      score: Number(r.score),
      shadowModelId: String(r.shadow_model),
      shadowScore: Number(r.shadow),
    }));
  }

  async shadowComparison(q: ShadowComparisonQuery): Promise<ShadowComparisonInputs> {
    await this.migrate();
    const { where, params } = this.scope(q);
    return clickhouseShadowComparison(
      this.sql,
      { db: this.db, where, params, outcomesSql: this.outcomesSql() },
      q,
    );
  }

  /**
   * Bins in the database: each search is expanded into one (slot, value) per counted distribution
   * (slot 1 the score, then the features), each value's bin is how many inner edges are <= it
   * (profileBin's rule), and only the (day, slot, bin) counts come back: at most days × 10 × 101
   * rows, whatever the number of searches (a million searches: about 0.75 s on chDB). The edges
   * travel as one JSON text parameter.
   */
  async driftCounts(q: DriftCountsQuery): Promise<DriftDayCounts[]> {
    checkDriftCountsQuery(q);
    await this.migrate();
    const { where, params } = this.scope(q);
    const edges = [q.scoreEdges, ...q.features.map((f) => f.edges)];
    // 0 is the score; a feature is its 1-based position in the features array.
    const sources = [0, ...q.features.map((f) => f.index + 1)];
    const rows = await this.sql.query(
      `SELECT day, slot, bin, count() AS c FROM (
        WITH JSONExtract({edges:String}, 'Array(Array(Float64))') AS E,
          JSONExtract({sources:String}, 'Array(UInt16)') AS S
        SELECT toString(toDate(served_at)) AS day, arrayJoin(arrayEnumerate(S)) AS slot,
          if(S[slot] = 0, score, features[S[slot]]) AS v, E[slot] AS e,
          if(length(e) = 0 OR NOT isFinite(v), -1,
            toInt32(arrayCount(x -> x <= v, arraySlice(e, 2, greatest(toInt64(length(e)) - 2, 0))))) AS bin
        FROM ${this.db}.served_searches WHERE ${where})
      GROUP BY day, slot, bin ORDER BY day, slot, bin`,
      { ...params, edges: JSON.stringify(edges), sources: JSON.stringify(sources) },
    );
    const days = new Map<string, DriftDayCounts>();
    for (const r of rows) {
      const day = String(r.day);
      let d = days.get(day);
      if (d === undefined) {
        d = {
          day,
          score: emptyBinCounts(q.scoreEdges),
          features: q.features.map((f) => emptyBinCounts(f.edges)),
        };
        days.set(day, d);
      }
      const slot = n(r.slot);
      const into = slot === 1 ? d.score : d.features[slot - 2];
      if (into === undefined) continue;
      const bin = n(r.bin);
      if (bin < 0) into.missing += n(r.c);
      else into.counts[bin] = (into.counts[bin] ?? 0) + n(r.c);
    }
    return [...days.values()];
  }

  async scoredModels(q: ScoredModelsQuery): Promise<ScoredModel[]> {
    if (q.limit <= 0) return [];
    await this.migrate();
    const rows = await this.sql.query(
      `SELECT account, index_name, model_id, count() AS searches
      FROM ${this.db}.served_searches
      WHERE served_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')
        AND served_at < fromUnixTimestamp64Milli({until:Int64}, 'UTC')
      GROUP BY account, index_name, model_id
      ORDER BY account, index_name, model_id LIMIT {limit:UInt32}`,
      { since: Math.floor(q.since), until: Math.floor(q.until), limit: Math.floor(q.limit) },
    );
    return rows.map((r) => ({
      account: String(r.account),
      index: String(r.index_name),
      modelId: String(r.model_id),
      searches: n(r.searches),
    }));
  }

  async recordEvents(rows: readonly OutcomeEvent[]): Promise<void> {
    if (rows.length === 0) return;
    await this.migrate();
    await this.sql.insert(
      `${this.database}.outcome_events`,
      rows.map((r) => ({
        account: r.account,
        index_name: r.index,
        query_uid: r.queryUid,
        event_type: r.eventType,
        event_name: r.eventName,
        object_id: r.objectId,
        object_name: r.objectName,
        position: r.position,
        user_hash: r.userHash,
        received_at: chTime(r.receivedAt),
      })),
    );
  }

  /** The scope's searches (WHERE clause) and its parameters. */
  private scope(q: OutcomeScope): { where: string; params: Record<string, string | number> } {
    return {
      where: `account = {account:String} AND index_name = {index:String}
        AND served_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')
        AND served_at < fromUnixTimestamp64Milli({until:Int64}, 'UTC')
        AND ({all_models:UInt8} = 1 OR model_id = {model:String})`,
      params: {
        account: q.account,
        index: q.index,
        since: Math.floor(q.since),
        until: Math.floor(q.until),
        all_models: q.modelId === undefined ? 1 : 0,
        model: q.modelId ?? "",
        events_from: Math.max(0, Math.floor(q.since) - EVENT_LEAD_MS),
      },
    };
  }

  /**
   * Each queryUid the account's events name, with whether it had a click and a conversion: joined
   * to the scoped searches by a hash join. (Filtering the events by `IN (the scoped uids)` first
   * costs five times as much on chDB at a million searches.) Events received before
   * EVENT_LEAD_MS ahead of the range cannot follow a search in it and are not read.
   */
  private outcomesSql(): string {
    return `SELECT assumeNotNull(query_uid) AS query_uid,
        max(event_type = 'click') AS clicked, max(event_type = 'conversion') AS converted
      FROM ${this.db}.outcome_events
      WHERE account = {account:String} AND isNotNull(query_uid)
        AND received_at >= fromUnixTimestamp64Milli({events_from:Int64}, 'UTC')
      GROUP BY query_uid`;
  }

  async quality(q: QualityQuery): Promise<QualityInputs> {
    await this.migrate();
    const { where, params } = this.scope(q);
    const scoped = `scoped AS (SELECT query_uid, model_id, score, query_key, served_at
      FROM ${this.db}.served_searches WHERE ${where})`;
    const joined = `WITH ${scoped}, outcomes AS (${this.outcomesSql()}),
      joined AS (SELECT s.model_id AS model_id, s.score AS score, s.query_key AS query_key,
          s.served_at AS served_at, o.clicked AS clicked, o.converted AS converted
        FROM scoped AS s LEFT JOIN outcomes AS o ON s.query_uid = o.query_uid)`;
    // Math.round for scores >= 0: ties go up (ClickHouse's round() would round them to even).
    const fine = "if(score * 100 - floor(score * 100) >= 0.5, ceil(score * 100), floor(score * 100))";
    const all: SqlParams = {
      ...params,
      min: Math.max(0, Math.floor(q.minImpressions)),
      max: Math.max(0, Math.floor(q.maxQueries)),
    };
    const [daily, bins, queries, events] = await Promise.all([
      this.sql.query(
        `WITH ${scoped}
        SELECT model_id AS modelId, toString(toDate(served_at)) AS day,
          toUInt8(least(9, greatest(0, floor(score)))) AS bin, count() AS searches
        FROM scoped GROUP BY modelId, day, bin ORDER BY modelId, day, bin`,
        params,
      ),
      this.sql.query(
        `${joined}
        SELECT model_id AS modelId, toInt32(${fine}) AS bin, count() AS searches,
          sum(clicked) AS clicked, sum(converted) AS converted
        FROM joined GROUP BY modelId, bin ORDER BY modelId, bin`,
        params,
      ),
      q.maxQueries <= 0
        ? Promise.resolve([])
        : this.sql.query(
            `${joined}
        SELECT model_id AS modelId, query_key AS queryKey, count() AS impressions,
          sum(clicked) AS clicked, sum(converted) AS converted, sum(score) / count() AS meanScore
        FROM joined GROUP BY modelId, queryKey HAVING impressions >= {min:UInt64}
        ORDER BY impressions DESC, queryKey ASC, modelId ASC LIMIT {max:UInt64}`,
            all,
          ),
      this.sql.query(
        `WITH ${scoped}
        SELECT countIf(key_counted > 0 AND key_attributed) AS attributed,
          countIf(key_counted > 0 AND NOT key_attributed) AS unattributed,
          sumIf(key_counted - 1, key_counted > 0) AS duplicates
        FROM (
          SELECT any(in_scope) AS key_attributed, countIf(in_scope OR orphan) AS key_counted
          FROM (
            SELECT user_hash, query_uid, object_id, event_type,
              if(isNull(query_uid), 0, assumeNotNull(query_uid) IN (SELECT query_uid FROM scoped)) AS in_scope,
              index_name = {index:String} AND if(isNull(query_uid), 1,
                assumeNotNull(query_uid) NOT IN (
                  SELECT query_uid FROM ${this.db}.served_searches
                  WHERE account = {account:String} AND query_uid IN (
                    SELECT assumeNotNull(query_uid) FROM ${this.db}.outcome_events
                    WHERE account = {account:String} AND isNotNull(query_uid)
                      AND received_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')
                      AND received_at < fromUnixTimestamp64Milli({until:Int64}, 'UTC')))) AS orphan
            FROM ${this.db}.outcome_events
            WHERE account = {account:String}
              AND received_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')
              AND received_at < fromUnixTimestamp64Milli({until:Int64}, 'UTC'))
          GROUP BY user_hash, query_uid, object_id, event_type)`,
        params,
      ),
    ]);
    const e = events[0] ?? {};
    return {
      daily: daily.map((r) => ({
        modelId: String(r.modelId),
        day: String(r.day),
        bin: n(r.bin),
        searches: n(r.searches),
      })),
      bins: bins.map((r) => ({
        modelId: String(r.modelId),
        bin: n(r.bin),
        searches: n(r.searches),
        clicked: n(r.clicked),
        converted: n(r.converted),
      })),
      queries: queries.map((r) => ({
        modelId: String(r.modelId),
        queryKey: String(r.queryKey),
        impressions: n(r.impressions),
        clicked: n(r.clicked),
        converted: n(r.converted),
        meanScore: n(r.meanScore),
      })),
      events: {
        attributed: n(e.attributed ?? 0),
        unattributed: n(e.unattributed ?? 0),
        duplicates: n(e.duplicates ?? 0),
      },
    };
  }

  async trainingRows(q: TrainingRowsQuery): Promise<TrainingQueryRow[]> {
    if (q.limit <= 0) return [];
    await this.migrate();
    const { where, params } = this.scope(q);
    const rows = await this.sql.query(
      `WITH scoped AS (SELECT query_uid, model_id, features, query, query_key, served_at
          FROM ${this.db}.served_searches
          WHERE ${where} AND ({has_after:UInt8} = 0 OR query_key > {after:String})),
        outcomes AS (${this.outcomesSql()})
      SELECT s.query_key AS queryKey,
        argMax(s.query, (s.served_at, s.query_uid)) AS query,
        argMax(s.model_id, (s.served_at, s.query_uid)) AS modelId,
        argMax(s.features, (s.served_at, s.query_uid)) AS features,
        count() AS impressions, sum(o.clicked) AS clicked, sum(o.converted) AS converted,
        toUnixTimestamp64Milli(max(s.served_at)) AS lastServedAt
      FROM scoped AS s LEFT JOIN outcomes AS o ON s.query_uid = o.query_uid
      GROUP BY queryKey HAVING impressions >= {min:UInt64}
      ORDER BY queryKey LIMIT {limit:UInt64}`,
      {
        ...params,
        has_after: q.after === undefined ? 0 : 1,
        after: q.after ?? "",
        min: Math.max(0, Math.floor(q.minImpressions)),
        limit: Math.floor(q.limit),
      },
    );
    return rows.map((r) => ({
      queryKey: String(r.queryKey),
      query: String(r.query),
      modelId: String(r.modelId),
      features: (r.features as unknown[]).map(n),
      impressions: n(r.impressions),
      clicked: n(r.clicked),
      converted: n(r.converted),
      lastServedAt: n(r.lastServedAt),
    }));
  }

  /**
   * Deletes rows older than `before` now: the TTL does the same in the background, but only when
   * parts merge, which an embedded chDB may not do for a long time.
   */
  async purge(before: number): Promise<void> {
    await this.migrate();
    const params = { before: Math.floor(before) };
    for (const [table, column] of [
      ["served_searches", "served_at"],
      ["outcome_events", "received_at"],
    ] as const) {
      const cond = `${column} < fromUnixTimestamp64Milli({before:Int64}, 'UTC')`;
      // A lightweight DELETE is a mutation even when it matches nothing: only when there are rows.
      const [row] = await this.sql.query<{ c: unknown }>(
        `SELECT count() AS c FROM ${this.db}.${table} WHERE ${cond}`,
        params,
      );
      if (n(row?.c ?? 0) > 0) await this.sql.exec(`DELETE FROM ${this.db}.${table} WHERE ${cond}`, params);
    }
  }
}
