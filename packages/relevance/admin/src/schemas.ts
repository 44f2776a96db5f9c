/**
 * The bodies of the admin and customer APIs as zod schemas: the request schemas the routes parse
 * with (CreateAccount, CreateIndex, PutAlias, Page) and the shapes the routes answer and the
 * hand-written validators check (settings-mapping.ts, trigger-config.ts), with the bounds of
 * limits.ts. @hono/zod-openapi generates the OpenAPI document from them (openapi.ts; docs/api.md).
 */
import {
  INDEX_NAME,
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTES,
  MAX_RANKING_RULES,
  MAX_SETTINGS_BYTES,
  MAX_STOP_WORDS,
  MAX_SYNONYM_KEYS,
  MAX_SYNONYM_WORDS,
  MAX_TYPO_DISABLED_WORDS,
  MAX_TYPO_WORD_SIZE,
  MAX_WORD_CHARS,
} from "@relevance/settings";
import { formatBytes } from "@shared/http";
import { z } from "zod";
import {
  MAX_ACCOUNT_NAME_CHARS,
  MAX_DOCUMENT_BYTES,
  MAX_DOCUMENT_DEPTH,
  MAX_DOCUMENT_FIELDS,
  MAX_DOCUMENT_STRING_BYTES,
  MAX_PAGE_LIMIT,
  MAX_REJECTED_LISTED,
  MAX_TRIGGER_CONFIG_STRING_CHARS,
} from "./limits.ts";

const NAME_RULE = "must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -";
const isoTime = () => z.string().meta({ format: "date-time" });
const taskUid = z.number().int().meta({ description: "With an index manager: the task's uid (see task)." });

// ---- Requests the routes parse with these schemas ----

/** An index or alias name. */
export const IndexName = z.string().regex(INDEX_NAME, NAME_RULE);

export const CreateAccount = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(MAX_ACCOUNT_NAME_CHARS, `must be at most ${MAX_ACCOUNT_NAME_CHARS} characters`)
    .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "must not contain control characters"),
});

export const CreateIndex = z.strictObject({
  name: IndexName,
  primaryKey: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, NAME_RULE)
    .optional(),
});
/** CreateIndex as a client sends it: `uid` (Meilisearch's name for it) is read as `name` when name is absent. */
export const CreateIndexBody = CreateIndex.extend({
  name: IndexName.optional(),
  uid: IndexName.optional(),
  primaryKey: CreateIndex.shape.primaryKey.meta({ default: "id" }),
}).meta({
  description: "`name`, or `uid` as Meilisearch's clients send it (taken as the name when name is absent).",
});

export const PutAlias = z.strictObject({ index: IndexName });

/** A page of a list: `offset` and `limit` query parameters. */
export const Page = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
});

// ---- Shapes the routes answer ----

/** The one error body of every route: `{"error": {"code", "message", "details"?}}` (docs/api.md). */
import { IssueSchema } from "@shared/http";

export { ErrorSchema, IssueSchema } from "@shared/http";

export const AccountCreated = z.object({
  systemAccountId: z.string().regex(/^acct_[0-9a-f]{12}$/),
  apiKey: z
    .string()
    .regex(/^rk_[A-Za-z0-9_-]{43}$/)
    .meta({
      description: "The Default Admin API Key (every action): shown once, stored only as a SHA-256 hash.",
    }),
  searchApiKey: z
    .string()
    .regex(/^rk_[A-Za-z0-9_-]{43}$/)
    .meta({
      description:
        "The Default Search API Key (action search, every index): the key a shop's pages may carry; shown once.",
    }),
});

const fieldName = z.string().min(1).max(MAX_TRIGGER_CONFIG_STRING_CHARS).nullable();
export const RelevanceTriggerConfigSchema = z
  .strictObject({
    modelId: z.string().min(1).max(MAX_TRIGGER_CONFIG_STRING_CHARS).meta({
      description: "Key suffix of the artifact relevance_model:<modelId>; convention <account>:<index>:v<n>.",
    }),
    titleField: fieldName.meta({ description: "Hit field with titles; null skips the title features." }),
    tagsField: fieldName.meta({ description: "Hit field with tags; null skips the tag features." }),
  })
  .meta({ id: "RelevanceTriggerConfig" });

