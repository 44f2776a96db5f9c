import type { DocumentStats, DocumentStore } from "./ports.ts";

export type { DocumentStats } from "./ports.ts";

/**
 * Documents one index may hold where this project keeps them (npm start's SQLite store and its
 * embedded engine, which holds every index it searches in memory, without the documents: about
 * 350 MB at a million products, docs/search.md "Memory"). A batch that would take an index past
 * it is refused whole.
 */
export const MAX_DOCUMENTS_PER_INDEX = 1_000_000;

/** An index's document count and field distribution (documents having each top-level field). */

/**
 * The stats Meilisearch answers (document count, documents having each top-level field), for the
 * embedded stores (the admin API and the embedded IndexManager): the store's own when it keeps them
 * (SqliteDocumentStore does, in its write transactions); otherwise every document is read,
 * `pageSize` at a time.
 */
export async function documentStats(
  documents: Pick<DocumentStore, "list" | "stats">,
  accountId: string,
  index: string,
  pageSize: number,
): Promise<DocumentStats> {
  if (documents.stats !== undefined) return documents.stats(accountId, index);
  const fieldDistribution: Record<string, number> = {};
  let numberOfDocuments = 0;
  for (let offset = 0; ; offset += pageSize) {
    const page = await documents.list(accountId, index, offset, pageSize);
    for (const doc of page) {
      numberOfDocuments++;
      for (const field of Object.keys(doc)) fieldDistribution[field] = (fieldDistribution[field] ?? 0) + 1;
    }
    if (page.length < pageSize) break;
  }
  return { numberOfDocuments, fieldDistribution };
}
