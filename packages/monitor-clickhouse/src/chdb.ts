/**
 * The embedded chDB engine behind the run store's @clickhouse/client: its own entry point
 * (`@svcmon/monitor-clickhouse/chdb`), imported only where chDB runs (apps/local, apps/svcmon, tests, benches).
 * Nothing a Lambda bundle reaches imports it: the Lambdas talk to a ClickHouse server over HTTP.
 */
import { type ClickHouseClient, type ClickHouseClientConfigOptions, createClient } from "@clickhouse/client";
import { createChdbConnection } from "chdb/connection";
import { ClickHouseRunStore, type ClickHouseRunStoreOptions } from "./clickhouse-run-store.ts";

/**
 * A @clickhouse/client over the embedded chDB engine. chdb/connection implements the client's
 * Connection contract (typed against @clickhouse/client-common, a structurally identical copy of the
 * client's bundled types), hence the cast.
 */
export function createChdbClient(path: string, timeoutMs = 5000): ClickHouseClient {
  const connection = createChdbConnection({ path }) as unknown as ClickHouseClientConfigOptions["connection"];
  return createClient({ connection, request_timeout: timeoutMs });
}

/** Embedded default: chDB on a data folder (one process owns a folder). */
export function openChdbRunStore(path: string, opts: ClickHouseRunStoreOptions = {}): ClickHouseRunStore {
  const timeoutMs = opts.timeoutMs ?? 5000;
  return new ClickHouseRunStore(createChdbClient(path, timeoutMs), { ...opts, timeoutMs });
}
