// The full-text index of the embedded engine: postings on typed arrays. MiniSearch kept a Map per
// term and field, holding a Map of document → frequency: at 100,000 products that was some 300 MB
// of heap, a scoring loop of Map lookups (a short prefix took 15 ms) and a 29 MB JSON snapshot.
// Here each (term, field) is a run of two flat arrays, document numbers ascending and their
// frequencies, so a search walks arrays, the index is a few bytes per posting, and a snapshot is
// the arrays' bytes. The terms themselves stay in MiniSearch's radix tree (`SearchableMap`), whose
// prefix and typo lookups are what word expansion needs.
//
// The statistics are MiniSearch's, computed the same way in the same order (field length = the
// number of distinct tokens of the field; average field length updated document by document over
// every document added), so BM25+ scores are the same numbers (expansion.test.ts proves it against
// MiniSearch itself).

import SearchableMap from "minisearch/SearchableMap";
import { StringKeyMap } from "./slices.ts";

/** How the text of a document's field is read and split into terms (the engine's tokenizer). */
export interface TypedIndexOptions {
  /**
   * The indexed fields, in order (a field's position is its number); `strings`: every top-level
   * field holding a string, or an array with a string, in some document, in the order first seen.
   */
  fields: readonly string[] | "strings";
  /** The field's text, or undefined when the document has none (then the field is not counted). */
  text(doc: Record<string, unknown>, field: string): string | undefined;
  tokenize(text: string): string[];
}

/** The whole index as flat arrays: what a snapshot stores and loads. */
export interface TypedIndexData {
  fields: string[];
  /** Document number → id (number = position in the order documents were added). */
  ids: string[];
  /** Term number → term. */
  terms: string[];
  /** Per field, its average length over every document (MiniSearch's running average). */
  averageLengths: Float64Array;
  /** Field length of document d in field f at d * fields + f (0 when the document lacks it). */
  lengths: Uint32Array;
  /** Term t's runs are runs termRuns[t] .. termRuns[t + 1] - 1. */
  termRuns: Uint32Array;
  /** Per run: its field number. */
  runField: Uint32Array;
  /** Per run r: its postings are postings runStart[r] .. runStart[r + 1] - 1. */
  runStart: Uint32Array;
  /** Per posting: the document number (ascending within a run) and the term's frequency in it. */
  docs: Uint32Array;
  freqs: Uint32Array;
}

/** One (term, field) run of postings, as scoring reads it. */
export interface Run {
  field: number;
  start: number;
  end: number;
}

export class TypedIndex {
  readonly data: TypedIndexData;
  /** Term → term number, with prefix and typo lookups (`atPrefix`, `fuzzyGet`). */
  readonly terms: SearchableMap<number>;
  readonly documentCount: number;
  readonly fieldCount: number;

  constructor(data: TypedIndexData, terms: SearchableMap<number>) {
    this.data = data;
    this.terms = terms;
    this.documentCount = data.ids.length;
    this.fieldCount = data.fields.length;
  }

  /** The runs of `term` (one per field holding it), none for a term no document holds. */
  runs(term: string): Run[] {
    const t = this.terms.get(term);
    if (t === undefined) return [];
    const { termRuns, runField, runStart } = this.data;
    const out: Run[] = [];
    for (let r = termRuns[t] as number; r < (termRuns[t + 1] as number); r++) {
      out.push({
        field: runField[r] as number,
        start: runStart[r] as number,
        end: runStart[r + 1] as number,
      });
    }
    return out;
  }

  fieldLength(doc: number, field: number): number {
    return this.data.lengths[doc * this.fieldCount + field] as number;
  }

  /** Bytes held by the arrays (what the index costs beyond its terms and ids). */
  get bytes(): number {
    const d = this.data;
    return (
      d.lengths.byteLength +
      d.termRuns.byteLength +
      d.runField.byteLength +
      d.runStart.byteLength +
      d.docs.byteLength +
      d.freqs.byteLength
    );
  }
}

/**
 * Adds documents one at a time (the engine gives the event loop back between them), then `finish`
 * lays the postings out in typed arrays, also in steps.
 */
export class TypedIndexBuilder {
  private readonly options: TypedIndexOptions;
  private readonly fields: string[];
  private readonly known = new Set<string>();
  private readonly termIds = new StringKeyMap<number>();
  private readonly termNames: string[] = [];
  /** By field, by term: [doc, freq, doc, freq, ...], documents ascending. */
  private readonly lists: (Growing | undefined)[][] = [];
  private readonly ids: string[] = [];
  /** By field: each document's length (documents before the field was first seen: none). */
  private lengths: Growing[] = [];
  private readonly averages: number[] = [];
  private postings = 0;

  constructor(options: TypedIndexOptions) {
    this.options = options;
    this.fields = [];
    if (options.fields !== "strings") for (const field of options.fields) this.addField(field);
  }

  get size(): number {
    return this.ids.length;
  }

  private addField(field: string): void {
    this.known.add(field);
    this.fields.push(field);
    this.lists.push([]);
    this.lengths.push(new Growing());
    this.averages.push(0);
  }