export const PutTriggerConfig = z.strictObject({
  relevanceTriggerConfig: RelevanceTriggerConfigSchema.nullable(),
});
export const TriggerConfigRead = z.object({
  relevanceTriggerConfig: z.unknown().meta({
    description:
      "The config, null when not set; when storedConfigProblems is present, the stored value as is (snake_case).",
  }),
  version: z.number().int(),
  storedConfigProblems: z.array(IssueSchema).optional().meta({
    description: "Only when the stored value is malformed (a direct table edit); then nothing is scored.",
  }),
});
export const TriggerConfigWritten = z.object({
  relevanceTriggerConfig: RelevanceTriggerConfigSchema.nullable(),
  version: z.number().int(),
  warnings: z.array(z.string()),
});

export const TaskSummarySchema = z
  .object({
    taskUid: z.number().int().meta({
      description:
        "Never given twice. The embedded stack numbers each account's tasks from 1 (no other account's count shows); Meilisearch numbers its instance's.",
    }),
    indexUid: z.string(),
    status: z.enum(["enqueued", "processing", "succeeded", "failed"]),
    type: z.enum([
      "indexCreation",
      "indexDeletion",
      "documentAdditionOrUpdate",
      "documentDeletion",
      "settingsUpdate",
    ]),
    enqueuedAt: isoTime(),
  })
  .meta({
    id: "TaskSummary",
    description:
      "Meilisearch's summarized task, answered by a write when the deployment hands writes on to an " +
      "index manager (absent otherwise): nested as `task` and, for Meilisearch's clients, its fields at " +
      "the top level of the answer (an index view keeps its own `type`). `indexUid` is the index's name; " +
      "follow it with GET /api/v1/tasks/{uid}.",
  });

export const IndexViewSchema = z
  .object({
    uid: z.string().meta({ description: "The name, as Meilisearch calls it." }),
    name: z.string(),
    type: z.enum(["index", "alias"]),
    primaryKey: z.string().optional().meta({ description: "Indexes only." }),
    index: z.string().optional().meta({ description: "Aliases only: the index the alias points at." }),
    numberOfDocuments: z.number().int().optional().meta({ description: "GET of one index only." }),
    task: TaskSummarySchema.optional(),
    taskUid: taskUid.optional(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: "IndexView" });

export const IndexPage = z.object({
  results: z.array(IndexViewSchema),
  offset: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
});

export const Deleted = z.object({
  deleted: z.string().optional(),
  task: TaskSummarySchema.optional(),
  taskUid: taskUid.optional(),
});

export const IndexStats = z.object({
  numberOfDocuments: z.number().int(),
  isIndexing: z.boolean(),
  fieldDistribution: z.record(z.string(), z.number().int()),
});

export const DocumentsBody = z.array(
  z.record(z.string(), z.unknown()).meta({
    maxProperties: MAX_DOCUMENT_FIELDS,
    description:
      `At most ${formatBytes(MAX_DOCUMENT_BYTES)} as stored (UTF-8 JSON), each string at most ` +
      `${formatBytes(MAX_DOCUMENT_STRING_BYTES)}, at most ${MAX_DOCUMENT_FIELDS} distinct fields ` +
      `(nested ones by dotted name), at most ${MAX_DOCUMENT_DEPTH} levels of nesting; else rejected (202).`,
  }),
);

export const DocumentsReceived = z.object({
  task: TaskSummarySchema.optional(),
  taskUid: taskUid.optional(),
  received: z.number().int().meta({ description: "Documents in the body." }),
  accepted: z.number().int().meta({ description: "Documents stored." }),
  rejected: z
    .array(
      z.object({
        index: z.number().int().meta({ description: "Position in the body." }),
        id: z.union([z.string(), z.number().int()]).meta({ description: "Its primary key." }),
        path: z.string().meta({ examples: ["[3].description"] }),
        reason: z.string().meta({ description: "The field and the limit it is over." }),
      }),
    )
    .max(MAX_REJECTED_LISTED)
    .meta({ description: `The first ${MAX_REJECTED_LISTED} rejected documents.` }),
});

export const DocumentsPage = z.object({
  results: z.array(z.record(z.string(), z.unknown())).optional(),
  offset: z.number().int().optional(),
  limit: z.number().int().optional(),
  total: z.number().int().optional(),
});

export const TaskSchema = z.object({
  uid: z.number().int(),
  indexUid: z.string().meta({ description: "The index's name." }),
  status: z.enum(["enqueued", "processing", "succeeded", "failed"]),
  type: z.string(),
  enqueuedAt: isoTime(),
  startedAt: isoTime().nullable(),
  finishedAt: isoTime().nullable(),
  error: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: "Why it failed: Meilisearch's {message, code, type, link}." }),
  details: z.record(z.string(), z.unknown()),
});

