export { notificationIntentId } from "./intent-id.ts";
export * from "./maintenance.ts";
export * from "./rules.ts";
export * from "./silences.ts";
export * from "./state-machine.ts";
export * from "./types.ts";
