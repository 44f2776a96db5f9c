export * from "./limits.ts";
export type * from "./ports.ts";
export * from "./quality/index.ts";
export * from "./query-uid.ts";
export * from "./recording-config.ts";
export * from "./records.ts";
