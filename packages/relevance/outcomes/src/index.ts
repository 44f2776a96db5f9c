export * from "./limit-rows.ts";
export * from "./limits.ts";
export type * from "./ports.ts";
export * from "./query-uid.ts";
export * from "./recorder.ts";
export * from "./recording-config.ts";
export * from "./records.ts";
export * from "./user-hash.ts";
