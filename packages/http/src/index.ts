export * from "./body-limit.ts";
export * from "./errors.ts";
export * from "./fallback.ts";
export * from "./json-guards.ts";
export * from "./lambda-env.ts";
export * from "./limits.ts";
export * from "./openapi-routes.ts";
export * from "./throttle.ts";
