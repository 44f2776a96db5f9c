/**
 * How the run store's parts talk to the database: every statement under a hard deadline (chCall),
 * and the time each read took kept as the client-side latency samples store health falls back to.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { chCall } from "./clickhouse-call.ts";

export class ClickHouseQueries {
  readonly client: ClickHouseClient;
  readonly timeoutMs: number;
  readonly #latency: number[] = [];
  readonly #latencyMax: number;

  constructor(client: ClickHouseClient, timeoutMs: number, latencySamples: number) {
    this.client = client;
    this.timeoutMs = timeoutMs;
    this.#latencyMax = latencySamples;
  }

  /** The latency samples kept (the latest `latencySamples` timed calls), in ms. */
  latencySamples(): readonly number[] {
    return this.#latency;
  }

  /** Runs one database call with a hard deadline (chCall); `timed` calls feed the latency samples. */
  async call<T>(op: string, fn: (signal: AbortSignal) => Promise<T>, timed = false): Promise<T> {
    const started = performance.now();
    const out = await chCall(op, this.timeoutMs, fn);
    if (timed) this.#recordLatency(performance.now() - started);
    return out;
  }

  #recordLatency(ms: number): void {
    this.#latency.push(ms);
    if (this.#latency.length > this.#latencyMax) this.#latency.shift();
  }

  async rows<T>(
    op: string,
    query: string,
    params: Record<string, unknown> = {},
    client: ClickHouseClient = this.client,
  ): Promise<T[]> {
    return this.call(
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

  async command(op: string, query: string): Promise<void> {
    await this.call(op, (signal) => this.client.command({ query, abort_signal: signal }));
  }
}
