// One index of the embedded engine in memory: its postings (typed-index.ts), its attribute columns
// (columns.ts) and what searches derive from them (sort keys, sorted orders). Not its documents:
// they stay in the document store, read while the index is built (one at a time, dropped once
// indexed) and afterwards only for a page's hits or a column no build made. A 100,000-product
// index is tens of megabytes, and a restart loads it without reading a document.

import { tokenize } from "@relevance/core";
import type { SearchTarget } from "@relevance/search";
import type { Document, DocumentStore, EditableDocumentStore } from "@relevance/settings";
import { type AttributeColumn, ColumnBuilder } from "./columns.ts";
import { fieldValue, searchableText } from "./fields.ts";
import { indexFields } from "./settings.ts";
import { compareColumns, type SortCriterion, type SortKey, sortColumn, sortSliced } from "./sort.ts";
import { type TypedIndex, TypedIndexBuilder } from "./typed-index.ts";

/** What the engine reads documents through: the store's pages in primary-key order, and by id. */
export type DocumentSource = DocumentStore & Pick<EditableDocumentStore, "getMany">;

export interface LoadedIndex {
  /** What the index was built for (primary key, searchable attributes): another value means rebuild. */
  config: string;
  /** The document revision read before the documents were: never newer than what the index holds. */
  revision: number;
  account: string;
  name: string;
  /** The postings; document numbers are positions in primary-key order, `search.data.ids` their ids. */
  search: TypedIndex;
  /** The indexed fields (the searchable attributes, or the string fields found). */
  fields: string[];
  /** The columns made with the index (the filterable and sortable attributes): what a snapshot keeps. */
  built: AttributeColumn[];
  /** Columns by attribute: those built, and those made on first use (a nested path, say). */
  attributes: Map<string, Promise<AttributeColumn>>;
  /** Sort key columns by criterion, made when a search first needs them. */
  sortKeys: Map<string, Promise<SortKey[]>>;
  /** Every document in a sort's order, by criteria, made when a placeholder search first needs it. */
  orders: Map<string, Promise<Uint32Array>>;
}

/** Columns made on first use kept per index, beyond which the oldest is dropped. */
const MAX_LAZY_COLUMNS = 64;
/** Sort key columns kept per index (criteria × direction), likewise. */
const MAX_SORT_KEYS = 16;
/** Sorted orders of every document kept per index (placeholder searches), likewise. */
const MAX_ORDERS = 8;
/** Documents read by id at a time when a column is made on first use. */
const READ_BATCH = 500;

/** The attributes whose columns are made with the index: every filterable and sortable one. */
export function builtAttributes(target: SearchTarget): string[] {
  return [...new Set([...target.filterableAttributes, ...(target.sortableAttributes ?? [])])];
}

/** How documents are indexed: the relevance core's tokens (NFKC, lower case, split on non letters/digits). */
function indexOptions(fields: readonly string[] | "strings") {
  return {
    fields,
    text: (doc: Document, name: string) => searchableText(fieldValue(doc, name)),
    tokenize: (text: string) => tokenize(text),
  };
}

/**
 * Builds the index of `target` from every document of the store, read a page at a time in
 * primary-key order and indexed one at a time (`pause` between documents): a write meanwhile makes a
 * newer revision, which the next search builds again.
 */
export async function buildIndex(
  documents: DocumentSource,
  target: SearchTarget,
  config: string,
  revision: number,
  pause: () => Promise<void>,
): Promise<LoadedIndex> {
  const { systemAccountId: account, index: name, primaryKey } = target;
  const builder = new TypedIndexBuilder(indexOptions(indexFields(target) ?? "strings"));
  const columns = builtAttributes(target).map((attribute) => new ColumnBuilder(attribute));
  let last: string | undefined;
  for await (const json of documents.listJson(account, name, 0, Number.MAX_SAFE_INTEGER)) {
    const doc = JSON.parse(json) as Document;
    const id = String(doc[primaryKey]);
    // Pages are read by key, so an id never comes twice; this guards the index if a store did.
    if (id === last) continue;
    last = id;
    builder.add(id, doc);
    for (const column of columns) column.add(doc);
    await pause();
  }
  const search = await builder.finish(pause);
  const built: AttributeColumn[] = [];
  for (const column of columns) {
    built.push(column.finish());
    await pause();
  }
  return loadedIndex({ config, revision, account, name, search, built });
}

/** A loaded index from its parts (built, or read from a snapshot). */
export function loadedIndex(parts: {
  config: string;
  revision: number;
  account: string;
  name: string;
  search: TypedIndex;
  built: AttributeColumn[];
}): LoadedIndex {
  return {
    ...parts,
    fields: parts.search.data.fields,
    attributes: new Map(parts.built.map((column) => [column.attribute, Promise.resolve(column)])),
    sortKeys: new Map(),
    orders: new Map(),
  };
}

/** Remembers `make()` under `key` in `cache` (at most `max`, the oldest dropped); a failure is forgotten. */
function remembered<T>(
  cache: Map<string, Promise<T>>,
  key: string,
  max: number,
  make: () => Promise<T>,
): Promise<T> {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    value.catch(() => cache.delete(key));
    cache.set(key, value);
    for (const oldest of cache.keys()) {
      if (cache.size <= max) break;
      cache.delete(oldest);
    }
  }
  return value;
}

/**
 * The column of `attribute`: made with the index, or now from the documents read by id (an
 * attribute nested in a filterable object, or made filterable since the index was built).
 */
export function attributeColumn(
  index: LoadedIndex,
  documents: DocumentSource,
  attribute: string,
  pause: () => Promise<void>,
): Promise<AttributeColumn> {
  const builtOne = index.built.find((column) => column.attribute === attribute);
  if (builtOne !== undefined) return Promise.resolve(builtOne);
  return remembered(index.attributes, attribute, index.built.length + MAX_LAZY_COLUMNS, async () => {
    const builder = new ColumnBuilder(attribute);
    const ids = index.search.data.ids;
    for (let i = 0; i < ids.length; i += READ_BATCH) {
      const batch = ids.slice(i, i + READ_BATCH);
      const docs = await documents.getMany(index.account, index.name, batch);
      // A document deleted since the build has no values (the next search rebuilds the index).
      for (const id of batch) builder.add(docs.get(id));
      await pause();
    }
    return builder.finish();
  });
}

/** Every document's sort key for each criterion, by document number (made once per index). */
export function sortKeysOf(
  index: LoadedIndex,
  documents: DocumentSource,
  criteria: readonly SortCriterion[],
  pause: () => Promise<void>,
): Promise<SortKey[][]> {
  return Promise.all(
    criteria.map((c) =>
      remembered(index.sortKeys, JSON.stringify([c.attribute, c.descending]), MAX_SORT_KEYS, async () =>
        sortColumn(await attributeColumn(index, documents, c.attribute, pause), c.descending, pause),
      ),
    ),
  );
}

/** Every document number in the order of `criteria`, ties in primary-key order (made once per index). */
export function sortedOrder(
  index: LoadedIndex,
  documents: DocumentSource,
  criteria: readonly SortCriterion[],
  pause: () => Promise<void>,
): Promise<Uint32Array> {
  return remembered(index.orders, JSON.stringify(criteria), MAX_ORDERS, async () => {
    const keys = await sortKeysOf(index, documents, criteria, pause);
    const all = new Uint32Array(index.search.documentCount);
    for (let d = 0; d < all.length; d++) all[d] = d;
    // Document numbers are primary-key positions, and the sort is stable.
    return sortSliced(all, (a, b) => compareColumns(keys, a, b, criteria), pause);
  });
}
