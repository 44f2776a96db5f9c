/**
 * The run store's read cache: an answer is reused until the write version changes (docs/monitor-tables.md,
 * "Read cache"). It knows nothing of the database: the version and the clock are handed in, so its
 * rules are tested without one and without waiting.
 */

/** The most reads the read cache keeps (the entries read longest ago go first). */
export const MAX_CACHED_READS = 128;

export interface VersionedReadCacheOptions {
  /**
   * The write version: a value that changes whenever a write that may change an answer has started
   * or ended. Read before the data, so a write that lands during a read changes the version the next
   * call sees.
   */
  version: () => Promise<string>;
  /**
   * Age after which an entry is read again although the version is the same (what no write changes,
   * such as a TTL dropping old rows); null keeps entries until the version changes.
   */
  maxAgeMs: number | null;
  /** A monotonic clock in ms (default performance.now). */
  now?: () => number;
  /** Entries kept (default MAX_CACHED_READS). */
  maxEntries?: number;
}

interface CacheEntry {
  version: string;
  value: Promise<unknown>;
  /** What the value was read for (the streaks' window start); null for the other reads. */
  meta: unknown;
  /** When the read was sent (`now()`). */
  at: number;
}

export class VersionedReadCache {
  readonly #version: () => Promise<string>;
  readonly #maxAgeMs: number | null;
  readonly #now: () => number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, CacheEntry>();

  constructor(opts: VersionedReadCacheOptions) {
    this.#version = opts.version;
    this.#maxAgeMs = opts.maxAgeMs;
    this.#now = opts.now ?? (() => performance.now());
    this.#maxEntries = opts.maxEntries ?? MAX_CACHED_READS;
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * read() reused while the write version is unchanged and reuse(meta of the cached read) holds.
   * Calls that find the same version share one read; a failed read is not kept.
   */
  async get<T>(
    key: string,
    read: () => Promise<T>,
    meta: unknown = null,
    reuse: (cachedMeta: unknown) => boolean = () => true,
  ): Promise<T> {
    const version = await this.#version();
    const hit = this.#entries.get(key);
    const fresh = this.#maxAgeMs === null || this.#now() - (hit?.at ?? 0) <= this.#maxAgeMs;
    if (hit !== undefined && hit.version === version && fresh && reuse(hit.meta))
      return hit.value as Promise<T>;
    const value = read();
    const entry: CacheEntry = { version, value, meta, at: this.#now() };
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    // A few keys in use (one per read, per days and UTC day for the failures chart): the oldest go.
    for (const old of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(old);
    }
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }
}
