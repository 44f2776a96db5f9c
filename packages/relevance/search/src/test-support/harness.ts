// Test-only helpers (node:fs is fine here: tests run in Node).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildArtifact, importXgboost } from "@relevance/core";
import { apiKeyCopyKey, apiKeyHash, type Kv, type Logger } from "@relevance/settings";
import { openDatabase, SqliteKv } from "@relevance/settings/sqlite";
import type {
  FacetHit,
  FacetSearchQuery,
  FacetSearchResult,
  Retrieval,
  RetrievalResult,
  SearchQuery,
  SearchTarget,
} from "../ports.ts";

const FIXTURE = fileURLToPath(
  new URL("../../../core/fixtures/xgboost/squarederror_default_base.model.json", import.meta.url),
);

/**
 * A real artifact: the committed XGBoost 1.7.4 fixture, imported and built under `modelId`. With
 * `baseScoreShift`, another model: the same trees over a moved base score (predictions move by it).
 */
export function artifactText(modelId: string, baseScoreShift = 0): string {
  const draft = importXgboost(JSON.parse(readFileSync(FIXTURE, "utf8")));
  if (!draft.ok) throw new Error(JSON.stringify(draft.errors));
  const value = { ...draft.value, baseScore: draft.value.baseScore + baseScoreShift };
  const built = buildArtifact(value, {
    modelId,
    index: "products",
    titleField: "title",
    tagsField: "tags",
  });
  if (!built.ok) throw new Error(JSON.stringify(built.errors));
  return built.value.text;
}

export const newKv = (): SqliteKv => new SqliteKv(openDatabase(":memory:"));

/**
 * The exporter's copy of an API key: `apikey:<sha256>` → `{system_account_id, version}`, with a
 * scoped key's grant beside them (`uid`, `actions`, `indexes`, `expires_at`). Without a grant it is
 * the copy of an account's original key (every action).
 */
export async function putApiKey(
  kv: Kv,
  apiKey: string,
  account: string,
  grant?: Record<string, unknown>,
): Promise<void> {
  const scoped = grant === undefined ? {} : { uid: apiKey, expires_at: null, ...grant };
  await kv.put(
    apiKeyCopyKey(await apiKeyHash(apiKey)),
    JSON.stringify({ system_account_id: account, ...scoped, version: 1 }),
  );
}

/** The exporter's copy of an index or alias settings record: `<account>-<index>`. */
export async function putSettings(
  kv: Kv,
  account: string,
  index: string,
  attributes: Record<string, unknown>,
): Promise<void> {
  await kv.put(
    `${account}-${index}`,
    JSON.stringify({
      type: "index",
      primary_key: "id",
      created_at: "2025-01-01T00:00:00.000Z",
      updated_at: "2025-01-01T00:00:00.000Z",
      ...attributes,
      system_account_id: account,
      index_name: index,
      version: 1,
    }),
  );
}

export interface LogLine {
  level: "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown>;
}

/** A Logger that keeps its lines. */
export function recordingLogger(): Logger & { lines: LogLine[]; at(level: LogLine["level"]): LogLine[] } {
  const lines: LogLine[] = [];
  const push = (level: LogLine["level"]) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, fields: fields ?? {} });
  };
  return {
    lines,
    at: (level) => lines.filter((l) => l.level === level),
    info: push("info"),
    warn: push("warn"),
    error: push("error"),
  };
}

/** A clock for caches: milliseconds that move only when the test says so. */
export function manualClock(start = 1_700_000_000_000): { now: () => number; advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

/**
 * Stands in for the search backend (the Retrieval port; Meilisearch or the embedded engine in
 * production): answers fixed hits, records what it was asked, or fails as told.
 */
export class FixedHitsBackend implements Retrieval {
  readonly calls: { target: SearchTarget; query: SearchQuery }[] = [];
  readonly facetCalls: { target: SearchTarget; query: FacetSearchQuery }[] = [];
  /** What a facet search answers. */
  facetHits: FacetHit[] = [];
  hits: Record<string, unknown>[];
  estimatedTotalHits: number;
  failWith: Error | undefined;

  constructor(hits: Record<string, unknown>[], estimatedTotalHits = hits.length) {
    this.hits = hits;
    this.estimatedTotalHits = estimatedTotalHits;
  }

  async search(target: SearchTarget, query: SearchQuery): Promise<RetrievalResult> {
    this.calls.push({ target, query });
    if (this.failWith !== undefined) throw this.failWith;
    return {
      hits: this.hits.slice(query.offset, query.offset + query.limit),
      estimatedTotalHits: this.estimatedTotalHits,
    };
  }

  async facetSearch(target: SearchTarget, query: FacetSearchQuery): Promise<FacetSearchResult> {
    this.facetCalls.push({ target, query });
    if (this.failWith !== undefined) throw this.failWith;
    return { facetHits: this.facetHits };
  }
}

/** A Kv over another that fails, hangs or counts reads for keys matching `affects`. */
export class FaultyKv implements Kv {
  mode: "ok" | "throw" | "hang" = "ok";
  readonly reads: string[] = [];
  private readonly inner: Kv;
  private readonly affects: (key: string) => boolean;
  /** Resolvers of reads held by a `gate` (see `hold`). */
  private gate: Promise<void> | undefined;

  constructor(inner: Kv, affects: (key: string) => boolean = () => true) {
    this.inner = inner;
    this.affects = affects;
  }

  /** Holds matching reads until the returned function is called. */
  hold(): () => void {
    let release = () => {};
    this.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return () => {
      this.gate = undefined;
      release();
    };
  }

  async get(key: string): Promise<string | null> {
    if (this.affects(key)) {
      this.reads.push(key);
      if (this.mode === "throw") throw new Error("KV namespace unavailable (injected)");
      if (this.mode === "hang") return new Promise<never>(() => {});
      if (this.gate !== undefined) await this.gate;
    }
    return this.inner.get(key);
  }

  put(key: string, value: string): Promise<void> {
    return this.inner.put(key, value);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
}
