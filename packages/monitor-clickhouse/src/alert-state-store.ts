/**
 * Where the alert engine keeps its state (docs/monitor-alerts.md, "The engine loop"): one plain-JSON
 * document per key, versioned. The ClickHouse adapter writes svc.alert_state (migration 5) on the run
 * store's own client; a load reads the highest version (argMax), so no FINAL and no merge is needed.
 */

import type { ClickHouseClient } from "@clickhouse/client";
import { type AlertState, type AlertStateStore, emptyState } from "@svcmon/core";
import { msToCh } from "./clickhouse-call.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";

export const ALERT_STATE_KEY = "monitor";

function isState(v: unknown): v is AlertState {
  return (
    typeof v === "object" &&
    v !== null &&
    (v as { version?: unknown }).version === 1 &&
    typeof (v as { alerts?: unknown }).alerts === "object" &&
    typeof (v as { outbox?: unknown }).outbox === "object"
  );
}

export class ClickHouseAlertStateStore implements AlertStateStore {
  readonly #client: ClickHouseClient;
  readonly #key: string;
  readonly #now: () => number;
  /** Highest version read or written here: versions grow even within one millisecond. */
  #version = 0;

  constructor(client: ClickHouseClient, opts: { key?: string; now?: () => number } = {}) {
    this.#client = client;
    this.#key = opts.key ?? ALERT_STATE_KEY;
    this.#now = opts.now ?? Date.now;
  }

  /** A state store on the run store's client (same database, same migrations). */
  static fromStore(store: ClickHouseRunStore, opts: { key?: string } = {}): ClickHouseAlertStateStore {
    return new ClickHouseAlertStateStore(store.client, opts);
  }

  async load(): Promise<AlertState> {
    const rs = await this.#client.query({
      query: `SELECT argMax(state, version) AS s, max(version) AS v
FROM svc.alert_state WHERE key = {key:String} GROUP BY key`,
      format: "JSONEachRow",
      query_params: { key: this.#key },
    });
    const [row] = await rs.json<{ s: string; v: string | number }>();
    if (row === undefined) return emptyState();
    this.#version = Math.max(this.#version, Number(row.v));
    const parsed: unknown = JSON.parse(row.s);
    if (!isState(parsed)) throw new Error(`svc.alert_state[${this.#key}] is not an alert state (version 1)`);
    return parsed;
  }

  async save(state: AlertState): Promise<void> {
    const now = this.#now();
    // Wall-clock based, so a fresh instance (after a restart) still outranks what it did not load.
    const version = Math.max(now * 1000, this.#version + 1);
    this.#version = version;
    await this.#client.insert({
      table: "svc.alert_state",
      values: [{ key: this.#key, state: JSON.stringify(state), version, updated_at: msToCh(now) }],
      format: "JSONEachRow",
    });
  }
}

/** In process memory (tests; a stack without a database). */
export class InMemoryAlertStateStore implements AlertStateStore {
  #json: string | null = null;
  async load(): Promise<AlertState> {
    return this.#json === null ? emptyState() : (JSON.parse(this.#json) as AlertState);
  }
  async save(state: AlertState): Promise<void> {
    this.#json = JSON.stringify(state);
  }
}
