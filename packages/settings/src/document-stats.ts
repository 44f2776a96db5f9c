import type { DocumentStore } from "./ports.ts";

/** An index's document count and field distribution (documents having each top-level field). */
export interface DocumentStats {
  numberOfDocuments: number;
  fieldDistribution: Record<string, number>;
}

/**
 * Reads every document of the index, `pageSize` at a time, counting them and their top-level
 * fields: the stats Meilisearch answers, for the embedded stores (the admin API and the embedded
 * IndexManager).
 */
export async function documentStats(
  documents: Pick<DocumentStore, "list">,
  accountId: string,
  index: string,
  pageSize: number,
): Promise<DocumentStats> {
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
