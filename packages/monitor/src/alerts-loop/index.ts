export * from "./engine.ts";
export * from "./state-store.ts";
