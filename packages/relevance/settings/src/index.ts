export * from "./account-cors.ts";
export * from "./api-keys.ts";
export * from "./document-stats.ts";
export * from "./exporter.ts";
export type * from "./ports.ts";
export * from "./ranking-rules.ts";
export * from "./records.ts";
export * from "./route-actions.ts";
export * from "./tailer.ts";
