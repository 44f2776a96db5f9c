/** Statements and reads of the cost store, each under a deadline with the run store's error mapping. */
import type { ClickHouseClient, ClickHouseSettings } from "@clickhouse/client";
import { chCall } from "@monitor/clickhouse";

export class CostDb {
  readonly client: ClickHouseClient;
  readonly timeoutMs: number;

  constructor(client: ClickHouseClient, timeoutMs: number) {
    this.client = client;
    this.timeoutMs = timeoutMs;
  }

  exec(
    op: string,
    query: string,
    params: Record<string, unknown> = {},
    settings: ClickHouseSettings = {},
    timeoutMs = this.timeoutMs,
  ): Promise<void> {
    return chCall(op, timeoutMs, async (signal) => {
      await this.client.command({
        query,
        query_params: params,
        clickhouse_settings: settings,
        abort_signal: signal,
      });
    });
  }

  rows<T>(
    op: string,
    query: string,
    params: Record<string, unknown> = {},
    settings: ClickHouseSettings = {},
    timeoutMs = this.timeoutMs,
  ): Promise<T[]> {
    return chCall(op, timeoutMs, async (signal) => {
      const rs = await this.client.query({
        query,
        format: "JSONEachRow",
        query_params: params,
        clickhouse_settings: settings,
        abort_signal: signal,
      });
      return rs.json<T>();
    });
  }

  insert(op: string, table: string, values: readonly Record<string, unknown>[]): Promise<void> {
    return chCall(op, this.timeoutMs, async (signal) => {
      await this.client.insert({
        table,
        values: values as Record<string, unknown>[],
        format: "JSONEachRow",
        abort_signal: signal,
        clickhouse_settings: { async_insert: 0 },
      });
    });
  }
}
