/**
 * What a search answer says about itself and what is recorded of it. Every search gets a queryUid;
 * `metadata` (Meilisearch's `{queryUid, indexUid, primaryKey}`) is answered under the
 * `Meili-Include-Metadata: true` header and always with a relevanceScore, so a front end can tie a
 * click to the scored search without asking. `indexUid` is the index or alias the request named:
 * what the front end searched, sends back in its events, and what recording and quality group by.
 */
import { tokenize } from "@relevance/core";
import {
  hashUserId,
  MAX_HIT_ID_CHARS,
  MAX_RECORDED_HIT_IDS,
  MAX_RECORDED_QUERY_CHARS,
  MAX_USER_ID_CHARS,
  type ServedSearch,
} from "@relevance/outcomes";

/** Meilisearch's request header asking for `metadata` in search answers. */
export const INCLUDE_METADATA_HEADER = "meili-include-metadata";

export interface SearchMetadata {
  queryUid: string;
  indexUid: string;
  primaryKey: string;
}

/** Whether the request asked for metadata (`Meili-Include-Metadata: true`, any case). */
export const wantsMetadata = (header: string | undefined): boolean => header?.trim().toLowerCase() === "true";

/** The primary keys of the first hits, in order, as text ("" for a hit without one). */
export function hitIdsOf(hits: readonly Record<string, unknown>[], primaryKey: string): string[] {
  const ids: string[] = [];
  const n = Math.min(hits.length, MAX_RECORDED_HIT_IDS);
  for (let i = 0; i < n; i++) {
    const id = (hits[i] as Record<string, unknown>)[primaryKey];
    const s = typeof id === "string" ? id : typeof id === "number" ? String(id) : "";
    ids.push(s.length > MAX_HIT_ID_CHARS ? s.slice(0, MAX_HIT_ID_CHARS) : s);
  }
  return ids;
}

export interface ServedInput {
  queryUid: string;
  account: string;
  index: string;
  indexUid: string;
  primaryKey: string;
  modelId: string;
  score: number;
  features: number[];
  query: string;
  hits: readonly Record<string, unknown>[];
  estimatedTotalHits: number;
  latencyMs: number;
  servedAt: number;
  /** X-MS-USER-ID of the search, if sent. */
  userId: string | undefined;
}

/**
 * The row recorded for a scored search, built after the answer is ready. A user id over its bound
 * is not hashed (the search is never refused for it): the row has no user then.
 */
export async function servedSearchRow(input: ServedInput): Promise<ServedSearch> {
  const query =
    input.query.length > MAX_RECORDED_QUERY_CHARS
      ? input.query.slice(0, MAX_RECORDED_QUERY_CHARS)
      : input.query;
  const key = tokenize(query).join(" ");
  const userId = input.userId;
  return {
    queryUid: input.queryUid,
    account: input.account,
    index: input.index,
    indexUid: input.indexUid,
    modelId: input.modelId,
    score: input.score,
    features: input.features,
    query,
    queryKey: key.length > MAX_RECORDED_QUERY_CHARS ? key.slice(0, MAX_RECORDED_QUERY_CHARS) : key,
    hitIds: hitIdsOf(input.hits, input.primaryKey),
    estimatedTotalHits: Math.max(0, Math.floor(input.estimatedTotalHits)),
    latencyMs: Math.max(0, input.latencyMs),
    servedAt: Math.floor(input.servedAt),
    userHash:
      userId === undefined || userId === "" || userId.length > MAX_USER_ID_CHARS
        ? null
        : await hashUserId(input.account, userId),
  };
}
