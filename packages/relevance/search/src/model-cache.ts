import {
  type CompiledModel,
  DEFAULT_ARTIFACT_MAX_BYTES,
  formatIssues,
  loadArtifact,
  MAX_ARTIFACT_BYTES,
  type ModelArtifact,
  modelKey,
  utf8ByteLength,
} from "@relevance/core";
import type { Kv } from "@relevance/settings";
import { DEFAULT_MODEL_CACHE_MB } from "./limits.ts";
import { errorMessage, TimeoutError, withTimeout } from "./timeout.ts";

/**
 * What the cache keeps of a loaded artifact: the compiled model and the artifact's small metadata.
 * The parsed trees and golden rows are dropped once compiled and checked: as JavaScript arrays
 * they cost several times the compiled typed arrays, and nothing reads them while serving.
 */
export interface CachedModel {
  modelId: string;
  index: string;
  trainedOn: ModelArtifact["trainedOn"];
  model: CompiledModel;
  /** The artifact's size in KV (UTF-8 bytes). */
  artifactBytes: number;
  /** What this entry is estimated to cost in memory; the cache's bound is on the sum of these. */
  estimatedBytes: number;
}

/** What a lookup of `relevance_model:<modelId>` found. */
export type ModelLookup =
  | { status: "loaded"; model: CachedModel }
  /** No artifact under the key (remembered for the negative-cache window). */
  | { status: "missing" }
  /** The artifact does not load (remembered for the negative-cache window). */
  | { status: "malformed"; problem: string }
  /** It loads, but its compiled model would cost more than the whole cache (MODEL_CACHE_MB); remembered. */
  | { status: "too_large"; problem: string }
  /** KV failed or did not answer in time (not remembered: the next search tries again). */
  | { status: "kv_error"; problem: string };

export interface ModelCacheOptions {
  kv: Kv;
  /** Milliseconds; for the negative cache. Default Date.now. */
  now?: () => number;
  /**
   * Bound on the estimated memory of the cached models (`estimateModelBytes`), in bytes. Default
   * 32 MiB (`MODEL_CACHE_MB` = 32). A model above it alone is not loaded at all (malformed).
   */
  maxBytes?: number;
  /** Largest artifact text loaded; a larger one is refused before parsing. Default 8 MiB (`MODEL_MAX_BYTES`). */
  maxArtifactBytes?: number;
  /** How long a missing or malformed artifact is remembered; at most 60 s (the default). */
  negativeTtlMs?: number;
  /** How long a KV read may take. Default 50 ms. */
  kvTimeoutMs?: number;
}

