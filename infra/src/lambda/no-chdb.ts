// Bundled in place of `chdb/connection`: the Lambdas reach ClickHouse over HTTP, and chDB's native
// engine (hundreds of MB) is neither shipped nor loadable there. Only a call reaches this module.
export function createChdbConnection(): never {
  throw new Error(
    "chDB is not part of the Lambda bundles: use a ClickHouse server over HTTP (CLICKHOUSE_URL)",
  );
}
