/**
 * The bodies and queries of the customer API's Meilisearch-shaped management calls (one document,
 * deletions, `fields`, `GET /tasks`, `GET /stats`), with the bounds of management-limits.ts. The
 * routes parse with these schemas, and the OpenAPI document is generated from them.
 */

import { MAX_ATTRIBUTE_CHARS } from "@relevance/settings";
import { z } from "zod";
import { MAX_DOCUMENT_ID_CHARS, MAX_PAGE_LIMIT } from "./limits.ts";
import {
  MAX_DELETE_IDS,
  MAX_FIELDS_ASKED,
  MAX_TASK_FILTER_ITEMS,
  MAX_TASKS_LIMIT,
} from "./management-limits.ts";
import { IndexStats, TaskSchema, TaskSummarySchema } from "./schemas.ts";

const ID_RULE = `must be 1 to ${MAX_DOCUMENT_ID_CHARS} characters of A-Z, a-z, 0-9, _ and -, or a whole number from 0`;
const ID_TEXT = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_DOCUMENT_ID_CHARS}}$`);

/** A document id as Meilisearch accepts it: such a string, or a non-negative integer. */
export const DocumentIdSchema = z.union([
  z.string().regex(ID_TEXT, ID_RULE),
  z.number().int(ID_RULE).min(0, ID_RULE).max(Number.MAX_SAFE_INTEGER, ID_RULE),
]);

export const DeleteBatchBody = z
  .array(DocumentIdSchema)
  .max(MAX_DELETE_IDS, `must list at most ${MAX_DELETE_IDS} ids`)
  .meta({
    description: `The ids of the documents to delete (at most ${MAX_DELETE_IDS}); unknown ids are not an error.`,
  });

const fieldName = z.string().min(1).max(MAX_ATTRIBUTE_CHARS);
const fieldList = z.array(fieldName).max(MAX_FIELDS_ASKED, `must list at most ${MAX_FIELDS_ASKED} fields`);

/** `fields` as a query parameter: comma-separated names, `*` for all (Meilisearch's shape). */
export const FieldsQuery = z
  .string()
  .optional()
  .meta({
    description: `Comma-separated top-level field names to answer (at most ${MAX_FIELDS_ASKED}, each at most ${MAX_ATTRIBUTE_CHARS} characters); \`*\` or absent: every field.`,
  });

/** The field names a `fields` asks for; null for every field. */
export function fieldsAsked(raw: string | readonly string[] | undefined | null): string[] | null {
  if (raw === undefined || raw === null) return null;
  const names = typeof raw === "string" ? raw.split(",").map((name) => name.trim()) : [...raw];
  return names.includes("*") ? null : names;
}

/** Checks a `fields` list against its bounds; the names as given. */
export const FieldsList = fieldList;

export const DocumentQuery = z.object({ fields: FieldsQuery });

export const DocumentsQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
  fields: FieldsQuery,
  filter: z.string().optional().meta({
    description: "Meilisearch's document filter: not supported here (422 naming filter).",
  }),
});

export const DocumentsFetchBody = z
  .strictObject({
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
    fields: fieldList.optional(),
    filter: z.unknown().optional().meta({ description: "Not supported here (422 naming filter)." }),
  })
  .meta({
    description:
      "Meilisearch's POST …/documents/fetch (what its clients send for getDocuments with a filter).",
  });

export const DeleteByFilterBody = z
  .object({ filter: z.unknown() })
  .meta({ description: "Meilisearch's delete by filter: not supported here (422 naming filter)." });

export const DocumentTask = TaskSummarySchema.extend({ task: TaskSummarySchema.optional() }).partial().meta({
  description:
    "Meilisearch's summarized task (with an index manager), also nested as `task`; `{}` where writes are synchronous.",
});

const list = <T extends z.ZodType>(item: T, name: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "*") return undefined;
      const values = raw.split(",").map((value) => value.trim());
      if (values.length > MAX_TASK_FILTER_ITEMS) {
        ctx.addIssue({ code: "custom", message: `must list at most ${MAX_TASK_FILTER_ITEMS} values` });
        return z.NEVER;
      }
      const parsed: z.output<T>[] = [];
      for (const value of values) {
        const one = item.safeParse(value);
        if (!one.success) {
          ctx.addIssue({
            code: "custom",
            message: `${JSON.stringify(value.slice(0, 64))} is not a valid ${name}`,
          });
          return z.NEVER;
        }
        parsed.push(one.data);
      }
      return parsed;
    })
    .meta({ description: `Comma-separated, any of (at most ${MAX_TASK_FILTER_ITEMS}); \`*\`: any.` });

const STATUSES = ["enqueued", "processing", "succeeded", "failed"] as const;
const TYPES = [
  "indexCreation",
  "indexDeletion",
  "documentAdditionOrUpdate",
  "documentDeletion",
  "settingsUpdate",
] as const;
const date = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), "must be an RFC 3339 date")
  .optional();

export const TasksQuery = z.strictObject({
  uids: list(z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER), "task uid"),
  statuses: list(z.enum(STATUSES), "status"),
  types: list(z.enum(TYPES), "task type"),
  indexUids: list(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), "index name"),
  limit: z.coerce.number().int().min(1).max(MAX_TASKS_LIMIT).default(20),
  from: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  beforeEnqueuedAt: date,
  afterEnqueuedAt: date,
  beforeStartedAt: date,
  afterStartedAt: date,
  beforeFinishedAt: date,
  afterFinishedAt: date,
});

export const TaskPageSchema = z.object({
  results: z.array(TaskSchema),
  total: z.number().int(),
  limit: z.number().int(),
  from: z.number().int().nullable(),
  next: z.number().int().nullable().meta({ description: "The `from` of the next page; null on the last." }),
});

export const GlobalStats = z.object({
  databaseSize: z.number().int().meta({
    description: "Not measured per account: 0 (Meilisearch's size is its whole instance's).",
  }),
  usedDatabaseSize: z.number().int().meta({ description: "0, as databaseSize." }),
  lastUpdate: z.string().nullable().meta({ description: "The latest updatedAt of the account's indexes." }),
  indexes: z.record(z.string(), IndexStats).meta({ description: "Each of the account's indexes by name." }),
});
