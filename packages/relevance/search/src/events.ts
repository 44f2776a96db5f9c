/**
 * `POST /api/v1/events`: Meilisearch's analytics event (a click or a conversion a shopper's front
 * end reports after a search), defined once with zod for the app and the OpenAPI document. Every
 * field has a bound; the whole body is checked before anything else is done, every problem named.
 */
import type { RouteConfig } from "@hono/zod-openapi";
import { describeType, type Issue } from "@relevance/core";
import { EVENT_TYPES, MAX_HIT_ID_CHARS, MAX_USER_ID_CHARS, QUERY_UID } from "@relevance/outcomes";
import { INDEX_NAME, INDEX_NAME_RULE } from "@relevance/settings";
import { ErrorSchema, errorAnswer, json, type LimitRow } from "@shared/http";
import * as z from "zod";
import { MAX_LIMIT, MAX_OFFSET } from "./limits.ts";

export const EVENTS_PATH = "/api/v1/events";
/** Largest event body, in bytes: the longest valid event is under 2 KiB. */
export const MAX_EVENT_BODY_BYTES = 4096;
/** Characters of eventName and objectName. */
export const MAX_EVENT_NAME_CHARS = 256;
/** Highest position: the last hit a search can answer (offset + limit at their bounds). */
export const MAX_EVENT_POSITION = MAX_OFFSET + MAX_LIMIT;
/** Events accepted per API key per second, per process or Worker isolate (`EVENTS_PER_KEY_PER_SECOND`). */
export const DEFAULT_EVENTS_PER_KEY_PER_SECOND = 50;
export const MAX_EVENTS_PER_KEY_PER_SECOND = 10_000;
/** The header a front end may send its shopper's id in, instead of `userId` (Meilisearch's). */
export const USER_ID_HEADER = "x-ms-user-id";

const text = (max: number) =>
  z
    .string({ error: (i) => `must be a string, got ${describeType(i.input)}` })
    .max(max, { error: `must be at most ${max} characters` });

export const EventRequestSchema = z
  .strictObject(
    {
      eventType: z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(", ")}` }),
      eventName: text(MAX_EVENT_NAME_CHARS).min(1, { error: "must not be empty" }),
      indexUid: z
        .string({ error: (i) => `must be a string, got ${describeType(i.input)}` })
        .regex(INDEX_NAME, { error: `must be an index name: ${INDEX_NAME_RULE}` })
        .meta({ description: "The index or alias the search named (metadata.indexUid of its answer)." }),
      userId: text(MAX_USER_ID_CHARS)
        .min(1, { error: "must not be empty" })
        .optional()
        .meta({ description: "Required here or as the X-MS-USER-ID header; stored only hashed." }),
      queryUid: z
        .string({ error: (i) => `must be a string, got ${describeType(i.input)}` })
        .regex(QUERY_UID, { error: "must be the queryUid of a search answer (a UUID v7)" })
        .optional(),
      objectId: text(MAX_HIT_ID_CHARS).optional(),
      objectName: text(MAX_EVENT_NAME_CHARS).optional(),
      position: z
        .number({ error: (i) => `must be an integer, got ${describeType(i.input)}` })
        .int({ error: "must be an integer" })
        .min(0, { error: "must be 0 or more" })
        .max(MAX_EVENT_POSITION, { error: `must be at most ${MAX_EVENT_POSITION}` })
        .optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? "is not a known field"
          : `must be a JSON object, got ${describeType(issue.input)}`,
    },
  )
  .meta({ id: "EventRequest" });
export type EventRequest = z.infer<typeof EventRequestSchema>;

/** Every problem of an event body, each naming its field. */
export function eventIssues(error: z.ZodError): Issue[] {
  const issues: Issue[] = [];
  for (const i of error.issues) {
    if (i.code === "unrecognized_keys") {
      for (const key of i.keys) issues.push({ path: key, message: "is not a known field" });
      continue;
    }
    issues.push({ path: i.path.map(String).join("."), message: i.message });
  }
  return issues;
}

export const eventsRoute = {
  method: "post",
  path: EVENTS_PATH,
  tags: ["search"],
  security: [{ apiKey: [] }, { bearerApiKey: [] }] as Record<string, string[]>[],
  summary:
    "Report a click or a conversion after a search (Meilisearch's analytics event), with a search key allowed the index.",
  request: {
    headers: z.object({
      "X-MS-USER-ID": z
        .string()
        .max(MAX_USER_ID_CHARS)
        .optional()
        .meta({ description: "The shopper's id when the body has no userId; stored only hashed." }),
    }),
    body: { required: true, content: json(EventRequestSchema) },
  },
  responses: {
    201: { description: "Stored (on npm start) or accepted by the outcomes queue (the Worker). No body." },
    400: errorAnswer("The body is not JSON."),
    401: errorAnswer("Missing or wrong API key."),
    403: errorAnswer(
      "The key lacks the search action or the index (invalid_api_key), or the Origin is not allowed (origin_not_allowed).",
    ),
    404: errorAnswer("This deployment does not record outcomes (no events store or queue)."),
    413: errorAnswer(`Body larger than ${MAX_EVENT_BODY_BYTES} bytes.`),
    422: errorAnswer("A field is missing, invalid or over its limit; details name each one."),
    429: {
      description:
        "Over the events per key per second, or too many failed authentications; Retry-After says when.",
      headers: z.object({ "Retry-After": z.string() }),
      content: json(ErrorSchema),
    },
    503: errorAnswer("The event could not be stored right now; nothing was kept, retry."),
  },
} satisfies RouteConfig;

export const EVENT_LIMITS: LimitRow[] = [
  { area: "events", field: "body", limit: MAX_EVENT_BODY_BYTES, unit: "bytes", status: 413 },
  { area: "events", field: "eventName", limit: MAX_EVENT_NAME_CHARS, unit: "characters", status: 422 },
  { area: "events", field: "objectName", limit: MAX_EVENT_NAME_CHARS, unit: "characters", status: 422 },
  { area: "events", field: "objectId", limit: MAX_HIT_ID_CHARS, unit: "characters", status: 422 },
  {
    area: "events",
    field: "userId",
    limit: MAX_USER_ID_CHARS,
    unit: "characters",
    status: 422,
    note: "or the X-MS-USER-ID header (the same bound); stored only as SHA-256 of account and id",
  },
  {
    area: "events",
    field: "position",
    limit: MAX_EVENT_POSITION,
    unit: "items",
    status: 422,
    note: "0-based; the last hit a search can answer (offset + limit)",
  },
  {
    area: "events",
    field: "events per API key",
    limit: DEFAULT_EVENTS_PER_KEY_PER_SECOND,
    unit: "per second",
    status: 429,
    note: "per process (npm start) or Worker isolate; Retry-After: 1",
    env: "EVENTS_PER_KEY_PER_SECOND",
  },
];
