export * from "./all-limits.ts";
export * from "./cases.ts";
export * from "./catalogue.ts";
export * from "./limits-table.ts";
export * from "./send.ts";
