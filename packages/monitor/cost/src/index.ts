export * from "./cost-store.ts";
export * from "./cur-source.ts";
export * from "./cur-writer.ts";
export * from "./ingest.ts";
export * from "./status.ts";
