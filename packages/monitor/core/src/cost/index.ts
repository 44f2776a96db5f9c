export * from "./cur-columns.ts";
export * from "./days.ts";
export * from "./line-items.ts";
export * from "./own-cost.ts";
export * from "./report.ts";
