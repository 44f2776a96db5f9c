import { formatIssues, type Issue, isPlainObject, issue } from "@relevance/core";
import {
  hashUserId,
  MAX_USER_ID_CHARS,
  newQueryUid,
  type OutcomeEvent,
  recordingSampleRate,
  type ServedSearch,
} from "@relevance/outcomes";
import {
  type ApiKeyGrant,
  apiKeyCopyKey,
  apiKeyHash,
  corsClassOf,
  corsCopyKey,
  corsOf,
  grantRefusal,
  INDEX_NAME,
  isExpired,
  type Kv,
  keyRefusalMessage,
  type Logger,
  neededGrant,
  originAllowed,
  originRefusalMessage,
  type RouteAction,
} from "@relevance/settings";
import {
  ApiError,
  AuthThrottle,
  assertJsonShape,
  type ClientAddress,
  cors,
  headerClientAddress,
  INTERNAL_ERROR,
  limitBody,
  maxJsonObjectKeys,
  onError,
  presentedApiKey,
  routeFallback,
} from "@shared/http";
import { type Context, Hono } from "hono";
import { canaryChoice } from "./canary.ts";
import {
  DEFAULT_EVENTS_PER_KEY_PER_SECOND,
  EVENTS_PATH,
  EventRequestSchema,
  eventIssues,
  MAX_EVENT_BODY_BYTES,
  USER_ID_HEADER,
} from "./events.ts";
import { parseFacetSearchRequest } from "./facet-search-schema.ts";
import { MAX_BODY_BYTES, MAX_BODY_DEPTH, MAX_BODY_KEYS } from "./limits.ts";
import { AUTH_CODE_HEADER, withMeilisearchFields } from "./meili-errors.ts";
import { PerSecondBudget } from "./per-second-budget.ts";
import type { Retrieval, RetrievalResult, SearchTarget } from "./ports.ts";
import { RetrievalError } from "./ports.ts";
import { RateLimiter } from "./rate-limit.ts";
import { parseSearchRequest, type SearchRequest, searchIssues } from "./request.ts";
import { MultiSearchEnvelopeSchema, MultiSearchQuerySchema } from "./routes.ts";
import { createScorer, type Score, type Scorer } from "./scorer.ts";
import { searchBodyOfQueryString } from "./search-get.ts";
import {
  INCLUDE_METADATA_HEADER,
  type SearchMetadata,
  type ServedInput,
  servedSearchRow,
  wantsMetadata,
} from "./served-search.ts";
import { parseApiKeyCopy, parseSettingsCopy, type SettingsView } from "./settings-copy.ts";
import { shadowScoring } from "./shadow-scoring.ts";
import { errorMessage, withTimeout } from "./timeout.ts";

export interface SearchAppDeps {
  kv: Kv;
  retrieval: Retrieval;
  log: Logger;
  /** Milliseconds, for the scorer's caches and log rate limits. Default Date.now. */
  now?: () => number;
  /** Default: a RelevanceScorer over `kv` (model cache, negative cache, rate-limited logs). */
  scorer?: Scorer;
  /** How long the default scorer waits for a model artifact from KV. Default 50 ms. */
  kvTimeoutMs?: number;
  /** How long an API-key or settings read from KV may take before the search answers 503. Default 1000 ms. */
  settingsTimeoutMs?: number;
  /** Largest accepted request body. Default 1 MiB (docs/limits.md). */
  maxBodyBytes?: number;
  /**
   * Bound on the estimated memory of the parsed models the default scorer keeps, in MB (2^20
   * bytes): `MODEL_CACHE_MB`. Default 32, which leaves most of a Worker isolate's 128 MB free.
   */
  modelCacheMb?: number;
  /**
   * Largest model artifact the default scorer loads, in bytes (`MODEL_MAX_BYTES`); a larger one is
   * refused before it is parsed. Default 8 MiB, at most 25 MiB.
   */
  modelMaxBytes?: number;
  /** Counts failed authentications and answers 429 to a client over its budget. Default: a new one. */
  authThrottle?: AuthThrottle;
  /** How the throttle tells clients apart. Default `headerClientAddress` (CF-Connecting-IP, set by Cloudflare). */
  clientAddress?: ClientAddress;
  /**
   * Where scored searches are recorded (a Recorder of @relevance/outcomes): offered after the
   * answer is ready, never awaited by the search. Absent: nothing is recorded.
   */
  recorder?: SearchRecorder;
  /**
   * Stores outcome events (`POST /api/v1/events`); resolves once they are stored (npm start) or
   * accepted by the outcomes queue (the Worker). Absent: the route answers 404.
   */
  recordEvents?: (events: readonly OutcomeEvent[]) => Promise<void>;
  /** Events accepted per API key per second (`EVENTS_PER_KEY_PER_SECOND`). Default 50. */
  eventsPerKeyPerSecond?: number;
  /** In [0, 1), for the shadow model's sample. Default Math.random. */
  random?: () => number;
}