export interface ModelCacheStats {
  /** Loaded models held. */
  entries: number;
  /** Their estimated memory (bytes). */
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

export const DEFAULT_MAX_BYTES = DEFAULT_MODEL_CACHE_MB * 1024 * 1024;
/**
 * Added to each model's typed arrays for what is not in them: the objects, the Map entry, the
 * metadata strings and the engine's own bookkeeping. Generous on purpose: many tiny models must not
 * add up to much more than the bound says.
 */
export const MODEL_OVERHEAD_BYTES = 64 * 1024;
export const MAX_NEGATIVE_TTL_MS = 60_000;
export const DEFAULT_KV_TIMEOUT_MS = 50;
const MAX_NEGATIVE_ENTRIES = 10_000;

type Negative = { status: "missing" } | { status: "malformed" | "too_large"; problem: string };

/** What a compiled model is estimated to cost while cached: its arrays plus a fixed overhead. */
export function estimateModelBytes(model: CompiledModel): number {
  return model.memoryBytes + MODEL_OVERHEAD_BYTES;
}

/**
 * Compiled models by `modelId`, per worker. Versions are immutable (a new version gets a new id),
 * so loaded models never expire; memory is bounded by what the compiled models are estimated to
 * cost (not by artifact text, which says little about it), least recently used out first. The same
 * code runs in Node and in workerd. Concurrent first lookups of one id share a single KV read
 * (single-flight). Missing, malformed, oversized and too-costly artifacts are remembered for at most
 * 60 s, so an upload is served within a minute and a bad artifact is not re-read on every search.
 */
export class ModelCache {
  private readonly kv: Kv;
  private readonly now: () => number;
  private readonly maxBytes: number;
  private readonly maxArtifactBytes: number;
  private readonly negativeTtlMs: number;
  private readonly kvTimeoutMs: number;
  /** Map order is recency order: the first entry is the least recently used. */
  private readonly models = new Map<string, CachedModel>();
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
    this.maxArtifactBytes = options.maxArtifactBytes ?? DEFAULT_ARTIFACT_MAX_BYTES;
    this.negativeTtlMs = options.negativeTtlMs ?? MAX_NEGATIVE_TTL_MS;
    this.kvTimeoutMs = options.kvTimeoutMs ?? DEFAULT_KV_TIMEOUT_MS;
    if (!(this.negativeTtlMs >= 0 && this.negativeTtlMs <= MAX_NEGATIVE_TTL_MS)) {
      throw new RangeError(`negativeTtlMs must be from 0 to ${MAX_NEGATIVE_TTL_MS}`);
    }
    if (!(this.maxBytes >= 0)) throw new RangeError("maxBytes must be at least 0");
    if (!(this.maxArtifactBytes >= 1 && this.maxArtifactBytes <= MAX_ARTIFACT_BYTES)) {
      throw new RangeError(`maxArtifactBytes must be from 1 to ${MAX_ARTIFACT_BYTES}`);
    }
    if (!(this.kvTimeoutMs > 0)) throw new RangeError("kvTimeoutMs must be above 0");
  }

  get(modelId: string): Promise<ModelLookup> {
    const cached = this.models.get(modelId);
    if (cached !== undefined) {
      this.models.delete(modelId);
      this.models.set(modelId, cached);
      this.hits++;
      return Promise.resolve({ status: "loaded", model: cached });
    }
    const negative = this.negative.get(modelId);
    if (negative !== undefined) {
      if (this.now() < negative.until) {
        return Promise.resolve(
          negative.status === "missing"
            ? { status: "missing" }
            : { status: negative.status, problem: negative.problem },
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
    // loadArtifact refuses an oversized text before JSON.parse, so a huge value costs no parse.
    const loaded = loadArtifact(text, { checkGolden: true, maxBytes: this.maxArtifactBytes });
    if (!loaded.ok)
      return this.remember(modelId, { status: "malformed", problem: formatIssues(loaded.errors) });
    const { artifact, model } = loaded.value;
    if (artifact.modelId !== modelId) {
      return this.remember(modelId, {
        status: "malformed",
        problem: `the artifact names modelId ${JSON.stringify(artifact.modelId)}`,
      });
    }
    const estimatedBytes = estimateModelBytes(model);
    if (estimatedBytes > this.maxBytes) {
      // Serving it uncached would re-read and re-parse it on every search: refuse it instead.
      return this.remember(modelId, {
        status: "too_large",
        problem: `the compiled model would take about ${mib(estimatedBytes)}, above the model cache's ${mib(this.maxBytes)} (MODEL_CACHE_MB)`,
      });
    }
    const entry: CachedModel = {
      modelId,
      index: artifact.index,
      trainedOn: artifact.trainedOn,
      model,
      artifactBytes: utf8ByteLength(text),
      estimatedBytes,
    };
    this.store(modelId, entry);
    return { status: "loaded", model: entry };
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

  /** Keeps the model (it fits the bound alone), evicting the least recently used ones until all fit. */
  private store(modelId: string, entry: CachedModel): void {
    this.models.set(modelId, entry);
    this.totalBytes += entry.estimatedBytes;
    for (const [id, old] of this.models) {
      if (this.totalBytes <= this.maxBytes) break;
      this.models.delete(id);
      this.totalBytes -= old.estimatedBytes;
      this.evictions++;
    }
  }
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
