export * from "./arn.ts";
export * from "./clickhouse-resource-sink.ts";
export * from "./resources-latest.ts";
export * from "./simulated-tags.ts";
