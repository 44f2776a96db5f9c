// Attribute columns: what filters, facets and sorts read, instead of the documents. Per attribute,
// each document's values (the value, or an array's elements: strings, finite numbers, booleans;
// anything else never matches a filter nor counts as a facet) as numbers of distinct values, each
// document listing each distinct value once. Distinct means as the filter compares them: strings
// by their NFKC lower-case form, numbers by value, booleans as themselves. A filter is then tested
// once per distinct value and read per document from a table; a facet count is an increment per
// value; a sort key is one per distinct value. At 100,000 products, reading an attribute from
// every matching document object was most of a faceted, filtered search (cache misses across a
// few hundred megabytes of documents); the documents need not be in memory at all.

import { nfkc } from "@relevance/core";
import { fieldValue } from "./fields.ts";
import { StringKeyMap } from "./slices.ts";
import { Growing } from "./typed-index.ts";

/** A distinct value's kind. */
export const NUMBER = 0;
export const BOOLEAN = 1;
export const STRING = 2;

/** The distinct values of one attribute, by number. */
export interface ValueDictionary {
  kinds: number[];
  /** The value as first seen (a string as written, a number, a boolean): what facets show. */
  shown: (string | number | boolean)[];
  /** Strings: the NFKC lower-case form (how they compare); numbers and booleans: undefined. */
  normalized: (string | undefined)[];
}

export interface AttributeColumn {
  attribute: string;
  /** Document d's values are values[offsets[d]] .. values[offsets[d + 1] - 1]. */
  offsets: Uint32Array;
  values: Uint32Array;
  dictionary: ValueDictionary;
}

const ASCII = /^[\x00-\x7f]*$/;

/** A string as the filter compares it (filter.ts `normalize`, the same rule). */
export function normalizedText(text: string): string {
  return ASCII.test(text) ? text.toLowerCase() : nfkc(text).toLowerCase();
}

/** Builds one attribute's column, a document at a time, in document-number order. */
export class ColumnBuilder {
  readonly attribute: string;
  // Typed arrays that grow (off the collected heap): a million documents' values as JavaScript
  // arrays cost the build a long copy at the end and the collector a long scan.
  private readonly offsets = new Growing();
  private values = new Growing();
  private readonly byKey = new StringKeyMap<number>();
  private readonly dictionary: ValueDictionary = { kinds: [], shown: [], normalized: [] };
  /** Raw string → its value number (most strings repeat), bounded. */
  private readonly byRaw = new StringKeyMap<number>();

  constructor(attribute: string) {
    this.attribute = attribute;
    this.offsets.push(0);
  }

  /** Adds the next document's values (a document without the attribute adds none). */
  add(doc: Record<string, unknown> | undefined): void {
    const value = doc === undefined ? undefined : fieldValue(doc, this.attribute);
    const start = this.values.length;
    if (Array.isArray(value)) {
      for (const element of value) {
        const v = this.valueOf(element);
        if (v === undefined) continue;
        // Each distinct value once per document (arrays are short: a scan is cheaper than a set).
        let seen = false;
        for (let i = start; i < this.values.length; i++) if (this.values.at(i) === v) seen = true;
        if (!seen) this.values.push(v);
      }
    } else {
      const v = this.valueOf(value);
      if (v !== undefined) this.values.push(v);
    }
    this.offsets.push(this.values.length);
  }

  private valueOf(element: unknown): number | undefined {
    if (typeof element === "string") {
      const known = this.byRaw.get(element);
      if (known !== undefined) return known;
      const normalized = normalizedText(element);
      const v = this.intern(`s${normalized}`, STRING, element, normalized);
      if (this.byRaw.size < 100_000) this.byRaw.set(element, v);
      return v;
    }
    if (typeof element === "number") {
      if (!Number.isFinite(element)) return undefined;
      // -0 and 0 are one value (as a Map key, and a facet, makes them).
      return this.intern(`n${String(element)}`, NUMBER, element === 0 ? 0 : element, undefined);
    }
    if (typeof element === "boolean")
      return this.intern(element ? "btrue" : "bfalse", BOOLEAN, element, undefined);
    return undefined;
  }

  private intern(
    key: string,
    kind: number,
    shown: string | number | boolean,
    normalized: string | undefined,
  ): number {
    let v = this.byKey.get(key);
    if (v === undefined) {
      v = this.dictionary.kinds.length;
      this.byKey.set(key, v);
      this.dictionary.kinds.push(kind);
      this.dictionary.shown.push(shown);
      this.dictionary.normalized.push(normalized);
    }
    return v;
  }

  finish(): AttributeColumn {
    const column: AttributeColumn = {
      attribute: this.attribute,
      offsets: this.offsets.toArray(),
      values: this.values.toArray(),
      dictionary: this.dictionary,
    };
    this.values = new Growing();
    return column;
  }
}

/** Documents counted between two chances to give the event loop back. */
const COUNT_STEP = 256;

/**
 * Counts, per column and value number, the documents among `docs` (document numbers; null: every
 * document) holding the value, `pause` awaited every COUNT_STEP documents: what facets and facet
 * search read.
 */
export async function countValues(
  columns: readonly AttributeColumn[],
  docs: Iterable<number> | null,
  pause: () => Promise<void>,
): Promise<Uint32Array[]> {
  const counts = columns.map((column) => new Uint32Array(column.dictionary.kinds.length));
  const count = (d: number) => {
    for (let a = 0; a < columns.length; a++) {
      const { offsets, values } = columns[a] as AttributeColumn;
      const into = counts[a] as Uint32Array;
      for (let i = offsets[d] as number; i < (offsets[d + 1] as number); i++) {
        const v = values[i] as number;
        into[v] = (into[v] as number) + 1;
      }
    }
  };
  let n = 0;
  const all =
    docs === null
      ? (function* () {
          const documents = (columns[0]?.offsets.length ?? 1) - 1;
          for (let d = 0; d < documents; d++) yield d;
        })()
      : docs;
  for (const d of all) {
    count(d);
    if (++n % COUNT_STEP === 0) await pause();
  }
  return counts;
}
