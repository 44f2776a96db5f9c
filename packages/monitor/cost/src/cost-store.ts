/**
 * The cost side of the monitor over ClickHouse (docs/monitor-cost.md): cost report ingestion,
 * cost per hierarchy node per day, and the service's own cost for the status body. Writes are
 * serialised in-process (an ingest and a re-attribution of the same partition never interleave).
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { ClickHouseHierarchyStore, type ClickHouseRunStore } from "@monitor/clickhouse";
import {
  addDays,
  costWindows,
  type DayCost,
  type HierarchyRules,
  monthStart,
  type NodeDayCost,
  type OwnCostReport,
  ownCostReport,
  type ReasonDayCost,
  SVC_INFRASTRUCTURE,
  type UntaggedServiceResource,
  untaggedServiceReason,
  utcDay,
} from "@monitor/core";
import { LATEST_HIERARCHY_KEYS_SQL, nodeDailyInsertSql } from "./attribution-sql.ts";
import type { CurSource } from "./cur-source.ts";
import { CostDb } from "./db.ts";
import { finalLines, type Partition, stageReport } from "./ingest.ts";
import { ident, lit } from "./sql.ts";
import { untaggedCandidatesSql } from "./stage-sql.ts";

export interface CostStoreOptions {
  /** The hierarchy rules, or a function read at every ingest and re-attribution. */
  rules: HierarchyRules | (() => HierarchyRules);
  /** Bound of every read and small write. Default 10 000 ms. */
  timeoutMs?: number;
  /** Bound of reading and checking one report, and of each re-attribution. Default 10 min. */
  ingestTimeoutMs?: number;
  /** Clock of `ingested_at` / `computed_at`. Default Date.now. */
  now?: () => number;
  /** Failures of background re-attributions (requestReattribution). */
  onError?: (err: unknown) => void;
}

export interface IngestResult extends Partition {
  files: string[];
  lines: number;
  /** Lines the partition held before (0 the first time): a re-delivered report replaced them. */
  replaced_lines: number;
  first_day: string;
  last_day: string;
}

const num = (v: unknown): number => (typeof v === "number" ? v : Number(v));

/** The partition key value of (billing period, payer): `(toYYYYMM(billing_period), payer_account_id)`. */
export function partitionLiteral(p: Partition): string {
  return `(${Number(p.billing_period.slice(0, 4) + p.billing_period.slice(5, 7))}, ${lit(p.payer_account_id)})`;
}

export class ClickHouseCostStore {
  readonly #db: CostDb;
  readonly #hierarchy: ClickHouseHierarchyStore;
  readonly #rules: () => HierarchyRules;
  readonly #ingestTimeoutMs: number;
  readonly #now: () => number;
  readonly #onError: (err: unknown) => void;
  #chain: Promise<unknown> = Promise.resolve();
  #reattributing: Promise<void> | null = null;
  #reattributeAgain = false;

  constructor(client: ClickHouseClient, opts: CostStoreOptions) {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    this.#db = new CostDb(client, timeoutMs);
    this.#hierarchy = new ClickHouseHierarchyStore(client, { timeoutMs });
    const rules = opts.rules;
    this.#rules = typeof rules === "function" ? rules : () => rules;
    this.#ingestTimeoutMs = opts.ingestTimeoutMs ?? 600_000;
    this.#now = opts.now ?? Date.now;
    this.#onError = opts.onError ?? (() => {});
  }

  /** A cost store on the run store's own client (same database, same migrations). */
  static fromStore(store: ClickHouseRunStore, opts: CostStoreOptions): ClickHouseCostStore {
    return new ClickHouseCostStore(store.client, { timeoutMs: Math.max(store.timeoutMs, 10_000), ...opts });
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(work);
    this.#chain = next.catch(() => {});
    return next;
  }

