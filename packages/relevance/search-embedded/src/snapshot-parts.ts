// An index snapshot as parts of up to a megabyte each, so that writing and reading one is done in
// slices (slices.ts). The first part is a header (what the index was built for, its sizes and
// average field lengths); then the document ids and the terms, one line per name in JSON parts
// (`["ids", "a\nb…"]`, `["terms", "a\nb…"]`); then each typed array of the index (typed-index.ts):
// a JSON part naming it (`[array, byteLength]`) followed by its bytes in parts of up to a megabyte;
// then the attribute columns (columns.ts): each one's distinct values as JSON and its two arrays as
// bytes. A load adopts an array's parts as the array when the store hands them back as consecutive
// views of one buffer (FileIndexSnapshotStore: a 100,000-product index is read in one 30 MB file
// read and no copy), else copies them into arrays sized from the header.
// The bytes are the host's (little-endian on every platform Node runs the engine on).

import type { AttributeColumn, ValueDictionary } from "./columns.ts";
import { drive, TypedIndex, type TypedIndexData, termMap } from "./typed-index.ts";

export interface SnapshotHeader {
  format: number;
  /** What the index was built for (primary key, searchable attributes). */
  config: string;
  fields: string[];
}

interface Sizes {
  documents: number;
  terms: number;
  runs: number;
  postings: number;
  averageLengths: number[];
  /** Per column: its attribute and its values' count. */
  columns: { attribute: string; values: number }[];
}

/** What a snapshot holds: the index and its columns. */
export interface SnapshotContent {
  index: TypedIndex;
  columns: AttributeColumn[];
}

/** The typed arrays of an index, by the name a part gives. */
const ARRAYS = ["lengths", "termRuns", "runField", "runStart", "docs", "freqs"] as const;
type ArrayName = (typeof ARRAYS)[number];

/** Ids or terms per JSON part. */
const NAMES_PER_PART = 4096;
/** Elements (4 bytes each) per binary part: 1 MB, a millisecond to store, read or copy. */
const ELEMENTS_PER_PART = 262144;

/**
 * The parts of `index`'s snapshot, each made when asked for (a slice of work each): JSON text, and
 * for an array's bytes a JSON part naming them (`[array, offset, byteLength]`) followed by the
 * bytes themselves (a view of the array, not a copy).
 */
export function* snapshotParts(
  { index, columns }: SnapshotContent,
  header: SnapshotHeader,
): Generator<string | Uint8Array> {
  const d = index.data;
  const sizes: Sizes = {
    documents: d.ids.length,
    terms: d.terms.length,
    runs: d.runField.length,
    postings: d.docs.length,
    averageLengths: [...d.averageLengths],
    columns: columns.map((c) => ({ attribute: c.attribute, values: c.values.length })),
  };
  yield JSON.stringify({ ...header, ...sizes });
  yield* nameParts("ids", d.ids);
  yield* nameParts("terms", d.terms);
  for (const name of ARRAYS) yield* arrayParts(name, d[name]);
  for (let c = 0; c < columns.length; c++) {
    const { dictionary, offsets, values } = columns[c] as AttributeColumn;
    for (let i = 0; i < dictionary.kinds.length; i += NAMES_PER_PART) {
      const slice = (from: unknown[]) => from.slice(i, i + NAMES_PER_PART);
      yield JSON.stringify([
        "distinct",
        c,
        slice(dictionary.kinds),
        slice(dictionary.shown),
        slice(dictionary.normalized.map((n) => n ?? null)),
      ]);
    }
    yield* arrayParts(`offsets${c}`, offsets);
    yield* arrayParts(`values${c}`, values);
  }
}

/**
 * Names (ids, terms) NAMES_PER_PART at a time: one line each (`[kind, "a\nb\n..."]`, a string parsed
 * and split several times faster than an array of strings) unless a name holds a line break
 * (terms never do; ids of the customer API cannot), then as a JSON array.
 */
function* nameParts(kind: "ids" | "terms", names: readonly string[]): Generator<string> {
  for (let i = 0; i < names.length; i += NAMES_PER_PART) {
    const slice = names.slice(i, i + NAMES_PER_PART);
    yield JSON.stringify([kind, slice.some((n) => n.includes("\n")) ? slice : slice.join("\n")]);
  }
}

/**
 * An array as a JSON part naming it (`[array, byteLength]`) and its bytes in parts of up to a
 * megabyte, one after the other: a store that keeps the parts contiguous (FileIndexSnapshotStore)
 * hands them back as views of one buffer, which a load adopts as the array instead of copying.
 */
