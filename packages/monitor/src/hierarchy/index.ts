export * from "./builder.ts";
export * from "./hierarchy-store.ts";
export * from "./rules-file.ts";
