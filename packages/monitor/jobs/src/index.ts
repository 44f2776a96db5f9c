export * from "./cron-schedule.ts";
