// How many documents a batch holds, counted in its text as it arrives (before any parsing): its own
// file, so the body reader (body.ts) and the documents validation both use it without importing
// each other.
import { type Issue, issue } from "@relevance/core";
import { MAX_DOCUMENTS_PER_BATCH } from "./limits.ts";

/**
 * Counts the items of a JSON text's top-level array as the text arrives, chunk by chunk (one pass,
 * strings and escapes skipped): a 20 MiB batch of 1.47 million tiny documents is refused once its
 * first few hundred kilobytes have arrived, and never becomes a million objects. A text that is not
 * an array counts nothing (the parser and validateDocuments name what is wrong with it).
 */
export class BatchCounter {
  /** Items of the top-level array seen so far. */
  items = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Whether the first non-blank character was seen, and it opened an array. */
  private started = false;
  private array = false;
  private ended = false;

  /** Reads the next piece of the text; true once more than `max` items were seen. */
  feed(text: string, max: number): boolean {
    for (let i = 0; i < text.length && !this.ended; i++) {
      const c = text.charCodeAt(i);
      if (!this.started) {
        if (c <= 0x20) continue;
        this.started = true;
        this.array = c === 0x5b; /* [ */
        if (!this.array) this.ended = true;
        else this.depth = 1;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c /* \ */) this.escaped = true;
        else if (c === 0x22 /* " */) this.inString = false;
        continue;
      }
      // The first item starts at the first character inside the array; each comma starts another.
      if (this.depth === 1 && this.items === 0 && c > 0x20 && c !== 0x5d /* ] */) this.items = 1;
      if (c === 0x22) this.inString = true;
      else if (c === 0x5b || c === 0x7b /* { */) this.depth++;
      else if (c === 0x5d || c === 0x7d /* ] } */) {
        if (--this.depth === 0) this.ended = true;
      } else if (c === 0x2c /* , */ && this.depth === 1) this.items++;
      if (this.items > max) return true;
    }
    return false;
  }
}

/** The 422 problem of a batch of more than `max` documents. */
export function batchSizeIssue(max = MAX_DOCUMENTS_PER_BATCH): Issue {
  return issue(
    "",
    `has more than the limit of ${max} documents in one batch; send them in batches of at most ${max}`,
  );
}

/** The batch-size problem of a whole documents text, or null when within the bound (or not an array). */
export function batchSizeProblem(text: string, max = MAX_DOCUMENTS_PER_BATCH): Issue | null {
  return new BatchCounter().feed(text, max) ? batchSizeIssue(max) : null;
}
