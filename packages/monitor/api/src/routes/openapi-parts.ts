/**
 * The OpenAPI pieces the monitor's routes share: who may call them, the error answers they give,
 * and the hook that turns a failed parameter check into the API's 422 body.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { DEFAULT_MONITOR_BODY_BYTES, issuesOf } from "@monitor/core";
import { errorAnswer, invalid, json } from "@shared/http";
import type { BlankEnv } from "hono/types";
import type { ZodError } from "zod";

/** The monitor token, or the /system page session for reads. */
export const SECURED: { security: Record<string, string[]>[] } = {
  security: [{ monitorToken: [] }, { pageSession: [] }],
};
/** No authentication. */
export const OPEN: { security: Record<string, string[]>[] } = { security: [] };

export { errorAnswer, json };

export const COMMON_ERRORS = {
  401: errorAnswer("Missing or wrong token."),
  429: errorAnswer("Too many failed authentications from this client; Retry-After says when to retry."),
  503: errorAnswer("The analytics database is unavailable (analytics_db_unavailable)."),
};
export const STORAGE_FULL = errorAnswer(
  "No space left on the device (no_space_left_on_device): nothing was stored; free disk space and send it again. Reads keep working.",
);
export const WRITE_ERRORS = {
  ...COMMON_ERRORS,
  400: errorAnswer("The body is not valid JSON (invalid_json)."),
  413: errorAnswer(`Body larger than ${DEFAULT_MONITOR_BODY_BYTES} bytes (MONITOR_MAX_BODY_BYTES).`),
  422: errorAnswer("A field is invalid or over its limit; details name it; nothing is stored."),
  507: STORAGE_FULL,
};

/**
 * The validation hook of a route's parameters: every problem at once as the API's 422
 * `validation_failed` body, under `message` (ApiError keeps the first 100 details).
 */
export const refuseWith =
  (message: string) =>
  (result: { success: boolean; error?: ZodError }): undefined => {
    if (!result.success && result.error !== undefined) throw invalid(message, issuesOf(result.error));
    return undefined;
  };

/** A sub-app of the monitor: a parameter that fails its schema answers the API's 422 body. */
export const monitorRoutes = (): OpenAPIHono<BlankEnv> =>
  new OpenAPIHono<BlankEnv>({ defaultHook: refuseWith("the request parameters are invalid") });
