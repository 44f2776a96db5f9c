/**
 * A request body read as JSON whatever its Content-Type says (clients of every API here have always
 * sent some without one). A body that is not JSON answers `invalid_json` with the route's status.
 */
import type { Context } from "hono";
import { ApiError } from "./errors.ts";

/** `text` parsed as JSON, or the API's `invalid_json` error with `status` (400 unless a route says otherwise). */
export function parseJsonBody(text: string, status: 400 | 422 = 400): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(status, "invalid_json", "the request body is not valid JSON");
  }
}

/** The request's body parsed as JSON (its size was bounded by the route's body limit before this reads it). */
export async function readJsonBody(c: Context, status: 400 | 422 = 400): Promise<unknown> {
  return parseJsonBody(await c.req.text(), status);
}
