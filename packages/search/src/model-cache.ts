import { formatIssues, type LoadedModel, loadArtifact, modelKey } from "@relevance/core";
import type { Kv } from "@relevance/settings";
import { errorMessage, TimeoutError, withTimeout } from "./timeout.ts";

/** What a lookup of `relevance_model:<modelId>` found. */
export type ModelLookup =
  | { status: "loaded"; model: LoadedModel }
  /** No artifact under the key (remembered for the negative-cache window). */
  | { status: "missing" }
  /** The artifact does not load (remembered for the negative-cache window). */
  | { status: "malformed"; problem: string }
  /** KV failed or did not answer in time (not remembered: the next search tries again). */
  | { status: "kv_error"; problem: string };

export interface ModelCacheOptions {
  kv: Kv;
  /** Milliseconds; for the negative cache. Default Date.now. */
  now?: () => number;
  /** Bound on the artifact bytes (UTF-8) of the cached models. Default 64 MiB. */
  maxBytes?: number;
  /** How long a missing or malformed artifact is remembered; at most 60 s (the default). */
  negativeTtlMs?: number;
  /** How long a KV read may take. Default 50 ms. */
  kvTimeoutMs?: number;
}

export interface ModelCacheStats {
  /** Loaded models held. */
  entries: number;
  /** Their artifact bytes (UTF-8). */
  bytes: number;
  maxBytes: number;
  /** Missing or malformed artifacts remembered (expired ones may still be counted until touched). */
  negativeEntries: number;
  /** KV reads under way. */
  loading: number;
  hits: number;
  /** KV reads started. */
  loads: number;
  evictions: number;
}

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
export const MAX_NEGATIVE_TTL_MS = 60_000;
export const DEFAULT_KV_TIMEOUT_MS = 50;
const MAX_NEGATIVE_ENTRIES = 10_000;

type Negative = { status: "missing" } | { status: "malformed"; problem: string };

const encoder = new TextEncoder();

/**
 * Compiled models by `modelId`, per worker. Versions are immutable (a new version gets a new id),
 * so loaded models never expire; memory is bounded by the artifact bytes, least recently used out
 * first. Concurrent first lookups of one id share a single KV read (single-flight). Missing and
 * malformed artifacts are remembered for at most 60 s, so an upload is served within a minute.
 */
export class ModelCache {
  private readonly kv: Kv;
  private readonly now: () => number;
  private readonly maxBytes: number;
  private readonly negativeTtlMs: number;
  private readonly kvTimeoutMs: number;
  /** Map order is recency order: the first entry is the least recently used. */
  private readonly models = new Map<string, { model: LoadedModel; bytes: number }>();
  private readonly negative = new Map<string, Negative & { until: number }>();
  private readonly inFlight = new Map<string, Promise<ModelLookup>>();
  private totalBytes = 0;
  private hits = 0;
  private loads = 0;
  private evictions = 0;

  constructor(options: ModelCacheOptions) {
    this.kv = options.kv;
    this.now = options.now ?? Date.now;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.negativeTtlMs = options.negativeTtlMs ?? MAX_NEGATIVE_TTL_MS;
    this.kvTimeoutMs = options.kvTimeoutMs ?? DEFAULT_KV_TIMEOUT_MS;
    if (!(this.negativeTtlMs >= 0 && this.negativeTtlMs <= MAX_NEGATIVE_TTL_MS)) {
      throw new RangeError(`negativeTtlMs must be from 0 to ${MAX_NEGATIVE_TTL_MS}`);
    }
    if (!(this.maxBytes >= 0)) throw new RangeError("maxBytes must be at least 0");
    if (!(this.kvTimeoutMs > 0)) throw new RangeError("kvTimeoutMs must be above 0");
  }

  get(modelId: string): Promise<ModelLookup> {
    const cached = this.models.get(modelId);
    if (cached !== undefined) {
      this.models.delete(modelId);
      this.models.set(modelId, cached);
      this.hits++;
      return Promise.resolve({ status: "loaded", model: cached.model });
    }
    const negative = this.negative.get(modelId);
    if (negative !== undefined) {
      if (this.now() < negative.until) {
        return Promise.resolve(
          negative.status === "missing"
            ? { status: "missing" }
            : { status: "malformed", problem: negative.problem },
        );
      }
      this.negative.delete(modelId);
    }
    const pending = this.inFlight.get(modelId);
    if (pending !== undefined) return pending;
    const load = this.load(modelId).finally(() => this.inFlight.delete(modelId));
    this.inFlight.set(modelId, load);
    return load;
  }

  stats(): ModelCacheStats {
    return {
      entries: this.models.size,
      bytes: this.totalBytes,
      maxBytes: this.maxBytes,
      negativeEntries: this.negative.size,
      loading: this.inFlight.size,
      hits: this.hits,
      loads: this.loads,
      evictions: this.evictions,
    };
  }

  private async load(modelId: string): Promise<ModelLookup> {
    this.loads++;
    let text: string | null;
    try {
      text = await withTimeout(this.kv.get(modelKey(modelId)), this.kvTimeoutMs, "the KV read");
    } catch (error) {
      return {
        status: "kv_error",
        problem: error instanceof TimeoutError ? error.message : `the KV read failed: ${errorMessage(error)}`,
      };
    }
    if (text === null) return this.remember(modelId, { status: "missing" });
    const loaded = loadArtifact(text, { checkGolden: true });
    if (!loaded.ok)
      return this.remember(modelId, { status: "malformed", problem: formatIssues(loaded.errors) });
    if (loaded.value.artifact.modelId !== modelId) {
      return this.remember(modelId, {
        status: "malformed",
        problem: `the artifact names modelId ${JSON.stringify(loaded.value.artifact.modelId)}`,
      });
    }
    this.store(modelId, loaded.value, encoder.encode(text).byteLength);
    return { status: "loaded", model: loaded.value };
  }

  private remember(modelId: string, entry: Negative): Negative {
    if (this.negativeTtlMs === 0) return entry;
    this.negative.delete(modelId);
    if (this.negative.size >= MAX_NEGATIVE_ENTRIES) {
      // Every entry lives equally long, so insertion order is expiry order.
      const oldest = this.negative.keys().next();
      if (oldest.done !== true) this.negative.delete(oldest.value);
    }
    this.negative.set(modelId, { ...entry, until: this.now() + this.negativeTtlMs });
    return entry;
  }

  /** Keeps the model unless it alone exceeds the bound (then it serves this lookup only). */
  private store(modelId: string, model: LoadedModel, bytes: number): void {
    if (bytes > this.maxBytes) return;
    this.models.set(modelId, { model, bytes });
    this.totalBytes += bytes;
    for (const [id, entry] of this.models) {
      if (this.totalBytes <= this.maxBytes) break;
      this.models.delete(id);
      this.totalBytes -= entry.bytes;
      this.evictions++;
    }
  }
}