/** What the search needs of a Recorder: a synchronous offer, and a flush for `waitUntil`. */
export interface SearchRecorder {
  /** Whether a served search is recorded at the sample rate: asked before its row is built. */
  sample(sampleRate: number): boolean;
  /** Takes the row of a search `sample` let through. */
  admit(row: ServedSearch): void;
  flush(): Promise<void>;
}

/** Longest x-api-key looked up at all (real keys are 46 characters). */
const MAX_API_KEY_CHARS = 512;

export const SEARCH_PATH = "/api/v1/indexes/:index/search";
export const MULTI_SEARCH_PATH = "/api/v1/multi-search";
/** Meilisearch's facet search: the values of one facet matching a word, counted over a search's documents. */
export const FACET_SEARCH_PATH = "/api/v1/indexes/:index/facet-search";
/** Meilisearch's `GET /health`: no authentication. */
export const HEALTH_PATH = "/api/v1/health";
/** Meilisearch's `GET /version`: any valid key. */
export const VERSION_PATH = "/api/v1/version";
// The routes as the OpenAPI document declares them: routes.ts (a test holds the two together).
/** `pkgVersion` of `GET /api/v1/version`: the version of this search API (not of a Meilisearch). */
export const SEARCH_API_VERSION = "0.1.0";
/** The response header that names the model behind `relevanceScore`. */
export const RELEVANCE_MODEL_HEADER = "x-relevance-model";
const DEFAULT_SETTINGS_TIMEOUT_MS = 1000;

interface Resolved {
  target: SearchTarget;
  /** From the record the request named (for an alias, the alias record). */
  relevanceConfig: unknown;
  /** relevance_recording_config of the record the request named, as stored. */
  recordingConfig: unknown;
  /** relevance_shadow_config of the record the request named, as stored. */
  shadowConfig: unknown;
  /** relevance_canary_config of the record the request named, as stored. */
  canaryConfig: unknown;
}

/** A search answered, with what recording needs of it. */
interface Answered {
  body: Record<string, unknown>;
  modelId: string | null;
  /** The scored search as served (no score: nothing to record). */
  served: Omit<ServedInput, "latencyMs" | "servedAt" | "userId"> | null;
  recordingConfig: unknown;
  shadowConfig: unknown;
}

/** Meilisearch's X-MS-USER-ID: who the shopper is, for the canary's share and the recorded hash. */
const userIdOf = (c: Context): string | undefined => c.req.header(USER_ID_HEADER);

