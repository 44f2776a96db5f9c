export * from "./cron-schedule.ts";
export * from "./duration-baseline.ts";
export * from "./hung-runs.ts";
