import { INDEX_NAME, indexNameOf, indexSk, type SettingsTable, type TableItem } from "@relevance/settings";

/** An index or alias settings record of `accountId`, or null (also for names that cannot exist). */
export async function findRecord(
  table: SettingsTable,
  accountId: string,
  name: string,
): Promise<TableItem | null> {
  if (!INDEX_NAME.test(name)) return null;
  return table.get(accountId, indexSk(name));
}

export const isAlias = (item: TableItem): boolean => item.attributes.type === "alias";

export const recordName = (item: TableItem): string => indexNameOf(item.sk) ?? item.sk;

export const etag = (version: number): string => `"${version}"`;

export type Attempt<T> = { done: T } | "conflict";

/** Runs a read-modify-write until it does not hit a concurrent write, at most `attempts` times. */
export async function retryOnConflict<T>(
  attempts: number,
  work: () => Promise<Attempt<T>>,
): Promise<T | null> {
  for (let i = 0; i < attempts; i++) {
    const result = await work();
    if (result !== "conflict") return result.done;
  }
  return null;
}