/** The search proxy: `POST /api/v1/indexes/{index}/search` (docs/search.md). Runtime-neutral. */
export function createSearchApp(deps: SearchAppDeps): Hono {
  const { kv, retrieval, log } = deps;
  const settingsTimeoutMs = deps.settingsTimeoutMs ?? DEFAULT_SETTINGS_TIMEOUT_MS;
  const scorer =
    deps.scorer ??
    createScorer({
      kv,
      log,
      now: deps.now,
      kvTimeoutMs: deps.kvTimeoutMs,
      ...(deps.modelCacheMb === undefined ? {} : { maxBytes: modelCacheBytes(deps.modelCacheMb) }),
      ...(deps.modelMaxBytes === undefined ? {} : { maxArtifactBytes: deps.modelMaxBytes }),
    });
  const throttle = deps.authThrottle ?? new AuthThrottle({ now: deps.now });
  const clientAddress = deps.clientAddress ?? headerClientAddress;

  /** A settings-side KV read; a failure or timeout cannot be worked around (no account, no target): 503. */
  async function readKv(key: string, what: string, fields: Record<string, unknown>): Promise<string | null> {
    try {
      return await withTimeout(kv.get(key), settingsTimeoutMs, "the KV read");
    } catch (error) {
      log.error("search settings could not be read", { ...fields, what, problem: errorMessage(error) });
      throw new ApiError(
        503,
        "settings_unavailable",
        "the index settings could not be read right now; retry shortly",
      );
    }
  }

  const nowMs = deps.now ?? Date.now;

  /**
   * A client over its failed-authentication budget is refused before the key is hashed or looked
   * up, so guessing keys costs the proxy (and KV) nothing once the budget is spent. The key's
   * copy says what it may do: the route's action (ROUTE_ACTIONS) and, for a page, the account's
   * CORS origins are checked here, before the body is read; the index of each search is checked
   * by `allowIndex` when it is known.
   */
  async function authenticate(c: Context): Promise<{ account: string; grant: ApiKeyGrant; keyHash: string }> {
    const apiKey = presentedApiKey(c);
    if (apiKey === undefined) {
      // No key is no guess: answered 401 without counting.
      throw new ApiError(
        401,
        "unauthorized",
        "the x-api-key header (or Authorization: Bearer <key>) is required",
        undefined,
        { [AUTH_CODE_HEADER]: "missing_authorization_header" },
      );
    }
    // Real keys are 46 characters; a longer header is a wrong key, not worth hashing.
    const keyHash = apiKey.length > MAX_API_KEY_CHARS ? "" : await apiKeyHash(apiKey);
    const text = keyHash === "" ? null : await readKv(apiKeyCopyKey(keyHash), "API key", {});
    // After the lookup, so a key that already worked from this address keeps working while guesses
    // from it are refused (AuthThrottle.verdict).
    const copy = text === null ? null : parseApiKeyCopy(text);
    // An expired key is a key that no longer exists (it counts as a failed guess).
    const expired = copy?.ok === true && isExpired(copy.value.grant, nowMs());
    throttle.verdict(clientAddress(c), apiKey, text !== null && !expired);
    if (copy === null || expired) {
      throw new ApiError(401, "unauthorized", "the API key is not valid", undefined, {
        [AUTH_CODE_HEADER]: "invalid_api_key",
      });
    }
    if (!copy.ok) {
      log.error("API key copy is malformed", { problem: formatIssues(copy.errors) });
      throw new ApiError(500, INTERNAL_ERROR.error.code, INTERNAL_ERROR.error.message);
    }
    const { account, grant } = copy.value;
    const needed = neededGrant(c.req.method, c.req.path);
    if (needed !== null) {
      allow(grant, needed.action, needed.index);
      const origin = c.req.header("origin");
      if (origin !== undefined) {
        // A page's request: one more KV read (cached at the edge like the key's copy).
        const text = await readKv(corsCopyKey(account), "CORS origins", { account });
        let parsed: unknown = null;
        try {
          parsed = text === null ? null : JSON.parse(text);
        } catch {
          log.error("CORS copy is malformed", { account });
        }
        const kind = corsClassOf(needed);
        const accountCors = corsOf(isPlainObject(parsed) ? parsed : null);
        if (!originAllowed(accountCors, kind, origin))
          throw new ApiError(403, "origin_not_allowed", originRefusalMessage(origin, kind));
      }
    }
    return { account, grant, keyHash };
  }

  /** 403 `invalid_api_key`, as Meilisearch answers a key without the action or the index. */
  function allow(grant: ApiKeyGrant, action: RouteAction, index: string | null): void {
    const refusal = grantRefusal(grant, action, index);
    if (refusal !== null)
      throw new ApiError(403, "invalid_api_key", keyRefusalMessage(action, index, refusal));
  }

  async function readSettings(account: string, index: string): Promise<SettingsView | null> {
    const key = `${account}-${index}`;
    const text = await readKv(key, "settings", { account, index });
    if (text === null) return null;
    const view = parseSettingsCopy(text);
    if (!view.ok) {
      log.error("settings copy is malformed", { account, index, problem: formatIssues(view.errors) });
      throw new ApiError(500, INTERNAL_ERROR.error.code, INTERNAL_ERROR.error.message);
    }
    return view.value;
  }

  /** The alias record first; retrieval from the index it points at; the config from the named record. */
  async function resolve(account: string, name: string): Promise<Resolved> {
    const notFound = new ApiError(404, "not_found", "index not found");
    if (!INDEX_NAME.test(name)) throw notFound;
    const named = await readSettings(account, name);
    if (named === null) throw notFound;
    let underlying = name;
    let settings = named;
    if (named.type === "alias") {
      underlying = named.aliasOf as string;
      const target = INDEX_NAME.test(underlying) ? await readSettings(account, underlying) : null;
      if (target === null)
        throw new ApiError(404, "not_found", "the alias points at an index that does not exist");
      if (target.type === "alias") {
        log.error("alias points at another alias", { account, index: name, aliasOf: underlying });
        throw new ApiError(500, INTERNAL_ERROR.error.code, INTERNAL_ERROR.error.message);
      }
      settings = target;
    }
    return {
      target: {
        systemAccountId: account,
        index: underlying,
        primaryKey: settings.primaryKey,
        searchableAttributes: settings.searchableAttributes,
        filterableAttributes: settings.filterableAttributes,
        displayedAttributes: settings.displayedAttributes,
        sortableAttributes: settings.sortableAttributes,
        synonyms: settings.synonyms,
        stopWords: settings.stopWords,
        typoTolerance: settings.typoTolerance,
        rankingRules: settings.rankingRules,
      },
      relevanceConfig: named.relevanceTriggerConfig,
      recordingConfig: named.relevanceRecordingConfig,
      shadowConfig: named.relevanceShadowConfig,
      canaryConfig: named.relevanceCanaryConfig,
    };
  }

  async function retrieve(
    account: string,
    index: string,
    target: SearchTarget,
    request: SearchRequest,
  ): Promise<RetrievalResult> {
    try {
      const { relevanceScore: _, ...query } = request;
      return await retrieval.search(target, query);
    } catch (error) {
      throw backendFailure(error, account, index);
    }
  }

  /** A retrieval failure as the client sees it: its request at fault (422), or the backend (502/504). */
  function backendFailure(error: unknown, account: string, index: string): unknown {
    if (!(error instanceof RetrievalError)) return error;
    if (error.failure === "invalid_request") {
      const path = error.field ?? "";
      return new ApiError(422, "validation_failed", `the search request is invalid: ${error.message}`, [
        { path, message: error.message },
      ]);
    }
    log.error("search backend failed", { account, index, failure: error.failure, problem: error.message });
    if (error.failure === "timeout") {
      return new ApiError(504, "backend_timeout", "the search backend did not answer in time; retry shortly");
    }
    return new ApiError(502, "backend_unavailable", "the search backend is unavailable; retry shortly");
  }

  /** Scoring never fails a search, even with an injected scorer that throws. */
  async function scoreSafely(input: Parameters<Scorer["score"]>[0]): Promise<Score | null> {
    try {
      return await scorer.score(input);
    } catch (error) {
      log.error("relevance scoring failed", {
        account: input.account,
        index: input.index,
        problem: errorMessage(error),
      });
      return null;
    }
  }

  /** One search: the index resolved, retrieval, the relevance score when asked; Meilisearch's response shape. */
  async function runSearch(
    account: string,
    index: string,
    request: SearchRequest,
    started: number,
    includeMetadata: boolean,
    userId: string | undefined,
  ): Promise<Answered> {
    const { target, relevanceConfig, recordingConfig, shadowConfig, canaryConfig } = await resolve(
      account,
      index,
    );
    const result = await retrieve(account, index, target, request);
    const candidate = request.relevanceScore ? canary(account, index, canaryConfig, userId) : undefined;
    const scored = request.relevanceScore
      ? await scoreSafely({
          account,
          index,
          config: relevanceConfig,
          query: request.q,
          hits: result.hits,
          estimatedTotalHits: result.estimatedTotalHits,
          candidateModelId: candidate,
        })
      : null;
    // Every search has its uid; it is answered when asked for and whenever a score is.
    const queryUid = newQueryUid(nowMs());
    const metadata: SearchMetadata | null =
      includeMetadata || scored !== null
        ? { queryUid, indexUid: index, primaryKey: target.primaryKey }
        : null;
    const pagination = request.pagination;
    const body = {
      hits: result.hits,
      query: request.q,
      ...(pagination === undefined
        ? { limit: request.limit, offset: request.offset, estimatedTotalHits: result.estimatedTotalHits }
        : {
            hitsPerPage: pagination.hitsPerPage,
            page: pagination.page,
            totalPages:
              pagination.hitsPerPage === 0
                ? 0
                : Math.ceil(result.estimatedTotalHits / pagination.hitsPerPage),
            totalHits: result.estimatedTotalHits,
          }),
      processingTimeMs: Math.round(performance.now() - started),
      ...(result.facetDistribution === undefined ? {} : { facetDistribution: result.facetDistribution }),
      ...(result.facetStats === undefined || request.facets === undefined
        ? {}
        : { facetStats: result.facetStats }),
      ...(metadata === null ? {} : { metadata }),
      // Last, as it always was: clients that read the answer's keys in order keep working.
      ...(scored === null ? {} : { relevanceScore: scored.score }),
    };
    const served =
      scored === null
        ? null
        : {
            queryUid,
            account,
            index,
            indexUid: target.index,
            primaryKey: target.primaryKey,
            modelId: scored.modelId,
            score: scored.score,
            features: scored.features,
            query: request.q,
            hits: result.hits,
            estimatedTotalHits: result.estimatedTotalHits,
          };
    // The comparison pairs the serving model with the shadow: a canary-served search is not one.
    const canaryServed = candidate !== undefined && scored?.modelId === candidate;
    return {
      body,
      modelId: scored?.modelId ?? null,
      served,
      recordingConfig,
      shadowConfig: canaryServed ? null : shadowConfig,
    };
  }

  const recordLimiter = new RateLimiter(nowMs, 60_000);
  const canary = canaryChoice({ log, limiter: recordLimiter });
  const shadow = shadowScoring({ scorer, log, limiter: recordLimiter, random: deps.random ?? Math.random });
  /**
   * Hands the scored searches of one request to the recorder, after the answer is ready: the row
   * (with the shopper's hash) is built in a promise the search does not await; in the Worker that
   * promise, with the recorder's flush, goes to `waitUntil`. Never throws.
   */
  function record(c: Context, answers: readonly Answered[], started: number): void {
    const recorder = deps.recorder;
    if (recorder === undefined || answers.every((a) => a.served === null)) return;
    const latencyMs = performance.now() - started;
    const servedAt = nowMs();
    const userId = userIdOf(c);
    // A macrotask later: the row is built after the answer has left, not before it.
    const work = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(async () => {
        for (const { served, recordingConfig, shadowConfig } of answers) {
          if (served === null) continue;
          const rate = recordingSampleRate(recordingConfig);
          if (!rate.valid && recordLimiter.take(`${served.account}\u0000${served.index}`) !== null)
            log.error("relevance recording config is malformed; recording every search", {
              account: served.account,
              index: served.index,
            });
          if (!recorder.sample(rate.rate)) continue;
          const row = await servedSearchRow({ ...served, latencyMs, servedAt, userId });
          recorder.admit({ ...row, ...((await shadow(served, shadowConfig)) ?? {}) });
        }
      })
      .catch((error: unknown) => {
        log.error("a served search could not be recorded", { problem: errorMessage(error) });
      });
    const ctx = executionContextOf(c);
    if (ctx !== null) ctx.waitUntil(work.then(() => recorder.flush()));
  }

  const app = new Hono();
  // Our error body, with Meilisearch's fields next to it for the official clients.
  app.onError(withMeilisearchFields(onError(log)));
  // JSON 404 for unknown routes, JSON 405 with Allow for a wrong method on the search path.
  app.notFound(routeFallback(app));
  // Before anything: a preflight is answered here, and every answer (errors too) can be read by the page.
  app.use("/api/v1/*", cors({ skip: (path) => path.startsWith("/api/v1/admin/") }));
  app.post(SEARCH_PATH, limitBody(deps.maxBodyBytes ?? MAX_BODY_BYTES), async (c: Context) => {
    const started = performance.now();
    const { account } = await authenticate(c);
    const request = await readRequest(c);
    const index = c.req.param("index") ?? "";
    const answered = await runSearch(account, index, request, started, metadataAsked(c), userIdOf(c));
    if (answered.modelId !== null) c.header(RELEVANCE_MODEL_HEADER, answered.modelId);
    const res = c.json(answered.body);
    record(c, [answered], started);
    return res;
  });
  // Meilisearch's searchGet: the same search, its parameters in the query string.
  app.get(SEARCH_PATH, async (c: Context) => {
    const started = performance.now();
    const { account } = await authenticate(c);
    const url = c.req.url;
    const at = url.indexOf("?");
    const parsed = parseSearchRequest(searchBodyOfQueryString(at === -1 ? "" : url.slice(at + 1)));
    if (!parsed.ok) throw invalidRequest(parsed.errors);
    const index = c.req.param("index") ?? "";
    const answered = await runSearch(account, index, parsed.value, started, metadataAsked(c), userIdOf(c));
    if (answered.modelId !== null) c.header(RELEVANCE_MODEL_HEADER, answered.modelId);
    const res = c.json(answered.body);
    record(c, [answered], started);
    return res;
  });
  app.post(FACET_SEARCH_PATH, limitBody(deps.maxBodyBytes ?? MAX_BODY_BYTES), async (c: Context) => {
    const started = performance.now();
    const { account } = await authenticate(c);
    const parsed = parseFacetSearchRequest(await readJson(c));
    if (!parsed.ok) throw invalidRequest(parsed.errors, "facet search");
    const index = c.req.param("index") ?? "";
    const { target } = await resolve(account, index);
    let facetHits: { value: string; count: number }[];
    try {
      facetHits = (await retrieval.facetSearch(target, parsed.value)).facetHits;
    } catch (error) {
      throw backendFailure(error, account, index);
    }
    return c.json({
      facetHits,
      facetQuery: parsed.value.facetQuery ?? null,
      processingTimeMs: Math.round(performance.now() - started),
    });
  });
  app.post(MULTI_SEARCH_PATH, limitBody(deps.maxBodyBytes ?? MAX_BODY_BYTES), async (c: Context) => {
    const started = performance.now();
    const { account, grant } = await authenticate(c);
    const queries = await readMultiSearch(c);
    // Every query's index is checked before any is run: a key for one index cannot read another's.
    for (const [i, { indexUid }] of queries.entries()) {
      try {
        allow(grant, "search", indexUid);
      } catch (error) {
        throw error instanceof ApiError ? insideQuery(error, i) : error;
      }
    }
    const results: Record<string, unknown>[] = [];
    const answers: Answered[] = [];
    const includeMetadata = metadataAsked(c);
    for (const [i, { indexUid, request }] of queries.entries()) {
      try {
        // Each result keeps its own relevanceScore and queryUid; no x-relevance-model header (it would be ambiguous).
        const answered = await runSearch(account, indexUid, request, started, includeMetadata, userIdOf(c));
        answers.push(answered);
        results.push({ indexUid, ...answered.body });
      } catch (error) {
        throw error instanceof ApiError ? insideQuery(error, i) : error;
      }
    }
    const res = c.json({ results });
    record(c, answers, started);
    return res;
  });
  const recordEvents = deps.recordEvents;
  {
    const budget = new PerSecondBudget(
      nowMs,
      deps.eventsPerKeyPerSecond ?? DEFAULT_EVENTS_PER_KEY_PER_SECOND,
    );
    app.post(EVENTS_PATH, limitBody(MAX_EVENT_BODY_BYTES), async (c: Context) => {
      if (recordEvents === undefined)
        throw new ApiError(404, "events_disabled", "this deployment does not record outcome events");
      const { account, grant, keyHash } = await authenticate(c);
      // Before the body is read: a key over its rate costs nothing more.
      if (!budget.take(keyHash)) {
        throw new ApiError(
          429,
          "too_many_requests",
          "too many events for this API key; retry in a second",
          undefined,
          { "Retry-After": "1" },
        );
      }
      const body = await readJson(c);
      const parsed = EventRequestSchema.safeParse(body);
      const header = userIdOf(c);
      const problems: Issue[] = parsed.success ? [] : eventIssues(parsed.error);
      if (header !== undefined && header.length > MAX_USER_ID_CHARS)
        problems.push(issue("X-MS-USER-ID", `must be at most ${MAX_USER_ID_CHARS} characters`));
      const userId = parsed.success ? (parsed.data.userId ?? header) : undefined;
      if (parsed.success && (userId === undefined || userId === ""))
        problems.push(issue("userId", "is required (or the X-MS-USER-ID header)"));
      if (problems.length > 0 || !parsed.success || userId === undefined)
        throw invalidRequest(problems, "event");
      const event = parsed.data;
      allow(grant, "search", event.indexUid);
      const row: OutcomeEvent = {
        account,
        index: event.indexUid,
        queryUid: event.queryUid ?? null,
        eventType: event.eventType,
        eventName: event.eventName,
        objectId: event.objectId ?? null,
        objectName: event.objectName ?? null,
        position: event.position ?? null,
        userHash: await hashUserId(account, userId),
        receivedAt: Math.floor(nowMs()),
      };
      try {
        await recordEvents([row]);
      } catch (error) {
        // Never the user id, nor its hash, in a log line.
        log.error("an outcome event could not be stored", {
          account,
          index: row.index,
          problem: errorMessage(error),
        });
        throw new ApiError(
          503,
          "events_unavailable",
          "the event could not be stored right now; retry shortly",
        );
      }
      return c.body(null, 201);
    });
  }
  app.get(HEALTH_PATH, (c) => c.json({ status: "available" }));
  app.get(VERSION_PATH, async (c) => {
    await authenticate(c);
    return c.json({ commitSha: "unknown", commitDate: "unknown", pkgVersion: SEARCH_API_VERSION });
  });
  return app;
}

