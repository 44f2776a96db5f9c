/**
 * The bodies of the keys and account CORS routes (Meilisearch's `/keys` shapes), with the bounds of
 * key-limits.ts; the customer and admin routes parse with them and the OpenAPI documents show them.
 */
import { API_KEY_ACTIONS, ORIGIN } from "@relevance/settings";
import { z } from "zod";
import {
  MAX_CORS_ORIGINS,
  MAX_KEY_ACTIONS,
  MAX_KEY_DESCRIPTION_CHARS,
  MAX_KEY_INDEX_PATTERN_CHARS,
  MAX_KEY_INDEXES,
  MAX_KEY_NAME_CHARS,
  MAX_KEYS_PAGE_LIMIT,
  MAX_ORIGIN_CHARS,
} from "./key-limits.ts";

const NO_CONTROL = /^[^\u0000-\u001f\u007f-\u009f]*$/;
const isoTime = () => z.string().meta({ format: "date-time" });
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const KeyName = z
  .string()
  .max(MAX_KEY_NAME_CHARS, `must be at most ${MAX_KEY_NAME_CHARS} characters`)
  .regex(NO_CONTROL, "must not contain control characters")
  .nullable();
const KeyDescription = z
  .string()
  .max(MAX_KEY_DESCRIPTION_CHARS, `must be at most ${MAX_KEY_DESCRIPTION_CHARS} characters`)
  .nullable();
const IndexPattern = z
  .string()
  .max(MAX_KEY_INDEX_PATTERN_CHARS, `must be at most ${MAX_KEY_INDEX_PATTERN_CHARS} characters`)
  .regex(
    /^(\*|[A-Za-z0-9_-]{1,64}\*?)$/,
    "must be an index name, a name's start followed by *, or * (every index)",
  );
const Action = z.enum(API_KEY_ACTIONS);

export const CreateKey = z
  .strictObject({
    name: KeyName.optional(),
    description: KeyDescription.optional(),
    uid: z
      .string()
      .regex(UUID_V4, "must be a UUID v4 in lower case")
      .optional()
      .meta({ description: "Default: a random UUID v4." }),
    actions: z
      .array(Action)
      .min(1, "must name at least one action")
      .max(MAX_KEY_ACTIONS, `must have at most ${MAX_KEY_ACTIONS} items`),
    indexes: z
      .array(IndexPattern)
      .min(1, "must name at least one index or pattern")
      .max(MAX_KEY_INDEXES, `must have at most ${MAX_KEY_INDEXES} items`),
    expiresAt: z.iso
      .datetime({ offset: true, message: "must be an RFC 3339 date-time (or null: never)" })
      .nullable(),
  })
  .meta({ id: "CreateKey" });

/** As Meilisearch: only the name and the description of a key change. */
export const UpdateKey = z
  .strictObject({ name: KeyName.optional(), description: KeyDescription.optional() })
  .meta({ id: "UpdateKey" });

export const KeysPage = z.strictObject({
  offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_KEYS_PAGE_LIMIT, `must be at most ${MAX_KEYS_PAGE_LIMIT}`)
    .default(20),
});

export const KeyView = z
  .object({
    uid: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    keyPrefix: z.string().meta({
      description:
        "The key's first characters, to tell keys apart; the key itself is shown once, when it is created.",
    }),
    actions: z.array(z.string()),
    indexes: z.array(z.string()),
    expiresAt: isoTime().nullable(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: "Key" });

export const KeyCreatedView = KeyView.extend({
  key: z.string().meta({ description: "The key: shown in this answer only (only its SHA-256 is stored)." }),
}).meta({ id: "KeyCreated" });

export const KeysList = z
  .object({
    results: z.array(KeyView),
    offset: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
  })
  .meta({ id: "KeysList" });

const Origins = z
  .array(
    z
      .string()
      .max(MAX_ORIGIN_CHARS, `must be at most ${MAX_ORIGIN_CHARS} characters`)
      .regex(ORIGIN, "must be an origin (scheme://host[:port], lower case, no path) or *"),
  )
  .max(MAX_CORS_ORIGINS, `must have at most ${MAX_CORS_ORIGINS} items`);

export const CorsSchema = z
  .strictObject({
    readOrigins: Origins.meta({
      description: 'Origins whose pages may search and read (default ["*"]: any).',
    }),
    writeOrigins: Origins.meta({ description: "Origins whose pages may write (default []: none)." }),
  })
  .meta({ id: "AccountCors" });

export const PatchAccount = z.strictObject({ cors: CorsSchema.partial() }).meta({ id: "PatchAccount" });

export const AccountView = z
  .object({ systemAccountId: z.string(), cors: CorsSchema })
  .meta({ id: "Account" });