  /**
   * Ingests one delivery (one or more files of one billing period of one payer). All or nothing:
   * a bad file throws CostReportRejected and the stored data is as before. A re-delivered report
   * replaces its partition, so ingesting the same report twice stores it once.
   */
  ingest(sources: readonly CurSource[]): Promise<IngestResult> {
    return this.#serial(() => this.#ingest(sources));
  }

  async #ingest(sources: readonly CurSource[]): Promise<IngestResult> {
    const db = this.#db;
    const now = this.#now();
    const staged = await stageReport(db, sources, this.#ingestTimeoutMs);
    const temp = [staged.stage];
    try {
      const lines = await finalLines(db, staged, now, this.#ingestTimeoutMs);
      temp.push(lines);
      const p: Partition = {
        billing_period: staged.billing_period,
        payer_account_id: staged.payer_account_id,
      };
      const [before] = await db.rows<{ n: string | number }>(
        "cost partition size",
        "SELECT count() AS n FROM svc.cost_line_items WHERE billing_period = {bp:Date} AND payer_account_id = {payer:String}",
        { bp: p.billing_period, payer: p.payer_account_id },
      );
      const [days] = await db.rows<{ first_day: string; last_day: string }>(
        "cost report days",
        `SELECT toString(min(day)) AS first_day, toString(max(day)) AS last_day FROM ${lines}`,
      );
      const derived = await this.#derive(p, lines, now);
      temp.push(...derived);
      const part = partitionLiteral(p);
      await db.exec(
        "cost swap (lines)",
        `ALTER TABLE svc.cost_line_items REPLACE PARTITION ${part} FROM ${lines}`,
      );
      await this.#swapDerived(p, derived);
      await db.insert("cost_reports insert", "svc.cost_reports", [
        {
          billing_period: p.billing_period,
          payer_account_id: p.payer_account_id,
          files: staged.files,
          lines: staged.lines,
          first_day: days?.first_day,
          last_day: days?.last_day,
          ingested_at: now,
        },
      ]);
      return {
        ...p,
        files: staged.files,
        lines: staged.lines,
        replaced_lines: num(before?.n ?? 0),
        first_day: days?.first_day ?? p.billing_period,
        last_day: days?.last_day ?? p.billing_period,
      };
    } finally {
      for (const t of temp)
        await db.exec("cost staging cleanup", `DROP TABLE IF EXISTS ${t}`).catch(() => {});
    }
  }

  /** Cost per node per day and the untagged-service candidates of one partition, into new tables. */
  async #derive(p: Partition, source: string, now: number): Promise<[string, string]> {
    const db = this.#db;
    const rules = this.#rules();
    const params = { bp: p.billing_period, payer: p.payer_account_id };
    const suffix = globalThis.crypto.randomUUID().replaceAll("-", "");
    const daily = `svc.${ident(`_cost_daily_${suffix}`)}`;
    const untagged = `svc.${ident(`_cost_untagged_${suffix}`)}`;
    await db.exec("cost staging", `CREATE TABLE ${daily} AS svc.cost_node_daily`);
    await db.exec("cost staging", `CREATE TABLE ${untagged} AS svc.cost_untagged_service`);
    await db.exec(
      "cost attribution",
      nodeDailyInsertSql({ rules, source, target: daily, computedAtMs: now }),
      params,
      {},
      this.#ingestTimeoutMs,
    );
    const candidates = await db.rows<{
      usage_account_id: string;
      resource_id: string;
      latest_tags: Record<string, string>;
      last_day: string;
    }>(
      "cost untagged candidates",
      untaggedCandidatesSql(source, rules.service.name_prefixes, LATEST_HIERARCHY_KEYS_SQL),
      params,
      {},
      this.#ingestTimeoutMs,
    );
    const rows = candidates.flatMap((c) => {
      const reason = untaggedServiceReason(
        { resource_id: c.resource_id, tags: c.latest_tags },
        rules.service,
        "cur",
      );
      return reason === null
        ? []
        : [
            {
              ...params,
              usage_account_id: c.usage_account_id,
              resource_id: c.resource_id,
              reason,
              last_day: c.last_day,
            },
          ];
    });
    if (rows.length > 0) {
      await db.insert(
        "cost untagged insert",
        untagged,
        rows.map(({ bp, payer, ...r }) => ({ billing_period: bp, payer_account_id: payer, ...r })),
      );
    }
    return [daily, untagged];
  }

