export * from "./alerts-loop/index.ts";
export * from "./clickhouse-run-store.ts";
export * from "./migrations.ts";
export * from "./registry-clickhouse.ts";
export * from "./run-store.ts";
export * from "./runtime/index.ts";
