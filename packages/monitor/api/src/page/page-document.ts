/**
 * The /system page's routes in the monitor's OpenAPI document: the HTML page, its login and logout,
 * its client script, its silence buttons and the failure history its cards read (routes.ts serves
 * them). docs/monitor-page.md.
 */
import { createRoute, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { DEFAULT_MONITOR_BODY_BYTES, MAX_PAGE_SILENCE_MINUTES } from "@monitor/core";
import { z } from "zod";
import { COMMON_ERRORS, errorAnswer, json, OPEN, SECURED, STORAGE_FULL } from "../routes/openapi-parts.ts";
import { FailuresSchema, SilenceSchema } from "../schemas/resources.ts";

const PAGE_SESSION: { security: Record<string, string[]>[] } = { security: [{ pageSession: [] }] };
const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });
const form = <S extends z.ZodType>(schema: S) => ({
  required: true,
  content: { "application/x-www-form-urlencoded": { schema } },
});

/**
 * Lists the page's routes in `app`'s document (with a silence store: its silence buttons too; with a
 * maintenance store as well: the End buttons of its windows).
 */
export function documentSystemPage(app: OpenAPIHono, withSilences: boolean, withMaintenance = false): void {
  const paths: RouteConfig[] = [
    createRoute({
      method: "get",
      path: "/system",
      ...PAGE_SESSION,
      summary: "The status page (redirects to /system/login without a session).",
      responses: { 200: html("The page."), 303: { description: "To /system/login." } },
    }),
    createRoute({
      method: "get",
      path: "/system/timeline",
      ...PAGE_SESSION,
      summary:
        "One collector's (collector=) or one alert's (rule=, subject=) timeline as a page: the query of GET /api/system/timeline.",
      responses: {
        200: html("The page."),
        303: { description: "To /system/login." },
        422: errorAnswer("A query field is missing or out of bounds; details name it."),
      },
    }),
    createRoute({
      method: "get",
      path: "/system/login",
      ...OPEN,
      summary: "The login form.",
      responses: { 200: html("The form.") },
    }),
    createRoute({
      method: "post",
      path: "/system/login",
      ...OPEN,
      summary: "Log in with the monitor token (form field token).",
      request: { body: form(z.object({ token: z.string() })) },
      responses: {
        303: {
          description:
            "Logged in: session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS), to /system.",
        },
        401: html("Wrong token: the form again."),
        413: errorAnswer(`Form larger than ${DEFAULT_MONITOR_BODY_BYTES} bytes.`),
        429: html("Too many wrong tokens from this address: the form saying how long to wait."),
      },
    }),
    createRoute({
      method: "post",
      path: "/system/logout",
      ...OPEN,
      summary: "End the session.",
      responses: { 303: { description: "To /system/login." } },
    }),
    createRoute({
      method: "get",
      path: "/system/assets/{file}",
      ...OPEN,
      summary:
        "The page's client script, client-<hash>.js (cached for good: the name changes with the content); any other name is 404.",
      request: { params: z.object({ file: z.string() }) },
      responses: {
        200: { description: "JavaScript.", content: { "text/javascript": { schema: z.string() } } },
        404: errorAnswer("No such asset (not_found)."),
      },
    }),
    createRoute({
      method: "get",
      path: "/api/system/collectors/failures",
      ...SECURED,
      summary:
        "Failures per collector per day over 7 days, each collector's latest run and its latest 40 runs oldest first (recent_runs: completed_at, status, duration_ms), for the page's cards.",
      responses: {
        200: { description: "Failure counts and latest runs.", content: json(FailuresSchema) },
        ...COMMON_ERRORS,
      },
    }),
  ];
  if (withSilences && withMaintenance)
    paths.push(
      createRoute({
        method: "post",
        path: "/system/maintenance/{id}/end",
        ...PAGE_SESSION,
        summary:
          "The page's End button of a maintenance window: ends it now. Needs the session's CSRF token (header X-CSRF-Token or form field csrf) and, when an Origin is sent, this origin.",
        request: {
          params: z.object({ id: z.string() }),
          body: form(z.object({ csrf: z.string().optional() })),
        },
        responses: {
          200: {
            description: "Ended (with Accept: application/json).",
            content: json(z.object({ ended: z.string() })),
          },
          303: { description: "To /system (a form posted without the page's script)." },
          403: errorAnswer("Cross-origin, or the CSRF token is missing or wrong (csrf_token_invalid)."),
          404: errorAnswer("No maintenance window with that id (not_found)."),
          ...COMMON_ERRORS,
        },
      }),
    );
  if (withSilences)
    paths.push(
      createRoute({
        method: "post",
        path: "/system/silences",
        ...PAGE_SESSION,
        summary: `The page's silence buttons: a silence of one alert (rule and subject) for \`minutes\` (1 to ${MAX_PAGE_SILENCE_MINUTES}, default 60), with an optional reason. Needs the session's CSRF token (header X-CSRF-Token or form field csrf) and, when an Origin is sent, this origin.`,
        request: {
          body: form(
            z.object({
              rule: z.string(),
              subject: z.string(),
              minutes: z.string().optional(),
              reason: z.string().optional(),
              csrf: z.string().optional(),
            }),
          ),
        },
        responses: {
          201: { description: "The silence (with Accept: application/json).", content: json(SilenceSchema) },
          303: { description: "To /system (a form posted without the page's script)." },
          401: errorAnswer("No session (unauthorized)."),
          403: errorAnswer(
            "Another origin (forbidden), or a missing or wrong CSRF token (csrf_token_invalid).",
          ),
          422: errorAnswer("The silence is invalid; nothing was stored (validation_failed)."),
          507: STORAGE_FULL,
        },
      }),
    );
  for (const route of paths) app.openAPIRegistry.registerPath(route);
}
