export * from "./clickhouse-run-store.ts";
export * from "./migrations.ts";
export * from "./run-store.ts";
