import type { Context, Hono, NotFoundHandler } from "hono";
import type { ErrorBody } from "./errors.ts";

/** Hono route paths (`/a/:id/b`, `/a/*`) as regular expressions over a request path. */
function pathPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((part) => {
      if (part === "*") return ".*";
      if (part.startsWith(":")) {
        const custom = /^:[^{]+\{(.+)\}$/.exec(part);
        return custom?.[1] ?? "[^/]+";
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${source}/?$`);
}

/**
 * The answer for a request no route took: JSON `405` with `Allow` when the path exists for other
 * methods, JSON `404` otherwise. Reads the routes of `app` when first needed, so sub-apps mounted
 * later are included.
 */
export function routeFallback(app: Hono): NotFoundHandler {
  let routes: Array<{ method: string; pattern: RegExp }> | null = null;
  return (c: Context) => {
    routes ??= app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({ method: r.method, pattern: pathPattern(r.path) }));
    const path = c.req.path;
    const allowed = new Set<string>();
    for (const r of routes) if (r.pattern.test(path)) allowed.add(r.method);
    if (allowed.size > 0 && !allowed.has(c.req.method)) {
      if (allowed.has("GET")) allowed.add("HEAD");
      c.header("Allow", [...allowed].sort().join(", "));
      return c.json(
        {
          error: {
            code: "method_not_allowed",
            message: `${c.req.method} is not allowed here; use ${[...allowed].sort().join(" or ")}`,
          },
        } satisfies ErrorBody,
        405,
      );
    }
    return c.json({ error: { code: "not_found", message: "no such route" } } satisfies ErrorBody, 404);
  };
}
