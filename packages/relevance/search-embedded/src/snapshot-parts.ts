// An index snapshot as parts of a few hundred kilobytes each, so that writing and reading one is
// done in slices (slices.ts): a 100,000-product index is about 25 MB of JSON, which serialized or
// parsed in one piece held the event loop for a second. The first part is a header (what the index
// was built for, MiniSearch's counters); then its document ids, field lengths and terms with their
// postings, each part a JSON array `[kind, items]`, postings as flat arrays of document and
// frequency (objects with numeric keys, MiniSearch's own `toJSON` form, cost ten times more to make
// and to read). Read back, the parts fill a MiniSearch index's maps directly.

import type { Document } from "@relevance/settings";
import MiniSearch, { type Options } from "minisearch";
import { growableInternals } from "./postings.ts";
import { Slicer } from "./slices.ts";

/** MiniSearch's internals a snapshot reads and fills (minisearch 7). */
interface Internals {
  _documentCount: number;
  _nextId: number;
  _fieldIds: Record<string, number>;
  _avgFieldLength: number[];
  _dirtCount: number;
  _documentIds: Map<number, string>;
  _idToShortId: Map<string, number>;
  _fieldLength: Map<number, number[]>;
  _index: Iterable<[string, Map<number, Map<number, number>>]> & {
    set(term: string, data: Map<number, Map<number, number>>): unknown;
  };
}

export interface SnapshotHeader {
  format: number;
  /** What the index was built for (primary key, searchable attributes). */
  config: string;
  fields: string[];
}

/** Values (ids, lengths, postings) per part: a few hundred kilobytes of JSON, a few milliseconds. */
const VALUES_PER_PART = 2500;

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
  const full = () => size >= VALUES_PER_PART;
  const take = (kind: string) => {
    const part = JSON.stringify([kind, items]);
    items = [];
    size = 0;
    return part;
  };
  for (const pair of s._documentIds) {
    items.push(pair);
    size++;
    if (full()) yield take("ids");
  }
  if (items.length > 0) yield take("ids");
  for (const pair of s._fieldLength) {
    items.push(pair);
    size += pair[1].length;
    if (full()) yield take("lengths");
  }
  if (items.length > 0) yield take("lengths");
  for (const [term, fieldIndex] of s._index) {
    // [term, fieldId, [doc, freq, doc, freq, ...], fieldId, [...], ...]
    const item: unknown[] = [term];
    for (const [fieldId, freqs] of fieldIndex) {
      const flat: number[] = [];
      for (const [doc, freq] of freqs) flat.push(doc, freq);
      item.push(fieldId, flat);
      size += freqs.size;
    }
    items.push(item);
    size++;
    if (full()) yield take("terms");
  }
  if (items.length > 0) yield take("terms");
}

/** The header of a snapshot (its first part), or null when it is not one of this format. */
export function snapshotHeader(first: string | undefined, format: number): SnapshotHeader | null {
  if (first === undefined) return null;
  const header = JSON.parse(first) as SnapshotHeader;
  return header.format === format ? header : null;
}

/** The index the parts describe, filled a part at a time in slices. Throws on parts that are not a snapshot's. */
export async function loadSnapshot(
  parts: readonly string[],
  options: Options<Document>,
): Promise<MiniSearch<Document>> {
  const header = JSON.parse(parts[0] as string) as Record<string, unknown>;
  const search = MiniSearch.loadJS<Document>(
    {
      documentCount: header.documentCount as number,
      nextId: header.nextId as number,
      fieldIds: header.fieldIds as Record<string, number>,
      averageFieldLength: header.averageFieldLength as number[],
      dirtCount: header.dirtCount as number,
      documentIds: {},
      fieldLength: {},
      storedFields: {},
      index: [],
      serializationVersion: 2,
    },
    options,
  );
  growableInternals(search as MiniSearch<unknown>);
  const s = search as unknown as Internals;
  const slicer = new Slicer();
  for (const part of parts.slice(1)) {
    const [kind, items] = JSON.parse(part) as [string, unknown[]];
    if (kind === "ids") {
      for (const [shortId, id] of items as [number, string][]) {
        s._documentIds.set(shortId, id);
        s._idToShortId.set(id, shortId);
      }
    } else if (kind === "lengths") {
      for (const [shortId, lengths] of items as [number, number[]][]) s._fieldLength.set(shortId, lengths);
    } else if (kind === "terms") {
      for (const item of items as unknown[][]) {
        const data = new Map<number, Map<number, number>>();
        for (let i = 1; i < item.length; i += 2) {
          const flat = item[i + 1] as number[];
          const freqs = new Map<number, number>();
          for (let j = 0; j < flat.length; j += 2) freqs.set(flat[j] as number, flat[j + 1] as number);
          data.set(item[i] as number, freqs);
        }
        s._index.set(item[0] as string, data);
      }
    } else {
      throw new Error(`not an index snapshot part: ${String(kind).slice(0, 40)}`);
    }
    await slicer.pause();
  }
  return search;
}
