export * from "./coverage.ts";
export * from "./dependency.ts";
export * from "./failures.ts";
export * from "./freshness.ts";
export * from "./health.ts";
export * from "./records.ts";
export * from "./result.ts";
export * from "./validate.ts";