  async #swapDerived(p: Partition, [daily, untagged]: [string, string]): Promise<void> {
    const part = partitionLiteral(p);
    for (const [target, from] of [
      ["svc.cost_node_daily", daily],
      ["svc.cost_untagged_service", untagged],
    ] as const) {
      const [n] = await this.#db.rows<{ n: string | number }>(
        "cost staging size",
        `SELECT count() AS n FROM ${from}`,
      );
      // REPLACE PARTITION refuses an empty source (it would look like a mistake); empty means "none".
      if (num(n?.n ?? 0) === 0)
        await this.#db.exec("cost swap", `ALTER TABLE ${target} DROP PARTITION ${part}`);
      else await this.#db.exec("cost swap", `ALTER TABLE ${target} REPLACE PARTITION ${part} FROM ${from}`);
    }
  }

  /**
   * Recomputes cost per node per day (and the untagged candidates) of stored partitions with the
   * current hierarchy and rules. Default: the billing periods of this month and the previous one
   * (older periods keep the attribution of their last ingest or re-attribution).
   */
  reattribute(partitions?: readonly Partition[]): Promise<Partition[]> {
    return this.#serial(async () => {
      const list = partitions ?? (await this.#openPartitions());
      for (const p of list) {
        const now = this.#now();
        const derived = await this.#derive(p, "svc.cost_line_items", now);
        try {
          await this.#swapDerived(p, derived);
        } finally {
          for (const t of derived)
            await this.#db.exec("cost staging cleanup", `DROP TABLE IF EXISTS ${t}`).catch(() => {});
        }
      }
      return [...list];
    });
  }

  async #openPartitions(): Promise<Partition[]> {
    const today = utcDay(this.#now());
    const prev = monthStart(addDays(monthStart(today), -1));
    const rows = await this.#db.rows<{ bp: string; payer_account_id: string }>(
      "cost open partitions",
      `SELECT DISTINCT toString(billing_period) AS bp, payer_account_id FROM svc.cost_reports
WHERE billing_period >= {from:Date} ORDER BY bp, payer_account_id`,
      { from: prev },
    );
    return rows.map((r) => ({ billing_period: r.bp, payer_account_id: r.payer_account_id }));
  }

  /**
   * Re-attribution in the background, coalesced: requests while one runs make one more run after it
   * (a round of hierarchy builds asks once per account and region). Failures go to `onError`.
   */
  requestReattribution(): void {
    if (this.#reattributing !== null) {
      this.#reattributeAgain = true;
      return;
    }
    this.#reattributing = (async () => {
      do {
        this.#reattributeAgain = false;
        try {
          await this.reattribute();
        } catch (err) {
          this.#onError(err);
        }
      } while (this.#reattributeAgain);
      this.#reattributing = null;
    })();
  }

  /** Resolves when no ingest or re-attribution is in progress. */
  async idle(): Promise<void> {
    while (this.#reattributing !== null) await this.#reattributing;
    await this.#chain;
  }

  /** Drops staging tables a crashed ingest left behind (older than `olderThanMs`). */
  async dropStaleStaging(olderThanMs = 3_600_000): Promise<number> {
    const stale = await this.#db.rows<{ name: string }>(
      "cost stale staging",
      `SELECT name FROM system.tables WHERE database = 'svc' AND startsWith(name, '_cost_')
  AND metadata_modification_time < now() - toIntervalSecond({age:UInt32})`,
      { age: Math.floor(olderThanMs / 1000) },
    );
    for (const t of stale)
      await this.#db.exec("cost stale staging", `DROP TABLE IF EXISTS svc.${ident(t.name)}`);
    return stale.length;
  }

  /** Cost per hierarchy node per day, `from`..`to` inclusive (YYYY-MM-DD); node "" = outside any node. */
  async costPerNodePerDay(from: string, to: string): Promise<NodeDayCost[]> {
    const rows = await this.#db.rows<Record<string, unknown>>(
      "costPerNodePerDay",
      `SELECT toString(day) AS d, node, outside_reason, currency, toString(sum(cost)) AS cost, sum(lines) AS n
FROM svc.cost_node_daily WHERE day >= {from:Date} AND day <= {to:Date}
GROUP BY day, node, outside_reason, currency
ORDER BY day, node, outside_reason, currency`,
      { from, to },
    );
    return rows.map((r) => ({
      day: String(r.d),
      node: String(r.node),
      outside_reason: String(r.outside_reason),
      currency: String(r.currency),
      cost: Number(r.cost),
      lines: num(r.n),
    }));
  }

  /** The `own_cost` block of the status body, as of `now`. */
  async ownCost(now: number): Promise<OwnCostReport> {
    const w = costWindows(now);
    const range = { from: w.read_from, to: w.today };
    const [svcDaily, outside, inventory, fromCost, reports] = await Promise.all([
      this.#db.rows<{ d: string; currency: string; cost: string }>(
        "own cost",
        `SELECT toString(day) AS d, currency, toString(sum(cost)) AS cost FROM svc.cost_node_daily
WHERE node = {node:String} AND day >= {from:Date} AND day <= {to:Date} GROUP BY day, currency`,
        { ...range, node: SVC_INFRASTRUCTURE },
      ),
      this.#db.rows<{ d: string; reason: string; currency: string; cost: string }>(
        "own cost (outside any node)",
        `SELECT toString(day) AS d, outside_reason AS reason, currency, toString(sum(cost)) AS cost FROM svc.cost_node_daily
WHERE node = '' AND day >= {from:Date} AND day <= {to:Date} GROUP BY day, reason, currency`,
        range,
      ),
      this.#hierarchy.latestHierarchy({ untaggedOnly: true }),
      this.#db.rows<{ usage_account_id: string; resource_id: string; reason: string }>(
        "own cost (untagged in cost reports)",
        `SELECT usage_account_id, resource_id, argMax(reason, last_day) AS reason FROM svc.cost_untagged_service
WHERE last_day >= {from:Date} GROUP BY usage_account_id, resource_id`,
        { from: w.daily_from },
      ),
      this.#db.rows<{ n: string | number; ingested_ms: string | number; last_day: string }>(
        "own cost (reports)",
        "SELECT count() AS n, toUnixTimestamp64Milli(max(ingested_at)) AS ingested_ms, toString(max(last_day)) AS last_day FROM svc.cost_reports",
      ),
    ]);
    const dayCost = (r: { d: string; currency: string; cost: string }): DayCost => ({
      day: r.d,
      currency: r.currency,
      cost: Number(r.cost),
    });
    const untagged: UntaggedServiceResource[] = [
      ...inventory.map((h) => ({
        cloud_account_id: h.cloud_account_id,
        cloud_region: h.cloud_region,
        resource_id: h.resource_id,
        resource_type: h.resource_type,
        reason: h.untagged_service_reason,
        source: "inventory" as const,
      })),
      ...fromCost.map((c) => ({
        cloud_account_id: c.usage_account_id,
        cloud_region: "",
        resource_id: c.resource_id,
        resource_type: "",
        reason: c.reason,
        source: "cost_report" as const,
      })),
    ];
    const report = reports[0];
    const any = report !== undefined && num(report.n) > 0;
    return ownCostReport(
      {
        svcDaily: svcDaily.map(dayCost),
        outsideDaily: outside.map((r): ReasonDayCost => ({ ...dayCost(r), reason: r.reason })),
        untagged,
        lastIngestAt: any ? num(report.ingested_ms) : null,
        dataThrough: any ? report.last_day : null,
      },
      now,
    );
  }
}
