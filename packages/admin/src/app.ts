import { onError, onNotFound } from "@relevance/http";
import { Hono } from "hono";
import { createAdminApp } from "./admin-routes.ts";
import { createCustomerApp } from "./customer-routes.ts";
import { openApiDocument } from "./openapi.ts";
import type { ApiDeps } from "./ports.ts";

/** Both APIs in one app, plus `GET /api/v1/openapi.json` (no authentication). */
export function createApiApp(deps: ApiDeps): Hono {
  const app = new Hono();
  app.onError(onError(deps.log));
  app.notFound(onNotFound);
  app.get("/api/v1/openapi.json", (c) => c.json(openApiDocument));
  app.route("/", createAdminApp(deps));
  app.route("/", createCustomerApp(deps));
  return app;
}
