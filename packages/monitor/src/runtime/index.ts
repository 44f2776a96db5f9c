export * from "./scheduler.ts";
export * from "./simulated-cloud.ts";
