export * from "./collector.ts";
export * from "./scheduler.ts";
export * from "./simulated-cloud.ts";
