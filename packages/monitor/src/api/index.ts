export * from "./app.ts";
export * from "./evaluate.ts";
