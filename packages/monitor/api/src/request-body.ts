/**
 * Reading a JSON request body the monitor's way, whatever its Content-Type (collectors have always
 * posted without one): parsed from the text, its shape safe to copy, then checked by the core's
 * schema-built validator, which can see the path and the clock (docs/monitor-api.md).
 */
import { MAX_MONITOR_JSON_DEPTH } from "@monitor/core";
import { assertJsonShape, invalid, readJsonBody } from "@shared/http";
import type { Context } from "hono";

/** The body as JSON whose shape is safe to copy: no `__proto__`/`constructor`/`prototype` keys, bounded nesting. */
export async function readJson(c: Context): Promise<unknown> {
  return assertJsonShape(await readJsonBody(c), { maxDepth: MAX_MONITOR_JSON_DEPTH });
}

export function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalid("the request body must be a JSON object", [{ path: "", message: "must be an object" }]);
  }
  return body as Record<string, unknown>;
}

/** A path parameter that also appears in the body must agree with it. */
export function samePathParam(body: Record<string, unknown>, field: string, value: string): void {
  if (body[field] !== undefined && body[field] !== value) {
    throw invalid(`${field} in the body differs from the path`, [
      { path: field, message: `must equal the path parameter (${JSON.stringify(value)}) or be absent` },
    ]);
  }
}
