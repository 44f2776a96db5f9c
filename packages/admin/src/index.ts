export { ApiError, type ErrorBody } from "@relevance/http";
export { ADMIN_BASE, createAdminApp } from "./admin-routes.ts";
export { createApiApp } from "./app.ts";
export { CUSTOMER_BASE, createCustomerApp } from "./customer-routes.ts";
export type { RejectedDocument } from "./documents.ts";
export * from "./limits.ts";
export { buildOpenApiDocument, type OpenApiOptions, openApiDocument } from "./openapi.ts";
export type * from "./ports.ts";
export { type ConfigView, configView, configWarnings, validatePutBody } from "./trigger-config.ts";
