export * from "./alert-engine.ts";
export * from "./evaluate.ts";
export * from "./hierarchy-builder.ts";
export * from "./hierarchy-rules-file.ts";
export * from "./scheduler.ts";
export * from "./silence-store-sqlite.ts";
export * from "./transition-store-sqlite.ts";
export * from "./triage.ts";
