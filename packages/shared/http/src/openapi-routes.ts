import type { Hono } from "hono";

/** A route as `METHOD /path/{}` with parameter names dropped, so `:name` and `{index}` compare equal. */
const key = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/:[^/]+/g, "{}").replace(/\{[^/}]+\}/g, "{}")}`;

/**
 * The routes `app` serves that no OpenAPI document in `documents` lists, and the documented
 * operations no route serves (parameter names ignored; middleware registered for every method is
 * not a route). Both lists empty means the documents are complete and current.
 */
export function undocumentedRoutes(
  app: Hono,
  documents: ReadonlyArray<{ paths: Record<string, Record<string, unknown>> }>,
): { undocumented: string[]; unserved: string[] } {
  const documented = new Set<string>();
  for (const doc of documents) {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) {
        if (["get", "put", "post", "patch", "delete", "head", "options"].includes(method))
          documented.add(key(method, path));
      }
    }
  }
  const served = new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => key(r.method, r.path)));
  return {
    undocumented: [...served].filter((r) => !documented.has(r)).sort(),
    unserved: [...documented].filter((r) => !served.has(r)).sort(),
  };
}
