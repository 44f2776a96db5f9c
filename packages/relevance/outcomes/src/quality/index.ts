export * from "./auc.ts";
export * from "./calibration.ts";
export * from "./rank-correlation.ts";
export * from "./report.ts";
export * from "./schema.ts";
export * from "./thresholds.ts";
export * from "./wilson.ts";