function* arrayParts(name: string, array: Uint32Array): Generator<string | Uint8Array> {
  yield JSON.stringify([name, array.length * 4]);
  for (let i = 0; i < array.length; i += ELEMENTS_PER_PART) {
    const n = Math.min(ELEMENTS_PER_PART, array.length - i);
    yield new Uint8Array(array.buffer, array.byteOffset + i * 4, n * 4);
  }
}

/**
 * The array made of byte parts `from`..`to` (exclusive), `elements` long: a view of the parts' own
 * buffer when they lie one after the other in it, 4-byte aligned (no copy); else a copy of each.
 */
function arrayOf(
  parts: readonly (string | Uint8Array)[],
  from: number,
  to: number,
  elements: number,
): Uint32Array {
  if (elements === 0) return new Uint32Array(0);
  const first = parts[from] as Uint8Array;
  let contiguous = first.byteOffset % 4 === 0;
  for (let p = from + 1; contiguous && p < to; p++) {
    const previous = parts[p - 1] as Uint8Array;
    const part = parts[p] as Uint8Array;
    contiguous = part.buffer === first.buffer && part.byteOffset === previous.byteOffset + previous.length;
  }
  if (contiguous && to > from) return new Uint32Array(first.buffer, first.byteOffset, elements);
  const array = new Uint32Array(elements);
  let at = 0;
  for (let p = from; p < to; p++) {
    const part = parts[p] as Uint8Array;
    new Uint8Array(array.buffer, at, part.length).set(part);
    at += part.length;
  }
  return array;
}

/** The header of a snapshot (its first part), or null when it is not one of this format. */
export function snapshotHeader(
  first: string | Uint8Array | undefined,
  format: number,
): SnapshotHeader | null {
  if (typeof first !== "string") return null;
  const header = JSON.parse(first) as SnapshotHeader;
  return header.format === format ? header : null;
}

const count = (value: unknown, what: string): number => {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new Error(`not an index snapshot: ${what}`);
  return value;
};

const EMPTY = new Uint32Array(0);

/** The index the parts describe, filled a part at a time (`pause` between parts). Throws on parts that are not a snapshot's. */
export async function loadSnapshot(
  parts: readonly (string | Uint8Array)[],
  pause: () => Promise<void>,
): Promise<SnapshotContent> {
  const header = JSON.parse(parts[0] as string) as Partial<Sizes & SnapshotHeader>;
  const fields = header.fields;
  if (!Array.isArray(fields) || !fields.every((f) => typeof f === "string"))
    throw new Error("not an index snapshot: fields");
  const N = count(header.documents, "documents");
  const T = count(header.terms, "terms");
  const R = count(header.runs, "runs");
  const P = count(header.postings, "postings");
  const averages = header.averageLengths;
  if (!Array.isArray(averages) || averages.length !== fields.length)
    throw new Error("not an index snapshot: averageLengths");
  const described = header.columns;
  if (!Array.isArray(described)) throw new Error("not an index snapshot: columns");
  const columns: AttributeColumn[] = described.map((c) => {
    if (typeof c?.attribute !== "string") throw new Error("not an index snapshot: column");
    return {
      attribute: c.attribute,
      offsets: EMPTY,
      values: EMPTY,
      dictionary: { kinds: [], shown: [], normalized: [] },
    };
  });
  // Every array the parts hold, by the name they give, and its length from the header.
  const expected = new Map<string, number>([
    ["lengths", N * fields.length],
    ["termRuns", T + 1],
    ["runField", R],
    ["runStart", R + 1],
    ["docs", P],
    ["freqs", P],
  ]);
  described.forEach((c, i) => {
    expected.set(`offsets${i}`, N + 1);
    expected.set(`values${i}`, count(c.values, "column values"));
  });
  const filled = new Map<string, Uint32Array>();
  const ids: string[] = [];
  const terms: string[] = [];
  for (let p = 1; p < parts.length; p++) {
    const part = parts[p];
    if (typeof part !== "string") throw new Error("not an index snapshot: bytes out of place");
    const item = JSON.parse(part) as unknown[];
    const kind = item[0];
    if (kind === "ids" || kind === "terms") {
      const names = typeof item[1] === "string" ? item[1].split("\n") : item[1];
      if (!Array.isArray(names) || !names.every((n) => typeof n === "string"))
        throw new Error(`not an index snapshot: ${kind}`);
      const into = kind === "ids" ? ids : terms;
      // one call per part (NAMES_PER_PART names): a loop of pushes runs interpreted in a new process
      into.push(...(names as string[]));
    } else if (kind === "distinct") {
      const column = columns[count(item[1], "distinct")];
      const [kinds, shown, normalized] = [item[2], item[3], item[4]];
      if (
        column === undefined ||
        !Array.isArray(kinds) ||
        !Array.isArray(shown) ||
        !Array.isArray(normalized) ||
        kinds.length !== shown.length ||
        kinds.length !== normalized.length
      )
        throw new Error("not an index snapshot: distinct values");
      const dictionary: ValueDictionary = column.dictionary;
      dictionary.kinds.push(...(kinds as number[]));
      dictionary.shown.push(...(shown as (string | number | boolean)[]));
      dictionary.normalized.push(...(normalized as (string | null)[]).map((n) => n ?? undefined));
    } else if (typeof kind === "string" && expected.has(kind) && !filled.has(kind)) {
      const elements = expected.get(kind) as number;
      if (item[1] !== elements * 4) throw new Error(`not an index snapshot: ${kind} out of bounds`);
      // Its bytes: the parts that follow, up to its length.
      const from = p + 1;
      let bytes = 0;
      while (bytes < elements * 4) {
        const part = parts[++p];
        if (!(part instanceof Uint8Array) || part.length % 4 !== 0 || bytes + part.length > elements * 4)
          throw new Error(
            `not an index snapshot: ${kind} ${part === undefined ? "incomplete" : "out of bounds"}`,
          );
        bytes += part.length;
      }
      filled.set(kind, arrayOf(parts, from, p + 1, elements));
    } else {
      throw new Error(`not an index snapshot part: ${String(kind).slice(0, 40)}`);
    }
    await pause();
  }
  if (ids.length !== N || terms.length !== T) throw new Error("not an index snapshot: missing names");
  for (const name of expected.keys()) {
    if (!filled.has(name)) throw new Error(`not an index snapshot: ${name} incomplete`);
  }
  const array = (name: string) => filled.get(name) as Uint32Array;
  const arrays = Object.fromEntries(ARRAYS.map((name) => [name, array(name)])) as Record<
    ArrayName,
    Uint32Array
  >;
  columns.forEach((c, i) => {
    c.offsets = array(`offsets${i}`);
    c.values = array(`values${i}`);
  });
  await drive(checkReferences(arrays, columns, fields.length, N), pause);
  const data: TypedIndexData = {
    fields,
    ids,
    terms,
    averageLengths: Float64Array.from(averages),
    ...arrays,
  };
  return { index: new TypedIndex(data, await drive(termMap(terms), pause)), columns };
}

