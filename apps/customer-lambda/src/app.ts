// The public customer API of one environment: the customer management routes over the settings
// table and Meilisearch (through the IndexManager port), and the search API beside them, in one Hono
// app. Runtime-neutral; handler.ts adapts it to Lambda.
import { buildOpenApiDocument, type CustomerDeps, createCustomerApp } from "@relevance/admin";
import {
  createSearchApp,
  SEARCH_LIMITS,
  SEARCH_OPENAPI_PATHS,
  SEARCH_OPENAPI_SCHEMAS,
  type SearchAppDeps,
} from "@relevance/search";
import { AuthThrottle, onError, routeFallback } from "@shared/http";
import { Hono } from "hono";

export interface CustomerApiDeps {
  customer: CustomerDeps;
  search: SearchAppDeps;
}

/** The paths of the public API: the document leaves out the internal admin routes, served elsewhere. */
const isPublicPath = (path: string): boolean => !path.startsWith("/api/v1/admin/");

/** The OpenAPI document of this API: customer and search routes, with this deployment's limits. */
export function customerApiDocument(deps: Pick<CustomerDeps, "limits">) {
  const document = buildOpenApiDocument({
    limits: deps.limits,
    extraLimitRows: SEARCH_LIMITS,
    extraPaths: SEARCH_OPENAPI_PATHS,
    extraSchemas: SEARCH_OPENAPI_SCHEMAS,
  });
  return {
    ...document,
    info: {
      ...document.info,
      title: "Relevance customer and search API",
      description:
        "The customer API of {env}-CustomerApi: indexes, documents, settings, aliases and tasks with the " +
        "account's API key (x-api-key, or Authorization: Bearer), and the Meilisearch-compatible search. " +
        'Every error answers {"error": {"code", "message", "details"?}} (search errors also carry ' +
        "Meilisearch's message, code, type and link); every bound is listed in x-limits.",
    },
    paths: Object.fromEntries(Object.entries(document.paths).filter(([path]) => isPublicPath(path))),
    "x-limits": document["x-limits"].filter((row) => row.area !== "admin"),
  };
}

/**
 * Search first (its paths are more specific than the customer app's `indexes/*` middleware), then
 * the customer routes; one failed-authentication budget for both, since a key guessed on either
 * works on both.
 */
export function createCustomerApi(deps: CustomerApiDeps): Hono {
  const throttle =
    deps.customer.authThrottle ?? new AuthThrottle({ now: () => deps.customer.now().getTime() });
  const document = customerApiDocument(deps.customer);
  const app = new Hono();
  app.onError(onError(deps.customer.log));
  app.notFound(routeFallback(app));
  app.get("/api/v1/openapi.json", (c) => c.json(document));
  app.route("/", createSearchApp({ ...deps.search, authThrottle: throttle }));
  app.route("/", createCustomerApp({ ...deps.customer, authThrottle: throttle }));
  return app;
}