/** Whether the request asked for `metadata` (Meili-Include-Metadata: true). */
const metadataAsked = (c: Context): boolean => wantsMetadata(c.req.header(INCLUDE_METADATA_HEADER));

/** The Worker's execution context (Hono's `c.executionCtx` throws where there is none: Node). */
function executionContextOf(c: Context): { waitUntil(promise: Promise<unknown>): void } | null {
  try {
    return c.executionCtx;
  } catch {
    return null;
  }
}

/** An error of the i-th query of a multi-search, said as Meilisearch says it. */
function insideQuery(error: ApiError, i: number): ApiError {
  return new ApiError(
    error.status,
    error.code,
    `Inside \`.queries[${i}]\`: ${error.message}`,
    error.details?.map((d) => ({ ...d, path: d.path === "" ? `queries[${i}]` : `queries[${i}].${d.path}` })),
    error.headers === undefined ? undefined : { ...error.headers },
  );
}

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  const keys = maxJsonObjectKeys(text);
  if (keys > MAX_BODY_KEYS) {
    throw new ApiError(422, "validation_failed", "the search request is invalid: too many fields", [
      {
        path: "",
        message: `an object of the body has ${keys} fields, more than the limit of ${MAX_BODY_KEYS} (a search has 20)`,
      },
    ]);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new ApiError(400, "invalid_json", "the request body is not valid JSON");
    }
    throw error;
  }
  assertJsonShape(body, { maxDepth: MAX_BODY_DEPTH });
  return body;
}

