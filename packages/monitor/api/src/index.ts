export * from "./app.ts";
export * from "./metrics.ts";
export * from "./openapi-document.ts";
export * from "./page/routes.ts";
export * from "./page/sessions.ts";
export * from "./page/signed-sessions.ts";
