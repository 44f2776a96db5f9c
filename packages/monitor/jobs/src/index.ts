export * from "./cron-schedule.ts";
export * from "./duration-baseline.ts";
export * from "./duration-rules.ts";
export * from "./engine-health.ts";
export * from "./hung-runs.ts";
export * from "./maintenance-window.ts";
