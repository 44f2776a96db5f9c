import { cors, limitBody, onError, routeFallback } from "@shared/http";
import { Hono, type MiddlewareHandler } from "hono";
import { authGuard, type CustomerEnv, customerAuth } from "./auth.ts";
import { aliasRoutes } from "./customer/aliases.ts";
import { CUSTOMER_BASE, customerContext } from "./customer/context.ts";
import { documentEditRoutes } from "./customer/document-edits.ts";
import { documentRoutes } from "./customer/documents.ts";
import { indexRoutes } from "./customer/indexes.ts";
import { keyRoutes } from "./customer/keys.ts";
import { settingRoutes } from "./customer/setting-routes.ts";
import { settingsRoutes } from "./customer/settings.ts";
import { statsRoutes } from "./customer/stats.ts";
import { taskRoutes } from "./customer/tasks.ts";
import { keyScope, withAuthRefusalFields } from "./key-scope.ts";
import { resolveBodyLimits } from "./limits.ts";
import type { CustomerDeps } from "./ports.ts";

export { CUSTOMER_BASE };

/** The documents upload's path (`POST …/indexes/{name}/documents`), which has its own body limit. */
const DOCUMENTS_PATH = /^\/api\/v1\/indexes\/[^/]+\/documents$/;

/**
 * The customer management API (`x-api-key`): indexes, documents, settings, tasks and aliases of one
 * account, one sub-app per resource (customer/) behind one authentication and body limit.
 */
export function createCustomerApp(deps: CustomerDeps): Hono<CustomerEnv> {
  const ctx = customerContext(deps);
  const limits = resolveBodyLimits(deps.limits);
  const app = new Hono<CustomerEnv>();
  app.onError(withAuthRefusalFields(onError(deps.log)));
  // routeFallback only reads the routes table, which does not depend on the app's variables.
  app.notFound(routeFallback(app as unknown as Hono));
  // Before anything: a preflight is answered here, and every answer (errors too) can be read by the page.
  app.use(`${CUSTOMER_BASE}/*`, cors({ skip: (path) => path.startsWith(`${CUSTOMER_BASE}/admin/`) }));
  const auth = customerAuth(deps.table, authGuard(deps), deps.now);
  // What the key may do, and from which origins, before a body is read.
  const scope = keyScope(deps.table);
  // Every customer route has a body limit (after authentication, so an unknown client cannot make
  // the app buffer a chunked body): the documents upload its own, every other route the JSON one.
  const jsonLimit = limitBody(limits.jsonBodyBytes);
  const documentsLimit = limitBody(limits.documentsBodyBytes);
  const bodyLimit: MiddlewareHandler<CustomerEnv> = (c, next) =>
    (c.req.method === "POST" || c.req.method === "PUT") && DOCUMENTS_PATH.test(c.req.path)
      ? documentsLimit(c, next)
      : jsonLimit(c, next);
  for (const path of [
    `${CUSTOMER_BASE}/indexes`,
    `${CUSTOMER_BASE}/indexes/*`,
    `${CUSTOMER_BASE}/aliases/*`,
    // `/tasks/*` also covers `/tasks` (Hono's wildcard matches the bare path).
    `${CUSTOMER_BASE}/tasks/*`,
    `${CUSTOMER_BASE}/keys`,
    `${CUSTOMER_BASE}/keys/*`,
    `${CUSTOMER_BASE}/account`,
    `${CUSTOMER_BASE}/stats`,
  ]) {
    app.use(path, auth, scope, bodyLimit);
  }
  app.route("/", indexRoutes(ctx));
  app.route("/", documentRoutes(ctx));
  app.route("/", documentEditRoutes(ctx));
  app.route("/", settingsRoutes(ctx));
  app.route("/", settingRoutes(ctx));
  app.route("/", taskRoutes(ctx));
  app.route("/", aliasRoutes(ctx));
  app.route("/", keyRoutes(ctx));
  app.route("/", statsRoutes(ctx));
  return app;
}