  add(id: string, doc: Record<string, unknown>): void {
    const d = this.ids.length;
    this.ids.push(id);
    if (this.options.fields === "strings") {
      for (const [key, value] of Object.entries(doc)) {
        if (this.known.has(key) || key === "__proto__") continue;
        if (typeof value === "string" || (Array.isArray(value) && value.some((e) => typeof e === "string"))) {
          this.addField(key);
        }
      }
    }
    for (let f = 0; f < this.fields.length; f++) {
      const text = this.options.text(doc, this.fields[f] as string);
      if (text === undefined || text === null) continue;
      const tokens = this.options.tokenize(text);
      const unique = new Set(tokens).size;
      (this.lengths[f] as Growing).set(d, unique);
      // MiniSearch's running average: over every document added so far, this one included.
      this.averages[f] = ((this.averages[f] as number) * d + unique) / (d + 1);
      const lists = this.lists[f] as (Growing | undefined)[];
      for (const term of tokens) {
        if (term === "") continue;
        let t = this.termIds.get(term);
        if (t === undefined) {
          t = this.termNames.length;
          this.termIds.set(term, t);
          this.termNames.push(term);
        }
        let list = lists[t];
        if (list === undefined) {
          // Filled up to the term so the array stays a plain list (never a dictionary).
          while (lists.length < t) lists.push(undefined);
          list = new Growing();
          lists[t] = list;
        }
        // [doc, freq, doc, freq, ...]: the document's pair is the last one when it has one.
        const n = list.length;
        if (n > 0 && list.at(n - 2) === d) list.set(n - 1, list.at(n - 1) + 1);
        else {
          list.push(d);
          list.push(1);
          this.postings++;
        }
      }
    }
  }

  /** The index, laid out in steps (`pause` awaited between them). The builder is spent. */
  finish(pause: () => Promise<void>): Promise<TypedIndex> {
    return drive(this.layout(), pause);
  }

  /** `finish` at once (tests, small indexes). */
  finishNow(): TypedIndex {
    return driveNow(this.layout());
  }

  private *layout(): Generator<void, TypedIndex> {
    const F = this.fields.length;
    const N = this.ids.length;
    const T = this.termNames.length;
    let runs = 0;
    for (const lists of this.lists) for (const list of lists) if (list !== undefined) runs++;
    const termRuns = new Uint32Array(T + 1);
    const runField = new Uint32Array(runs);
    const runStart = new Uint32Array(runs + 1);
    const docs = new Uint32Array(this.postings);
    const freqs = new Uint32Array(this.postings);
    let r = 0;
    let p = 0;
    for (let t = 0; t < T; t++) {
      termRuns[t] = r;
      for (let f = 0; f < F; f++) {
        const lists = this.lists[f] as (Growing | undefined)[];
        const list = lists[t];
        if (list === undefined) continue;
        runField[r] = f;
        runStart[r] = p;
        const pairs = list.values;
        for (let i = 0; i < list.length; i += 2) {
          docs[p] = pairs[i] as number;
          freqs[p] = pairs[i + 1] as number;
          p++;
        }
        lists[t] = undefined;
        r++;
      }
      if (t % 64 === 63) yield;
    }
    termRuns[T] = r;
    runStart[r] = p;
    const lengths = new Uint32Array(N * F);
    for (let f = 0; f < F; f++) {
      const byDoc = this.lengths[f] as Growing;
      const values = byDoc.values;
      for (let d = 0; d < byDoc.length; d++) {
        lengths[d * F + f] = values[d] as number;
        if (d % 65536 === 65535) yield;
      }
      yield;
    }
    this.lengths = [];
    const data: TypedIndexData = {
      fields: [...this.fields],
      ids: this.ids,
      terms: this.termNames,
      averageLengths: Float64Array.from(this.averages),
      lengths,
      termRuns,
      runField,
      runStart,
      docs,
      freqs,
    };
    return new TypedIndex(data, yield* termMap(this.termNames));
  }
}

/**
 * A list of unsigned 32-bit numbers that doubles its typed array as it grows: a build's postings
 * (tens of millions of numbers at a million products) live outside the JavaScript heap, so the
 * collector neither scans nor moves them (as plain arrays, a build's major collections held the
 * event loop for hundreds of milliseconds).
 */
export class Growing {
  values = new Uint32Array(16);
  length = 0;

  at(i: number): number {
    return this.values[i] as number;
  }

  push(value: number): void {
    if (this.length === this.values.length) this.grow(this.length + 1);
    this.values[this.length++] = value;
  }

  /** Sets position i, growing (with zeros) to reach it. */
  set(i: number, value: number): void {
    if (i >= this.values.length) this.grow(i + 1);
    this.values[i] = value;
    if (i >= this.length) this.length = i + 1;
  }

  /** The numbers as an array of their own (a copy of exactly `length`). */
  toArray(): Uint32Array {
    return this.values.slice(0, this.length);
  }

  private grow(atLeast: number): void {
    let size = this.values.length * 2;
    while (size < atLeast) size *= 2;
    const grown = new Uint32Array(size);
    grown.set(this.values);
    this.values = grown;
  }
}

/** The radix tree of `terms` (term → its number), filled in steps. */
export function* termMap(terms: readonly string[]): Generator<void, SearchableMap<number>> {
  const map = new SearchableMap<number>();
  for (let t = 0; t < terms.length; t++) {
    map.set(terms[t] as string, t);
    if (t % 256 === 255) yield;
  }
  return map;
}

/** Runs steps to the end, awaiting `pause` between them. */
export async function drive<T>(steps: Generator<void, T>, pause: () => Promise<void>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await pause();
  }
}

/** Runs steps to the end at once. */
export function driveNow<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** An index of `docs` built at once (tests and small indexes). */
export function buildTypedIndex(
  docs: Iterable<[id: string, doc: Record<string, unknown>]>,
  options: TypedIndexOptions,
): TypedIndex {
  const builder = new TypedIndexBuilder(options);
  for (const [id, doc] of docs) builder.add(id, doc);
  return builder.finishNow();
}
