/**
 * The error body every HTTP surface answers (the admin and customer APIs, the search proxy, the
 * monitor), as one zod schema: the OpenAPI documents describe it from here and ErrorBody is its type.
 * The search routes add Meilisearch's message, code, type and link beside `error` (docs/search.md).
 */
// A namespace import, so a bundler can leave out zod's message translations (the Worker bundle).
import * as z from "zod";

/** One problem with the input: where (a JSON path or a field name) and what. */
export const IssueSchema = z.object({ path: z.string(), message: z.string() }).meta({ id: "Issue" });

/** `{"error": {"code", "message", "details"?}}` (docs/api.md, docs/monitor-api.md). */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ examples: ["validation_failed"] }),
      message: z.string(),
      details: z.array(IssueSchema).optional(),
    }),
  })
  .meta({ id: "Error" });

/** An OpenAPI JSON content entry. */
export const json = <S>(schema: S) => ({ "application/json": { schema } });

/** An OpenAPI response whose body is the error body. */
export const errorAnswer = (description: string) => ({ description, content: json(ErrorSchema) });
