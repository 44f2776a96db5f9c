// An index snapshot as parts of about a megabyte each, so that writing and reading one is done in
// slices (slices.ts): a 100,000-product index is about 29 MB of JSON, which serialized or parsed in
// one piece held the event loop for a second. The first part is a header (what the index was built
// for, MiniSearch's counters); then its document ids, field lengths and terms with their postings,
// each part a JSON array `[kind, items]`. Read back, the parts make the object MiniSearch's own
// `toJSON` makes, loaded by its `loadJSAsync` (which also yields as it goes).

import type { Document } from "@relevance/settings";
import type MiniSearch from "minisearch";
import { Slicer } from "./slices.ts";

/** MiniSearch's internals a snapshot reads (minisearch 7, serialization version 2). */
interface Internals {
  _documentCount: number;
  _nextId: number;
  _fieldIds: Record<string, number>;
  _avgFieldLength: number[];
  _dirtCount: number;
  _documentIds: Map<number, string>;
  _fieldLength: Map<number, number[]>;
  _index: Iterable<[string, Map<number, Map<number, number>>]>;
}

export interface SnapshotHeader {
  format: number;
  /** What the index was built for (primary key, searchable attributes). */
  config: string;
  fields: string[];
}

/** Postings (or ids) per part: about a megabyte of JSON. */
const ITEMS_PER_PART = 40_000;

/** The parts of `search`'s snapshot, each made when asked for (a slice of work each). */
export function* snapshotParts(search: MiniSearch<Document>, header: SnapshotHeader): Generator<string> {
  const s = search as unknown as Internals;
  yield JSON.stringify({
    ...header,
    documentCount: s._documentCount,
    nextId: s._nextId,
    fieldIds: s._fieldIds,
    averageFieldLength: s._avgFieldLength,
    dirtCount: s._dirtCount,
  });
  let items: unknown[] = [];
  let size = 0;
  function* flush(kind: string, force: boolean): Generator<string> {
    if (items.length === 0 || (!force && size < ITEMS_PER_PART)) return;
    yield JSON.stringify([kind, items]);
    items = [];
    size = 0;
  }
  for (const pair of s._documentIds) {
    items.push(pair);
    size++;
    yield* flush("ids", false);
  }
  yield* flush("ids", true);
  for (const pair of s._fieldLength) {
    items.push(pair);
    size += pair[1].length;
    yield* flush("lengths", false);
  }
  yield* flush("lengths", true);
  for (const [term, fieldIndex] of s._index) {
    const data: Record<number, Record<number, number>> = {};
    for (const [fieldId, freqs] of fieldIndex) {
      data[fieldId] = Object.fromEntries(freqs);
      size += freqs.size;
    }
    items.push([term, data]);
    size++;
    yield* flush("terms", false);
  }
  yield* flush("terms", true);
}

/** The header of a snapshot (its first part), or null when it is not one of this format. */
export function snapshotHeader(first: string | undefined, format: number): (SnapshotHeader & object) | null {
  if (first === undefined) return null;
  const header = JSON.parse(first) as SnapshotHeader;
  return header.format === format ? header : null;
}

/**
 * The object MiniSearch's `loadJSAsync` takes, made from the parts in slices. Throws on parts that
 * are not a snapshot's.
 */
export async function snapshotObject(
  parts: readonly string[],
): Promise<Parameters<typeof MiniSearch.loadJS>[0]> {
  const header = JSON.parse(parts[0] as string) as Record<string, unknown>;
  const documentIds: Record<number, string> = {};
  const fieldLength: Record<number, number[]> = {};
  const index: [string, Record<string, Record<string, number>>][] = [];
  const slicer = new Slicer();
  for (const part of parts.slice(1)) {
    const [kind, items] = JSON.parse(part) as [string, unknown[]];
    if (kind === "ids") for (const [shortId, id] of items as [number, string][]) documentIds[shortId] = id;
    else if (kind === "lengths")
      for (const [shortId, lengths] of items as [number, number[]][]) fieldLength[shortId] = lengths;
    else if (kind === "terms") for (const entry of items as (typeof index)[number][]) index.push(entry);
    else throw new Error(`not an index snapshot part: ${String(kind).slice(0, 40)}`);
    await slicer.pause();
  }
  return {
    documentCount: header.documentCount as number,
    nextId: header.nextId as number,
    fieldIds: header.fieldIds as Record<string, number>,
    averageFieldLength: header.averageFieldLength as number[],
    dirtCount: header.dirtCount as number,
    documentIds,
    fieldLength,
    storedFields: {},
    index,
    serializationVersion: 2,
  };
}
