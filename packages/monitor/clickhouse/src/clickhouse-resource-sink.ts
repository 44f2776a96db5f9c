/**
 * The RowSink of collectors (real and simulated) over ClickHouse: rows of table `resources` go to
 * `svc.resources` (migration 7); any other table goes to the fallback sink when one is given.
 */

import type { ClickHouseClient } from "@clickhouse/client";
import {
  RESOURCES_TABLE,
  type ResourceRow,
  type RowSink,
  RunStoreValidationError,
  validateResourceRow,
} from "@monitor/core";
import { chCall, msToCh } from "./clickhouse-call.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";

export interface ClickHouseResourceSinkOptions {
  /** Upper bound per insert. Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * Where rows of other tables go (the simulated hierarchy_builder's nodes, for example). Without
   * it, a write to another table throws.
   */
  fallback?: RowSink;
}

export class ClickHouseResourceSink implements RowSink {
  readonly #client: ClickHouseClient;
  readonly #timeoutMs: number;
  readonly #fallback: RowSink | null;

  constructor(client: ClickHouseClient, opts: ClickHouseResourceSinkOptions = {}) {
    this.#client = client;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#fallback = opts.fallback ?? null;
  }

  /** A sink on the run store's own client (same database, same migrations). */
  static fromStore(
    store: ClickHouseRunStore,
    opts: Omit<ClickHouseResourceSinkOptions, "timeoutMs"> = {},
  ): ClickHouseResourceSink {
    return new ClickHouseResourceSink(store.client, {
      ...opts,
      timeoutMs: Math.max(store.timeoutMs, 10_000),
    });
  }

  /**
   * All-or-nothing: every row is checked first (RunStoreValidationError names the row and field),
   * then the batch goes in as one INSERT. Resolves with the number of rows written.
   */
  async write(table: string, rows: readonly Record<string, unknown>[]): Promise<number> {
    if (table !== RESOURCES_TABLE && table !== `svc.${RESOURCES_TABLE}`) {
      if (this.#fallback) return this.#fallback.write(table, rows);
      throw new Error(`ClickHouseResourceSink writes only "${RESOURCES_TABLE}", not "${table}"`);
    }
    const valid: ResourceRow[] = [];
    rows.forEach((r, i) => {
      const checked = validateResourceRow(r);
      if (!checked.ok) {
        const first = checked.errors[0] ?? { path: "row", message: "is invalid" };
        throw new RunStoreValidationError(i, first.path, first.message);
      }
      valid.push(checked.value);
    });
    if (valid.length === 0) return 0;
    await chCall("resources insert", this.#timeoutMs, (signal) =>
      this.#client.insert({
        table: "svc.resources",
        values: valid.map((r) => ({
          ...r,
          attributes: JSON.stringify(r.attributes),
          observed_at: msToCh(r.observed_at),
        })),
        format: "JSONEachRow",
        abort_signal: signal,
        clickhouse_settings: { async_insert: 0 },
      }),
    );
    return valid.length;
  }
}