/**
 * Every reference stays inside its array, so a damaged snapshot cannot make scoring read past one:
 * a few milliseconds at 100,000 products, in steps of a million numbers (`checkBelow` and
 * `checkAscending` are plain functions: their loops run optimized, where a generator's ran
 * interpreted for tens of milliseconds in a freshly started process).
 */
function* checkReferences(
  arrays: Record<ArrayName, Uint32Array>,
  columns: readonly AttributeColumn[],
  fields: number,
  N: number,
): Generator<void, void> {
  const { termRuns, runField, runStart, docs } = arrays;
  const R = runField.length;
  const P = docs.length;
  checkBelow(termRuns, 0, termRuns.length, R + 1, "runs");
  checkBelow(runField, 0, R, fields, "run field");
  checkAscending(runStart, 0, R + 1, "run");
  if ((runStart[R] as number) !== P) throw new Error("not an index snapshot: postings");
  yield;
  for (let p = 0; p < P; p += CHECK_STEP) {
    checkBelow(docs, p, Math.min(P, p + CHECK_STEP), N, "document");
    yield;
  }
  for (const { offsets, values, dictionary } of columns) {
    if ((offsets[N] as number) !== values.length) throw new Error("not an index snapshot: column offsets");
    checkAscending(offsets, 0, N + 1, "column offsets");
    yield;
    for (let i = 0; i < values.length; i += CHECK_STEP) {
      checkBelow(values, i, Math.min(values.length, i + CHECK_STEP), dictionary.kinds.length, "column value");
      yield;
    }
  }
}

/** Numbers checked between two chances to give the event loop back. */
const CHECK_STEP = 1 << 20;

/** Throws unless every number of array[from, to) is below `limit`. */
function checkBelow(array: Uint32Array, from: number, to: number, limit: number, what: string): void {
  for (let i = from; i < to; i++)
    if ((array[i] as number) >= limit) throw new Error(`not an index snapshot: ${what}`);
}

/** Throws unless array[from, to) never decreases. */
function checkAscending(array: Uint32Array, from: number, to: number, what: string): void {
  for (let i = from + 1; i < to; i++)
    if ((array[i - 1] as number) > (array[i] as number)) throw new Error(`not an index snapshot: ${what}`);
}
