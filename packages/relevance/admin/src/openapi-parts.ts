/**
 * The OpenAPI pieces the admin and customer routes share: who may call them, the error answers
 * they give (their bodies are ErrorSchema), path parameters and conditional-write headers.
 */
import { errorAnswer, formatBytes, json } from "@shared/http";
import { z } from "zod";
import type { BodyLimits } from "./limits.ts";

export { errorAnswer, json };
export const body = <S>(schema: S) => ({ required: true, content: json(schema) });

export const ADMIN = { security: [{ adminToken: [] }], tags: ["admin"] };
export const CUSTOMER = { security: [{ apiKey: [] }], tags: ["customer"] };

/** The 429 every authenticated route may answer (components.responses.TooManyRequests). */
const e429 = { $ref: "#/components/responses/TooManyRequests" };
export const AUTHENTICATED = { 401: errorAnswer("Missing or wrong credentials."), 429: e429 };
export const E404_INDEX = errorAnswer(
  "No such index or alias in this account (another account's index answers the same).",
);
export const E502_BACKEND = errorAnswer(
  "With an index manager: the search backend did not take the write (an index creation is undone) or " +
    "could not be read; retry.",
);
export const E507 = errorAnswer(
  "No space left on the device (no_space_left_on_device): the write was not stored (the message says " +
    "what became of it); free disk space and send it again. Reads keep working.",
);

/** The 413 answers of a deployment's body limits: every route with a body has one. */
export interface BodyLimitAnswers {
  json: ReturnType<typeof errorAnswer>;
  documents: ReturnType<typeof errorAnswer>;
}
export function bodyLimitAnswers(limits: BodyLimits): BodyLimitAnswers {
  const e413 = (bytes: number) =>
    errorAnswer(
      `Body larger than ${formatBytes(bytes)} (checked from Content-Length before reading, or while reading).`,
    );
  return { json: e413(limits.jsonBodyBytes), documents: e413(limits.documentsBodyBytes) };
}

const pathParam = (description: string) => z.string().meta({ description });
export const NameParams = z.object({
  name: pathParam("Index (or alias) name: 1 to 64 characters of A-Z, a-z, 0-9, _ and -."),
});
export const IF_MATCH = z.object({
  "If-Match": z
    .string()
    .optional()
    .meta({ description: 'The version last read ("3", W/"3" or 3); a stale version answers 409.' }),
});
export const ETAG = z.object({
  ETag: z.string().meta({ description: 'The record\'s version, quoted: "3".' }),
});
export { pathParam };

/** `{id}` and `{index}` of the per-index admin routes (trigger, recording config, quality). */
export const IndexRouteParams = z.object({
  id: pathParam("System account ID."),
  index: pathParam("Index or alias name."),
});
