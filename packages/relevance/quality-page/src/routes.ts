/**
 * The search team's quality page, served beside the admin API in npm start: `GET
 * /relevance/quality` (the HTML page, no data in it) and its client script. The page asks the
 * quality route with the admin token the user pastes; nothing here reads a store or a token.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { z } from "zod";
import { QUALITY_CLIENT_JS, QUALITY_CLIENT_JS_HASH } from "./client-bundle.gen.ts";
import { qualityPageHtml } from "./html.ts";

export const QUALITY_PAGE_PATH = "/relevance/quality";
export const QUALITY_SCRIPT_PATH = `${QUALITY_PAGE_PATH}/assets/client-${QUALITY_CLIENT_JS_HASH}.js`;

/** The page may run only its own script and call only this origin. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function qualityPageApp(): Hono {
  const app = new Hono();
  const page = qualityPageHtml(QUALITY_SCRIPT_PATH);
  app.get(QUALITY_PAGE_PATH, (c) => {
    c.header("content-security-policy", CSP);
    c.header("referrer-policy", "no-referrer");
    c.header("cache-control", "no-store");
    return c.html(page);
  });
  app.get(`${QUALITY_PAGE_PATH}/assets/:file`, (c) => {
    if (c.req.param("file") !== `client-${QUALITY_CLIENT_JS_HASH}.js`) {
      return c.json({ error: { code: "not_found", message: "no such asset" } }, 404);
    }
    c.header("content-type", "text/javascript; charset=utf-8");
    c.header("cache-control", "public, max-age=31536000, immutable");
    return c.body(QUALITY_CLIENT_JS);
  });
  return app;
}

/** The page's routes as OpenAPI paths, for the document of the process that serves them. */
export function qualityPageOpenApiPaths(): Record<string, object> {
  const doc = new OpenAPIHono();
  doc.openAPIRegistry.registerPath(
    createRoute({
      method: "get",
      path: QUALITY_PAGE_PATH,
      security: [],
      tags: ["admin"],
      summary:
        "The search team's quality page (HTML, no data in it): it asks the quality route with the admin token the user pastes.",
      responses: { 200: { description: "The page.", content: { "text/html": { schema: z.string() } } } },
    }),
  );
  doc.openAPIRegistry.registerPath(
    createRoute({
      method: "get",
      path: `${QUALITY_PAGE_PATH}/assets/{file}`,
      security: [],
      tags: ["admin"],
      summary: "The page's client script, client-<hash>.js (cached for good); any other name is 404.",
      request: { params: z.object({ file: z.string() }) },
      responses: {
        200: { description: "JavaScript.", content: { "text/javascript": { schema: z.string() } } },
        404: { description: "No such asset." },
      },
    }),
  );
  return doc.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "quality page", version: "1" } })
    .paths as Record<string, object>;
}
