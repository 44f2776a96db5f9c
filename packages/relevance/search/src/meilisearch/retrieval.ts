import { isPlainObject } from "@relevance/core";
import { errorMessage } from "@shared/kernel";
import { MAX_VALUES_PER_FACET } from "../limits.ts";
import type {
  FacetHit,
  FacetSearchQuery,
  FacetSearchResult,
  Retrieval,
  RetrievalResult,
  SearchQuery,
  SearchTarget,
} from "../ports.ts";
import { RetrievalError } from "../ports.ts";
import { retrievalErrorOf } from "./errors.ts";

export interface MeilisearchOptions {
  /** Base URL of the Meilisearch instance, e.g. `https://ms-1234.meilisearch.io`. */
  url: string;
  /** A key with the `search` action on the indexes; sent as `Authorization: Bearer`. Empty: no header. */
  apiKey: string;
  /** The whole exchange (connect, answer, body) must finish within this. Default 2000 ms. */
  timeoutMs?: number;
  /** The Meilisearch index uid of a target. Default `<systemAccountId>-<index>`. */
  indexUid?: (target: SearchTarget) => string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

export const DEFAULT_MEILISEARCH_TIMEOUT_MS = 2000;

export const defaultIndexUid = (target: SearchTarget): string => `${target.systemAccountId}-${target.index}`;

/** The Retrieval port over Meilisearch's HTTP API (`POST /indexes/{uid}/search`). Runs in Workers and Node. */
export class MeilisearchRetrieval implements Retrieval {
  private readonly base: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly indexUid: (target: SearchTarget) => string;
  private readonly fetch: typeof fetch;

  constructor(options: MeilisearchOptions) {
    this.base = options.url.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_MEILISEARCH_TIMEOUT_MS;
    this.indexUid = options.indexUid ?? defaultIndexUid;
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    if (!(this.timeoutMs > 0)) throw new RangeError("timeoutMs must be above 0");
  }

  async search(target: SearchTarget, query: SearchQuery): Promise<RetrievalResult> {
    return resultOf(await this.post(target, "search", requestBody(query)));
  }

  /** Meilisearch's `POST /indexes/{uid}/facet-search`, with the fields the port takes. */
  async facetSearch(target: SearchTarget, query: FacetSearchQuery): Promise<FacetSearchResult> {
    const body: Record<string, unknown> = { facetName: query.facetName, q: query.q };
    if (query.facetQuery !== undefined) body.facetQuery = query.facetQuery;
    if (query.filter !== undefined) body.filter = query.filter;
    if (query.matchingStrategy !== undefined) body.matchingStrategy = query.matchingStrategy;
    if (query.exhaustiveFacetCount !== undefined) body.exhaustiveFacetCount = query.exhaustiveFacetCount;
    return facetResultOf(await this.post(target, "facet-search", body));
  }

  /** One POST to an index route; the parsed answer, or a RetrievalError. */
  private async post(
    target: SearchTarget,
    route: string,
    payload: Record<string, unknown>,
  ): Promise<unknown> {
    const uid = this.indexUid(target);
    const url = `${this.base}/indexes/${encodeURIComponent(uid)}/${route}`;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    try {
      const response = await this.fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(this.apiKey === "" ? {} : { authorization: `Bearer ${this.apiKey}` }),
        },
        body: JSON.stringify(payload),
        // Never follow a redirect: it would send the query and the API key to another address.
        redirect: "manual",
        signal: controller.signal,
      });
      if (response.type === "opaqueredirect" || (response.status >= 300 && response.status <= 399)) {
        await response.body?.cancel().catch(() => undefined);
        throw new RetrievalError(
          "unavailable",
          `Meilisearch answered ${response.status === 0 ? "a redirect" : response.status}, which is not followed`,
        );
      }
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (!response.ok) throw retrievalErrorOf(response.status, body);
      return body;
    } catch (error) {
      if (error instanceof RetrievalError) throw error;
      if (timedOut) {
        throw new RetrievalError("timeout", `Meilisearch did not answer within ${this.timeoutMs} ms`);
      }
      throw new RetrievalError("unavailable", `Meilisearch could not be reached: ${errorMessage(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The parameters a search passes on, as Meilisearch's `POST /indexes/{uid}/search` takes them. */
const PASSED_ON = [
  "filter",
  "sort",
  "facets",
  "attributesToRetrieve",
  "attributesToHighlight",
  "highlightPreTag",
  "highlightPostTag",
  "attributesToCrop",
  "cropLength",
  "cropMarker",
  "showRankingScore",
  "matchingStrategy",
  "distinct",
  "rankingScoreThreshold",
] as const;

function requestBody(query: SearchQuery): Record<string, unknown> {
  const body: Record<string, unknown> = { q: query.q };
  if (query.pagination === undefined) {
    body.limit = query.limit;
    body.offset = query.offset;
  } else {
    // Exhaustive pagination: Meilisearch then answers totalHits, an exact count.
    body.page = query.pagination.page;
    body.hitsPerPage = query.pagination.hitsPerPage;
  }
  for (const name of PASSED_ON) if (query[name] !== undefined) body[name] = query[name];
  return body;
}

/** Maps Meilisearch's documented search response (`hits`, `estimatedTotalHits`, ...) to the port's result. */
function resultOf(body: unknown): RetrievalResult {
  if (!isPlainObject(body) || !Array.isArray(body.hits) || !body.hits.every(isPlainObject)) {
    throw new RetrievalError("unavailable", "Meilisearch answered a search without a hits array");
  }
  // estimatedTotalHits with limit/offset; totalHits with page/hitsPerPage.
  const total = body.estimatedTotalHits ?? body.totalHits;
  const result: RetrievalResult = {
    hits: body.hits,
    estimatedTotalHits:
      typeof total === "number" && Number.isFinite(total) && total >= 0 ? total : body.hits.length,
  };
  if (isPlainObject(body.facetDistribution)) {
    result.facetDistribution = body.facetDistribution as Record<string, Record<string, number>>;
  }
  if (isPlainObject(body.facetStats)) {
    result.facetStats = body.facetStats as Record<string, { min: number; max: number }>;
  }
  return result;
}

/** Meilisearch's documented facet search response (`facetHits: [{value, count}]`). */
function facetResultOf(body: unknown): FacetSearchResult {
  const hits = isPlainObject(body) ? body.facetHits : undefined;
  if (!Array.isArray(hits)) {
    throw new RetrievalError("unavailable", "Meilisearch answered a facet search without a facetHits array");
  }
  const facetHits: FacetHit[] = [];
  for (const hit of hits.slice(0, MAX_VALUES_PER_FACET)) {
    if (isPlainObject(hit) && typeof hit.value === "string" && typeof hit.count === "number")
      facetHits.push({ value: hit.value, count: hit.count });
  }
  return { facetHits };
}
