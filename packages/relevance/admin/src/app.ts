import { onError, routeFallback } from "@shared/http";
import { Hono } from "hono";
import { createAdminApp } from "./admin-routes.ts";
import { authGuard } from "./auth.ts";
import { createCustomerApp } from "./customer-routes.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import type { ApiDeps } from "./ports.ts";

/** Both APIs in one app, plus `GET /api/v1/openapi.json` (no authentication). */
export function createApiApp(deps: ApiDeps): Hono {
  // One failed-authentication budget for both APIs: guessing admin tokens and API keys add up.
  const shared: ApiDeps = { ...deps, authThrottle: authGuard(deps).throttle };
  const document = buildOpenApiDocument({
    limits: deps.limits,
    extraLimitRows: deps.extraLimitRows,
    extraPaths: deps.extraOpenApi?.paths,
    extraSchemas: deps.extraOpenApi?.schemas,
  });
  const app = new Hono();
  app.onError(onError(deps.log));
  app.notFound(routeFallback(app));
  app.get("/api/v1/openapi.json", (c) => c.json(document));
  app.route("/", createAdminApp(shared));
  app.route("/", createCustomerApp(shared));
  return app;
}
