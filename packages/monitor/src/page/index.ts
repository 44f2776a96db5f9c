export * from "./routes.ts";
export * from "./sessions.ts";