/** `{"queries": [{indexUid, ...search}]}`, every query checked before any is run. */
async function readMultiSearch(c: Context): Promise<{ indexUid: string; request: SearchRequest }[]> {
  const body = await readJson(c);
  const envelope = MultiSearchEnvelopeSchema.safeParse(body);
  const errors: Issue[] = envelope.success ? [] : searchIssues(envelope.error, ["queries"]);
  if (errors.length > 0) throw invalidRequest(errors);
  const queries: { indexUid: string; request: SearchRequest }[] = [];
  for (const [i, query] of (body as { queries: unknown[] }).queries.entries()) {
    const parsed = parseSearchRequest(query, ["indexUid"]);
    const indexUid = MultiSearchQuerySchema.shape.indexUid.safeParse(
      isPlainObject(query) ? query.indexUid : "",
    );
    const problems = parsed.ok ? [] : [...parsed.errors];
    if (!indexUid.success) problems.unshift(issue("indexUid", indexUid.error.issues[0]?.message ?? ""));
    for (const p of problems)
      errors.push({ ...p, path: p.path === "" ? `queries[${i}]` : `queries[${i}].${p.path}` });
    if (parsed.ok && indexUid.success) queries.push({ indexUid: indexUid.data, request: parsed.value });
  }
  if (errors.length > 0) throw invalidRequest(errors);
  return queries;
}

function invalidRequest(errors: Issue[], what = "search"): ApiError {
  return new ApiError(
    422,
    "validation_failed",
    `the ${what} request is invalid: ${formatIssues(errors)}`,
    errors,
  );
}

async function readRequest(c: Context): Promise<SearchRequest> {
  const parsed = parseSearchRequest(await readJson(c));
  if (!parsed.ok) throw invalidRequest(parsed.errors);
  return parsed.value;
}

/** `MODEL_CACHE_MB` as bytes; refuses a value that is not a positive number (a configuration error). */
export function modelCacheBytes(mb: number): number {
  if (!(Number.isFinite(mb) && mb > 0))
    throw new RangeError(`modelCacheMb must be a positive number, got ${mb}`);
  return Math.floor(mb * 1024 * 1024);
}