// ---- Settings (checked by settings-mapping.ts's validator, which names every problem) ----

const attribute = z.string().min(1).max(MAX_ATTRIBUTE_CHARS);
const nameList = () => z.array(attribute).max(MAX_ATTRIBUTES);
const word = () => z.string().min(1).max(MAX_WORD_CHARS);
const synonyms = () =>
  z.record(word(), z.array(word()).max(MAX_SYNONYM_WORDS)).meta({
    maxProperties: MAX_SYNONYM_KEYS,
    propertyNames: { type: "string", minLength: 1, maxLength: MAX_WORD_CHARS },
  });
const stopWords = () => z.array(word()).max(MAX_STOP_WORDS);
const wordSize = z.number().int().min(0).max(MAX_TYPO_WORD_SIZE);
const typoTolerance = () =>
  z
    .strictObject({
      enabled: z.boolean().optional(),
      minWordSizeForTypos: z
        .strictObject({ oneTypo: wordSize.optional(), twoTypos: wordSize.optional() })
        .optional(),
      disableOnWords: z.array(word()).max(MAX_TYPO_DISABLED_WORDS).optional(),
      disableOnAttributes: z.array(attribute).max(0).optional(),
    })
    .meta({
      description:
        "Merged into the stored value. disableOnAttributes accepts only [] and disableOnNumbers is refused: the embedded engine cannot honour them (422).",
    });
const rankingRules = () =>
  z.array(z.string()).max(MAX_RANKING_RULES).meta({
    description:
      'Only the default ["words","typo","proximity","attribute","sort","exactness"] is accepted (422 otherwise).',
  });

export const SettingsSchema = z
  .object({
    searchableAttributes: nameList().optional(),
    displayedAttributes: nameList().optional(),
    filterableAttributes: nameList().optional(),
    sortableAttributes: nameList().optional(),
    synonyms: synonyms().optional(),
    stopWords: stopWords().optional(),
    typoTolerance: typoTolerance().optional(),
    rankingRules: rankingRules().optional(),
    task: TaskSummarySchema.optional(),
  })
  .meta({ id: "Settings" });

export const SettingsPatchSchema = z
  .strictObject({
    searchableAttributes: nameList().nullable().optional(),
    displayedAttributes: nameList().nullable().optional(),
    filterableAttributes: nameList().nullable().optional(),
    sortableAttributes: nameList().nullable().optional(),
    synonyms: synonyms().nullable().optional(),
    stopWords: stopWords().nullable().optional(),
    typoTolerance: typoTolerance().nullable().optional(),
    rankingRules: rankingRules().nullable().optional(),
  })
  .meta({
    id: "SettingsPatch",
    description:
      "Any subset; null resets a setting to its default. relevanceTriggerConfig / relevance_trigger_config answer 422. " +
      `The eight settings together, after the change, as GET answers them, may take at most ${formatBytes(MAX_SETTINGS_BYTES)} of JSON (422, path settings).`,
  });
