/**
 * The two facts this package stores: a scored search as it was served, and an outcome event a
 * shopper's front end sent after it. Defined once as zod schemas: the queue consumer checks a
 * message with them, the stores' rows and the types come from them.
 */
import { FEATURE_SET_V1 } from "@relevance/core";
import * as z from "zod";
import { MAX_HIT_ID_CHARS, MAX_RECORDED_HIT_IDS, MAX_RECORDED_QUERY_CHARS } from "./limits.ts";
import { QUERY_UID } from "./query-uid.ts";

export const EVENT_TYPES = ["click", "conversion"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const ACCOUNT = z.string().min(1).max(64);
const INDEX = z.string().min(1).max(64);

/** One scored search as it was served. */
export const ServedSearchSchema = z.strictObject({
  queryUid: z.string().regex(QUERY_UID),
  account: ACCOUNT,
  /** The index or alias the request named (where its relevance config lives). */
  index: INDEX,
  /** The index that was searched (an alias's target; else the same as `index`). */
  indexUid: INDEX,
  modelId: z.string().min(1).max(256),
  /** relevanceScore as answered, in [0, 10]. */
  score: z.number().min(0).max(10),
  /** Feature set v1 exactly as the model saw it, in FEATURE_SET_V1 order. */
  features: z.array(z.number()).length(FEATURE_SET_V1.length),
  /** The query text as sent (cut to MAX_RECORDED_QUERY_CHARS). */
  query: z.string().max(MAX_RECORDED_QUERY_CHARS),
  /** The query's words as the feature set sees them (tokenize(q).join(" ")): what queries group by. */
  queryKey: z.string().max(MAX_RECORDED_QUERY_CHARS),
  /** The hits' primary keys in answer order (the first MAX_RECORDED_HIT_IDS); "" for a hit without one. */
  hitIds: z.array(z.string().max(MAX_HIT_ID_CHARS)).max(MAX_RECORDED_HIT_IDS),
  estimatedTotalHits: z.number().int().min(0),
  /** From the request's arrival to the answer being ready, in ms. */
  latencyMs: z.number().min(0),
  /** When it was served, epoch ms. */
  servedAt: z.number().int().min(0),
  /** hashUserId of the shopper (X-MS-USER-ID on the search), or null. Never the id itself. */
  userHash: z.string().max(64).nullable(),
  /**
   * The shadow model (relevance_shadow_config) that scored the same feature vector after the answer
   * left, when this search was in its sample and the model loaded. Optional, both or neither: rows
   * and queue messages from before shadow scoring, and unsampled searches, have neither.
   */
  shadowModelId: z.string().min(1).max(256).optional(),
  /** What the shadow model predicted on `features`, in [0, 10]; never answered. */
  shadowScore: z.number().min(0).max(10).optional(),
});
export type ServedSearch = z.infer<typeof ServedSearchSchema>;

/** One outcome event as stored: what the front end sent, with the account of the key that sent it. */
export const OutcomeEventSchema = z.strictObject({
  /** The account of the search key that sent the event: events are only ever joined within it. */
  account: ACCOUNT,
  /** indexUid as sent (an index or alias name). */
  index: INDEX,
  /** The search it followed, when the front end said (Meilisearch: recommended, not required). */
  queryUid: z.string().regex(QUERY_UID).nullable(),
  eventType: z.enum(EVENT_TYPES),
  eventName: z.string().max(256),
  objectId: z.string().max(MAX_HIT_ID_CHARS).nullable(),
  objectName: z.string().max(256).nullable(),
  position: z.number().int().min(0).nullable(),
  /** hashUserId of userId (or X-MS-USER-ID). Never the id itself. */
  userHash: z.string().max(64),
  receivedAt: z.number().int().min(0),
});
export type OutcomeEvent = z.infer<typeof OutcomeEventSchema>;
