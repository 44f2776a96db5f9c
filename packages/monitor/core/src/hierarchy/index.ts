export * from "./node-for.ts";
export * from "./rules.ts";
export * from "./service-owned.ts";
export * from "./tags.ts";
