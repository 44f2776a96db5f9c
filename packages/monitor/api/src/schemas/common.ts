/**
 * Pieces every monitor body shares: the error body, times, health. The bodies are zod schemas (here
 * and in @monitor/core for what the rules validate); @hono/zod-openapi builds the OpenAPI document
 * from them and the /system page takes its view types from them (page/view-types.ts).
 */
import { HEALTH_STATES } from "@monitor/core/vocabulary";
import { z } from "zod";

/** An ISO 8601 time as the monitor writes it (`toISOString`). */
export const isoTime = () => z.string().meta({ format: "date-time" });
/** An ISO time, or null when there is none. */
export const isoOrNull = (description?: string) =>
  isoTime()
    .nullable()
    .meta(description === undefined ? {} : { description });

export const HealthSchema = z.enum(HEALTH_STATES).meta({
  id: "Health",
  description:
    "new: never ran, registered at most 2 × the expected interval ago, or gated while its upstream collectors are new (waiting; never alerted on). " +
    "green, amber, red: docs/monitor-rules.md. red is the collector_stale alert.",
});

/** The one error body of every route (docs/monitor-api.md): `{"error": {"code", "message", "details"?}}`. */
export { ErrorSchema } from "@shared/http/error-schema";
