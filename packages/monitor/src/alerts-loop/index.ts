export * from "./delivery-log-clickhouse.ts";
export * from "./engine.ts";
export * from "./state-store.ts";
