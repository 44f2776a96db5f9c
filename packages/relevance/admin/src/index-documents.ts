// Where the customer app reads an index's documents and stats: the embedded document store, or the
// search backend (the IndexManager port) when the deployment has one. In production that is
// Meilisearch, and the customer API holds no documents of its own. docs/api.md, "Documents".

import { documentStats, type Logger } from "@relevance/settings";
import { ApiError } from "@shared/http";
import { errorMessage } from "@shared/kernel";
import type { BackendTask, DocumentStore, IndexBackend, TaskSummary } from "./ports.ts";

const encoder = new TextEncoder();

/** Documents asked of the backend at a time: a page of a thousand 100 KiB documents is never read at once. */
export const BACKEND_PAGE = 50;

export interface IndexStatsView {
  numberOfDocuments: number;
  isIndexing: boolean;
  fieldDistribution: Record<string, number>;
}

/** A backend read that failed for another reason than a missing index: logged with its cause, answered 502. */
export function backendReadFailed(log: Logger, what: string, error: unknown): ApiError {
  log.error("search backend read failed", {
    read: what,
    error: errorMessage(error),
  });
  return new ApiError(502, "backend_unavailable", `the search backend could not be read (${what}); retry`);
}

/** The backend refused a read because the index does not exist (yet: its creation task may be enqueued). */
const isIndexNotFound = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  (error as { error?: { code?: unknown } }).error?.code === "index_not_found";

/**
 * An index's stats from the backend. An index whose creation task has not run yet (or failed) has
 * no documents: zero, indexing while its tasks are pending.
 */
export async function backendStats(backend: IndexBackend, uid: string, log: Logger): Promise<IndexStatsView> {
  try {
    return await backend.getStats(uid);
  } catch (error) {
    if (isIndexNotFound(error)) return { numberOfDocuments: 0, isIndexing: false, fieldDistribution: {} };
    throw backendReadFailed(log, "stats", error);
  }
}

/**
 * The documents of a page, as JSON texts, `BACKEND_PAGE` at a time; `total` comes with the first
 * read. An index the backend does not have yet has none.
 */
export async function* backendDocuments(
  backend: IndexBackend,
  uid: string,
  offset: number,
  limit: number,
  onTotal: (total: number) => void,
  log: Logger,
): AsyncGenerator<string> {
  for (let at = offset, left = limit; left > 0; ) {
    let page: Awaited<ReturnType<IndexBackend["getDocuments"]>>;
    try {
      page = await backend.getDocuments(uid, { offset: at, limit: Math.min(BACKEND_PAGE, left) });
    } catch (error) {
      if (!isIndexNotFound(error)) throw backendReadFailed(log, "documents", error);
      onTotal(0);
      return;
    }
    onTotal(page.total);
    for (const doc of page.results) yield JSON.stringify(doc);
    if (page.results.length < Math.min(BACKEND_PAGE, left)) return;
    at += page.results.length;
    left -= page.results.length;
  }
}

/**
 * Reads a whole page into memory when the deployment bounds a response's size (API Gateway and
 * Lambda answer at most 6 MB): beyond `maxBytes` the answer is 422 naming `limit`, with the number
 * of documents that fitted, so the client can ask again with that limit.
 */
export async function boundedPage(
  texts: AsyncIterable<string>,
  maxBytes: number,
  framingBytes: number,
): Promise<string[]> {
  const kept: string[] = [];
  let bytes = framingBytes;
  for await (const text of texts) {
    bytes += encoder.encode(text).length + 1;
    if (bytes > maxBytes) {
      const fits = Math.max(1, kept.length);
      throw new ApiError(
        422,
        "response_too_large",
        `the page is over this API's ${maxBytes}-byte response limit`,
        [
          {
            path: "limit",
            message: `the documents asked for do not fit in ${maxBytes} bytes; ask for at most ${fits} (limit=${fits}) and page with offset`,
          },
        ],
      );
    }
    kept.push(text);
  }
  return kept;
}

/** An index's documents as the customer routes read them (`uid` is `<account>-<index>`). */
export interface IndexDocuments {
  stats(accountId: string, index: string): Promise<IndexStatsView>;
  count(accountId: string, index: string): Promise<number>;
  /** A page as JSON texts, read a few at a time; `total()` once the texts have been read. */
  page(
    accountId: string,
    index: string,
    offset: number,
    limit: number,
  ): { texts: AsyncIterable<string>; total(): Promise<number> };
}

/** Documents per read of an index's stats from the store (the field distribution reads every document). */
const STATS_PAGE = 500;

/** The embedded stack's documents, written synchronously by the customer app itself. */
export function storeDocuments(documents: DocumentStore): IndexDocuments {
  return {
    count: (accountId, index) => documents.count(accountId, index),
    async stats(accountId, index) {
      // The embedded stack indexes synchronously: isIndexing is always false here.
      const { numberOfDocuments, fieldDistribution } = await documentStats(
        documents,
        accountId,
        index,
        STATS_PAGE,
      );
      return { numberOfDocuments, isIndexing: false, fieldDistribution };
    },
    page: (accountId, index, offset, limit) => ({
      texts: documents.listJson(accountId, index, offset, limit),
      total: () => documents.count(accountId, index),
    }),
  };
}

/** The backend's documents (uid `<account>-<index>`), as its tasks have indexed them. */
export function backendIndexDocuments(backend: IndexBackend, log: Logger): IndexDocuments {
  const uid = (accountId: string, index: string) => `${accountId}-${index}`;
  return {
    stats: (accountId, index) => backendStats(backend, uid(accountId, index), log),
    count: async (accountId, index) =>
      (await backendStats(backend, uid(accountId, index), log)).numberOfDocuments,
    page(accountId, index, offset, limit) {
      let total = 0;
      return {
        texts: backendDocuments(
          backend,
          uid(accountId, index),
          offset,
          limit,
          (n) => {
            total = n;
          },
          log,
        ),
        total: async () => total,
      };
    },
  };
}

/** A task summary as the customer sees it: the index by its name (`products`), not the backend's uid. */
export function customerTask<T extends TaskSummary | BackendTask>(task: T, accountId: string): T {
  const prefix = `${accountId}-`;
  return task.indexUid.startsWith(prefix) ? { ...task, indexUid: task.indexUid.slice(prefix.length) } : task;
}

/** The fields Meilisearch answers a write with (`taskUid`, `indexUid`, ...), for clients that read them at the top level. */
export function taskFields(task: TaskSummary | undefined): Partial<TaskSummary> & { task?: TaskSummary } {
  return task === undefined ? {} : { ...task, task };
}
