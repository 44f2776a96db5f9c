// Long work on the shared event loop in slices: an index build, a snapshot written or read, is
// done a few milliseconds at a time, giving the loop back between slices so that every other
// request (other tenants, the monitor) is answered meanwhile. The work takes as long; nobody waits
// for all of it.

/** How long one slice may hold the event loop, in milliseconds. */
export const SLICE_MS = 8;

/** Call `pause()` between units of work: it gives the event loop back once a slice is used up. */
export class Slicer {
  private readonly now: () => number;
  private start: number;

  /** `now`: the clock slices are measured by, in milliseconds (tests inject one). */
  constructor(now: () => number = () => performance.now()) {
    this.now = now;
    this.start = now();
  }

  async pause(): Promise<void> {
    if (this.now() - this.start < SLICE_MS) return;
    await nextSlice();
    this.start = this.now();
  }
}

// Every Slicer of the process waits in one queue, and one slice is resumed per turn of the event
// loop. Node runs every callback queued with setImmediate in the same turn, one after the other:
// two works each resumed by its own setImmediate (a search scoring while a snapshot is written)
// held the loop for two slices at once, n works for n slices.

/** Slices waiting for their turn, first come first resumed. */
const waiting: (() => void)[] = [];
let pumping = false;

function nextSlice(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(resumeOne);
    }
  });
}

/** Resumes the first slice waiting; the next one waits for the next turn of the loop. */
function resumeOne(): void {
  const resume = waiting.shift();
  if (waiting.length > 0) setImmediate(resumeOne);
  else pumping = false;
  resume?.();
}

// A Map that grows without holding the loop. A JavaScript Map rehashes every entry when it outgrows
// its table: at 65,536 entries that one `set` held the event loop 30-90 ms, and an index build
// grows such maps (its terms, the documents by id) past it. This one keeps its entries in arrays,
// which grow by copying pointers (well under a millisecond at 100,000 entries), and looks keys up
// in many small maps, each rehashing only its own share.

/** How many small maps a `StringKeyMap` spreads its keys over. */
const SHARDS = 64;
/** A multiplier chosen per process, so that no set of keys can be made to fall in one shard. */
const SHARD_SEED = (Math.floor(Math.random() * 0x3fffffff) << 1) | 1;

/** A Map of string keys, in insertion order as a Map (setting a present key keeps its place). */
export class StringKeyMap<V> implements Map<string, V> {
  readonly [Symbol.toStringTag] = "Map";
  /** Key → slot, spread over SHARDS maps by a hash of the key. */
  private shards: Map<string, number>[] = [];
  /** By slot, in insertion order; a deleted key leaves a hole (`removed`). */
  private slotKeys: (string | undefined)[] = [];
  private slotValues: (V | undefined)[] = [];
  private removed = 0;

  constructor() {
    this.clear();
  }

  get size(): number {
    return this.slotKeys.length - this.removed;
  }

  private shard(key: string): Map<string, number> {
    let h = 0;
    for (let i = 0; i < key.length; i++) h = (Math.imul(h, SHARD_SEED) + key.charCodeAt(i)) | 0;
    return this.shards[(Math.imul(h, SHARD_SEED) >>> 26) % SHARDS] as Map<string, number>;
  }

  has(key: string): boolean {
    return this.shard(key).has(key);
  }

  get(key: string): V | undefined {
    const slot = this.shard(key).get(key);
    return slot === undefined ? undefined : this.slotValues[slot];
  }

  set(key: string, value: V): this {
    const shard = this.shard(key);
    const slot = shard.get(key);
    if (slot !== undefined) {
      this.slotValues[slot] = value;
      return this;
    }
    shard.set(key, this.slotKeys.length);
    this.slotKeys.push(key);
    this.slotValues.push(value);
    return this;
  }

  delete(key: string): boolean {
    const shard = this.shard(key);
    const slot = shard.get(key);
    if (slot === undefined) return false;
    shard.delete(key);
    this.slotKeys[slot] = undefined;
    this.slotValues[slot] = undefined;
    this.removed++;
    // Holes are dropped once they are half of the slots (renumbering what is left).
    if (this.removed * 2 > this.slotKeys.length) this.compact();
    return true;
  }

  private compact(): void {
    const keys = this.slotKeys;
    const values = this.slotValues;
    this.clear();
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot];
      if (key !== undefined) this.set(key, values[slot] as V);
    }
  }

  clear(): void {
    this.shards = Array.from({ length: SHARDS }, () => new Map<string, number>());
    this.slotKeys = [];
    this.slotValues = [];
    this.removed = 0;
  }

  *entries(): MapIterator<[string, V]> {
    const keys = this.slotKeys;
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot];
      if (key !== undefined) yield [key, this.slotValues[slot] as V];
    }
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: Map<string, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}
