/**
 * Where the alert engine keeps its state (docs/monitor-alerts.md, "The engine loop"): one plain-JSON
 * document per key, versioned. The ClickHouse adapter writes svc.alert_state (migration 5) on the run
 * store's own client; a load reads the highest version (argMax), so no FINAL and no merge is needed.
 */

import type { ClickHouseClient } from "@clickhouse/client";
import { type AlertState, type AlertStateStore, emptyState } from "@monitor/core";
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

function parseState(json: string, key: string): AlertState {
  const parsed: unknown = JSON.parse(json);
  if (!isState(parsed)) throw new Error(`svc.alert_state[${key}] is not an alert state (version 1)`);
  return parsed;
}

export class ClickHouseAlertStateStore implements AlertStateStore {
  readonly #client: ClickHouseClient;
  readonly #key: string;
  readonly #now: () => number;
  /** Highest version read or written here: versions grow even within one millisecond. */
  #version = 0;
  /** The document of the version read or written here last (a later load with the same top version reuses it). */
  #last: { version: string; json: string } | null = null;

  constructor(client: ClickHouseClient, opts: { key?: string; now?: () => number } = {}) {
    this.#client = client;
    this.#key = opts.key ?? ALERT_STATE_KEY;
    this.#now = opts.now ?? Date.now;
  }

  /** A state store on the run store's client (same database, same migrations). */
  static fromStore(store: ClickHouseRunStore, opts: { key?: string } = {}): ClickHouseAlertStateStore {
    return new ClickHouseAlertStateStore(store.client, opts);
  }

  /**
   * The highest version first (its column alone), then that version's document, unless it is the one
   * read or written here last: a tick's load does not read every stored copy of a document of a
   * hundred kilobytes, nor the same one again.
   */
  async load(): Promise<AlertState> {
    const head = await this.#client.query({
      query: "SELECT count() AS n, toString(max(version)) AS v FROM svc.alert_state WHERE key = {key:String}",
      format: "JSONEachRow",
      query_params: { key: this.#key },
    });
    const [top] = await head.json<{ n: string | number; v: string | number }>();
    if (top === undefined || Number(top.n) === 0) return emptyState();
    // UInt64 comes quoted over HTTP: compared as text, exact beyond 2^53.
    const version = String(top.v);
    let json = this.#last?.version === version ? this.#last.json : undefined;
    if (json === undefined) {
      const rs = await this.#client.query({
        query: `SELECT state AS s FROM svc.alert_state
PREWHERE key = {key:String} AND version = {version:UInt64}
LIMIT 1`,
        format: "JSONEachRow",
        query_params: { key: this.#key, version },
      });
      const [row] = await rs.json<{ s: string }>();
      if (row === undefined) return this.#loadLatest();
      json = row.s;
      this.#last = { version, json };
    }
    this.#version = Math.max(this.#version, Number(version));
    return parseState(json, this.#key);
  }

  /** The document of the highest version in one read (the way load read before). */
  async #loadLatest(): Promise<AlertState> {
    const rs = await this.#client.query({
      query: `SELECT argMax(state, version) AS s, toString(max(version)) AS v
FROM svc.alert_state WHERE key = {key:String} GROUP BY key`,
      format: "JSONEachRow",
      query_params: { key: this.#key },
    });
    const [row] = await rs.json<{ s: string; v: string }>();
    if (row === undefined) return emptyState();
    this.#version = Math.max(this.#version, Number(row.v));
    this.#last = { version: row.v, json: row.s };
    return parseState(row.s, this.#key);
  }

  async save(state: AlertState): Promise<void> {
    const now = this.#now();
    // Wall-clock based, so a fresh instance (after a restart) still outranks what it did not load.
    const version = Math.max(now * 1000, this.#version + 1);
    this.#version = version;
    const json = JSON.stringify(state);
    this.#last = null;
    await this.#client.insert({
      table: "svc.alert_state",
      values: [{ key: this.#key, state: json, version, updated_at: msToCh(now) }],
      format: "JSONEachRow",
    });
    this.#last = { version: String(version), json };
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
