// A LOCAL DOUBLE of the Meilisearch HTTP API, not Meilisearch: a Hono app on 127.0.0.1 that replays
// the response shapes Meilisearch documents for `POST /indexes/{index_uid}/search`
// (https://www.meilisearch.com/docs/reference/api/search) and its error bodies
// `{message, code, type, link}` (https://www.meilisearch.com/docs/reference/errors/overview).
// Test-only (node:* is fine here).
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

export const MASTER_KEY = "double-search-key";

const errorBody = (message: string, code: string, type: string) => ({
  message,
  code,
  type,
  link: `https://docs.meilisearch.com/errors#${code}`,
});

export interface RecordedRequest {
  uid: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface MeilisearchDouble {
  url: string;
  requests: RecordedRequest[];
  /** Every request to the index management endpoints (`indexRoutes`), in order. */
  indexRequests: IndexRequest[];
  /** Searches of a `*-slow` index answered so far (each `slowMs` after it arrived). */
  readonly slowSearchesAnswered: number;
  close(): Promise<void>;
}

/**
 * Index uids decide the answer: `*-products` answers documented hits, `*-missing` index_not_found,
 * `*-broken` a 500 `internal`, `*-slow` the hits after `slowMs`, `*-proxy` a non-JSON 502 as a
 * load balancer in front of Meilisearch would. A filter on `color` is invalid_search_filter, a
 * wrong key invalid_api_key, no key missing_authorization_header. Sort (on `id` or `title`, else
 * invalid_search_sort), facets (`id`, `tags`, else invalid_search_facets; facetStats for `id`),
 * page/hitsPerPage (totalHits 3), attributesToRetrieve, attributesToHighlight with its tags
 * (whole words of q) and showRankingScore are answered as Meilisearch documents them. Any other
 * index created through the management routes is searched over its own documents and synonyms.
 */
export async function startMeilisearchDouble(slowMs = 1000): Promise<MeilisearchDouble> {
  const requests: RecordedRequest[] = [];
  let slowSearchesAnswered = 0;
  const app = new Hono();
  const indexRequests = indexRoutes(app, slowMs);
  app.post("/indexes/:uid/search", async (c) => {
    const uid = c.req.param("uid");
    const body = (await c.req.json()) as Record<string, unknown>;
    const authorization = c.req.header("authorization");
    requests.push({ uid, authorization, body });
    if (authorization === undefined) {
      return c.json(
        errorBody(
          "The Authorization header is missing. It must use the bearer authorization method.",
          "missing_authorization_header",
          "auth",
        ),
        401,
      );
    }
    if (authorization !== `Bearer ${MASTER_KEY}`) {
      return c.json(errorBody("The provided API key is invalid.", "invalid_api_key", "auth"), 403);
    }
    if (uid.endsWith("-missing")) {
      return c.json(errorBody(`Index \`${uid}\` not found.`, "index_not_found", "invalid_request"), 404);
    }
    if (uid.endsWith("-broken")) {
      return c.json(
        errorBody("An internal error has occurred. `Corrupted task queue.`.", "internal", "internal"),
        500,
      );
    }
    if (uid.endsWith("-proxy")) return c.text("<html><body>502 Bad Gateway</body></html>", 502);
    if (typeof body.filter === "string" && body.filter.includes("color")) {
      return c.json(
        errorBody(
          `Index \`${uid}\`: Attribute \`color\` is not filterable. Available filterable attributes are: \`tags\`.\n1:6 color = red`,
          "invalid_search_filter",
          "invalid_request",
        ),
        400,
      );
    }
    if (uid.endsWith("-slow")) {
      await new Promise((resolve) => setTimeout(resolve, slowMs));
      slowSearchesAnswered++;
    }
    const all = PRODUCTS.map((doc) => ({ ...doc }));
    // Sortable attributes of the double's indexes: id and title; filterable: id and tags.
    const sort = Array.isArray(body.sort) ? (body.sort as string[]) : [];
    for (const criterion of sort) {
      const [attribute, direction] = criterion.split(":");
      if (attribute !== "id" && attribute !== "title") {
        return c.json(
          errorBody(
            `Index \`${uid}\`: Attribute \`${attribute}\` is not sortable. Available sortable attributes are: \`id, title\`.`,
            "invalid_search_sort",
            "invalid_request",
          ),
          400,
        );
      }
      const sign = direction === "desc" ? -1 : 1;
      all.sort((x, y) => sign * String(x[attribute]).localeCompare(String(y[attribute])));
    }
    const facets = Array.isArray(body.facets) ? (body.facets as string[]) : undefined;
    const facetDistribution: Record<string, Record<string, number>> = {};
    const facetStats: Record<string, { min: number; max: number }> = {};
    for (const facet of facets ?? []) {
      if (facet !== "id" && facet !== "tags") {
        return c.json(
          errorBody(
            `Index \`${uid}\`: Invalid facet distribution, attribute \`${facet}\` is not filterable. The available filterable attributes are \`id, tags\`.`,
            "invalid_search_facets",
            "invalid_request",
          ),
          400,
        );
      }
      const counts: Record<string, number> = {};
      for (const doc of all) {
        const value = doc[facet];
        for (const v of Array.isArray(value) ? value : [value])
          counts[String(v)] = (counts[String(v)] ?? 0) + 1;
      }
      facetDistribution[facet] = counts;
      if (facet === "id") facetStats.id = { min: 1, max: 3 };
    }
    const paged = body.page !== undefined || body.hitsPerPage !== undefined;
    const hitsPerPage = typeof body.hitsPerPage === "number" ? body.hitsPerPage : 20;
    const page = typeof body.page === "number" ? body.page : 1;
    const limit = paged ? hitsPerPage : typeof body.limit === "number" ? body.limit : 20;
    const offset = paged ? (page - 1) * hitsPerPage : typeof body.offset === "number" ? body.offset : 0;
    const retrieve = Array.isArray(body.attributesToRetrieve)
      ? (body.attributesToRetrieve as string[])
      : ["*"];
    const highlight = Array.isArray(body.attributesToHighlight)
      ? (body.attributesToHighlight as string[])
      : [];
    const words = String(body.q ?? "")
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== "");
    const pre = typeof body.highlightPreTag === "string" ? body.highlightPreTag : "<em>";
    const post = typeof body.highlightPostTag === "string" ? body.highlightPostTag : "</em>";
    const hits = all.slice(offset, offset + limit).map((doc, i) => {
      const hit: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(doc))
        if (retrieve.includes("*") || retrieve.includes(k)) hit[k] = v;
      if (highlight.length > 0) {
        const formatted: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(hit)) {
          formatted[k] =
            typeof v === "string" && (highlight.includes("*") || highlight.includes(k))
              ? v.replace(/\p{L}+/gu, (w) => (words.includes(w.toLowerCase()) ? `${pre}${w}${post}` : w))
              : typeof v === "number"
                ? String(v)
                : v;
        }
        hit._formatted = formatted;
      }
      if (body.showRankingScore === true) hit._rankingScore = 1 - (offset + i) / 10;
      return hit;
    });
    return c.json({
      hits,
      query: body.q ?? "",
      processingTimeMs: 1,
      ...(paged
        ? {
            hitsPerPage,
            page,
            totalPages: Math.ceil(all.length / Math.max(1, hitsPerPage)),
            totalHits: all.length,
          }
        : { limit, offset, estimatedTotalHits: 976 }),
      ...(facets === undefined ? {} : { facetDistribution, facetStats }),
    });
  });

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    indexRequests,
    get slowSearchesAnswered() {
      return slowSearchesAnswered;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Index management (the IndexManager contract's endpoints), as Meilisearch documents them:
// https://www.meilisearch.com/docs/reference/api/indexes, /documents, /settings, /stats, /tasks,
// /version, /health. Writes answer 202 with a summarized task and are processed in order, after
// the answer, by an in-memory queue; the full task object is at `GET /tasks/{uid}`. Errors of a
// write that Meilisearch only finds while processing (index_already_exists, index_not_found,
// missing_document_id, ...) are in the failed task, as there. Index uids ending `-slow` answer
// after `slowMs` (a read) or are processed after it (a task); `GET /indexes/*-moved` answers a
// 308 to `/stolen/...` (recorded if followed); a write to `*-full` answers as on a full disk (500,
// `no_space_left_on_device`, type `system`) and enqueues nothing.
// ---------------------------------------------------------------------------------------------

export interface IndexRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

type Json = Record<string, unknown>;

/** The documents of a `*-products` index. */
const PRODUCTS: readonly Record<string, unknown>[] = [
  { id: 1, title: "Red running shoes", tags: ["shoes", "running"] },
  { id: 2, title: "Blue running shorts", tags: ["apparel"] },
  { id: 3, title: "Red socks", tags: ["socks"] },
];

/** Uids the double answers with canned hits or failures (see startMeilisearchDouble). */
const CANNED = /-(products|missing|broken|slow|proxy|moved)$/;

interface DoubleIndex {
  uid: string;
  primaryKey: string | null;
  createdAt: string;
  updatedAt: string;
  documents: Map<string, Json>;
  settings: Json;
}

interface DoubleTask {
  uid: number;
  batchUid: number | null;
  indexUid: string;
  status: "enqueued" | "processing" | "succeeded" | "failed";
  type: string;
  canceledBy: null;
  details: Json;
  error: ReturnType<typeof errorBody> | null;
  duration: string | null;
  enqueuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const SETTINGS_DEFAULTS: Json = {
  displayedAttributes: ["*"],
  searchableAttributes: ["*"],
  filterableAttributes: [],
  sortableAttributes: [],
  rankingRules: ["words", "typo", "proximity", "attribute", "sort", "exactness"],
  stopWords: [],
  nonSeparatorTokens: [],
  separatorTokens: [],
  dictionary: [],
  synonyms: {},
  distinctAttribute: null,
  proximityPrecision: "byWord",
  typoTolerance: {
    enabled: true,
    minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
    disableOnWords: [],
    disableOnAttributes: [],
  },
  faceting: { maxValuesPerFacet: 100, sortFacetValuesBy: { "*": "alpha" } },
  pagination: { maxTotalHits: 1000 },
  searchCutoffMs: null,
};

const UID = /^[A-Za-z0-9_-]{1,400}$/;
const DOC_ID = /^[A-Za-z0-9_-]{1,511}$/;

class Failure extends Error {
  readonly body: ReturnType<typeof errorBody>;
  constructor(message: string, code: string) {
    super(message);
    this.body = errorBody(message, code, "invalid_request");
  }
}

/** Registers the index management endpoints on `app`; answers the list of requests they record. */
function indexRoutes(app: Hono, slowMs: number): IndexRequest[] {
  const recorded: IndexRequest[] = [];
  const indexes = new Map<string, DoubleIndex>();
  const tasks: DoubleTask[] = [];
  let queue: Promise<void> = Promise.resolve();
  let batches = 0;

  // biome-ignore lint/suspicious/noExplicitAny: Hono's context type differs per route
  type C = any;
  const authFailure = (c: C): Response | null => {
    const authorization = c.req.header("authorization") as string | undefined;
    recorded.push({ method: c.req.method, path: c.req.path, authorization });
    if (authorization === undefined) {
      return c.json(
        errorBody(
          "The Authorization header is missing. It must use the bearer authorization method.",
          "missing_authorization_header",
          "auth",
        ),
        401,
      );
    }
    if (authorization !== `Bearer ${MASTER_KEY}`) {
      return c.json(errorBody("The provided API key is invalid.", "invalid_api_key", "auth"), 403);
    }
    return null;
  };
  const notFound = (c: C, uid: string) =>
    c.json(errorBody(`Index \`${uid}\` not found.`, "index_not_found", "invalid_request"), 404);
  const invalidUid = (c: C, uid: string) =>
    c.json(
      errorBody(
        `\`${uid}\` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.`,
        "invalid_index_uid",
        "invalid_request",
      ),
      400,
    );
  const info = (index: DoubleIndex) => ({
    uid: index.uid,
    createdAt: index.createdAt,
    updatedAt: index.updatedAt,
    primaryKey: index.primaryKey,
  });
  const slow = async (uid: string) => {
    if (uid.endsWith("-slow")) await new Promise((resolve) => setTimeout(resolve, slowMs));
  };

  /** Records a task, answers its summary with 202 and processes it after the answer, in order. */
  const enqueue = (c: C, indexUid: string, type: string, details: Json, work: (task: DoubleTask) => Json) => {
    if (indexUid.endsWith("-full")) {
      return c.json(
        errorBody("No space left on the device to store the task.", "no_space_left_on_device", "system"),
        500,
      );
    }
    const task: DoubleTask = {
      uid: tasks.length,
      batchUid: null,
      indexUid,
      status: "enqueued",
      type,
      canceledBy: null,
      details,
      error: null,
      duration: null,
      enqueuedAt: new Date().toISOString(),
      startedAt: null,
      finishedAt: null,
    };
    tasks.push(task);
    queue = queue
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => slow(indexUid))
      .then(() => {
        task.status = "processing";
        task.batchUid = batches++;
        task.startedAt = new Date().toISOString();
        try {
          task.details = { ...task.details, ...work(task) };
          task.status = "succeeded";
        } catch (error) {
          if (!(error instanceof Failure)) throw error;
          task.status = "failed";
          task.error = error.body;
          if ("indexedDocuments" in task.details) task.details.indexedDocuments = 0;
          if ("deletedDocuments" in task.details) task.details.deletedDocuments = 0;
        }
        task.finishedAt = new Date().toISOString();
        task.duration = "PT0.001S";
      });
    return c.json(
      { taskUid: task.uid, indexUid, status: "enqueued", type, enqueuedAt: task.enqueuedAt },
      202,
    );
  };
  const existing = (uid: string): DoubleIndex => {
    const index = indexes.get(uid);
    if (index === undefined) throw new Failure(`Index \`${uid}\` not found.`, "index_not_found");
    return index;
  };
  const create = (uid: string, primaryKey: string | null): DoubleIndex => {
    const at = new Date().toISOString();
    const index = { uid, primaryKey, createdAt: at, updatedAt: at, documents: new Map(), settings: {} };
    indexes.set(uid, index);
    return index;
  };
  const documentIdOf = (value: unknown): string | null => {
    if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
    return typeof value === "string" && DOC_ID.test(value) ? value : null;
  };
  /** `POST` (replace) and `PUT` (merge) of documents, with milli's primary key rules. */
  const documentsWrite = (
    c: C,
    uid: string,
    docs: Json[],
    primaryKeyParam: string | undefined,
    merge: boolean,
  ) =>
    enqueue(
      c,
      uid,
      "documentAdditionOrUpdate",
      { receivedDocuments: docs.length, indexedDocuments: null },
      () => {
        const index = indexes.get(uid);
        let primaryKey = index?.primaryKey ?? null;
        if (primaryKeyParam !== undefined) {
          // milli refuses another primary key once the index holds documents.
          if (primaryKey !== null && primaryKey !== primaryKeyParam && (index?.documents.size ?? 0) > 0) {
            throw new Failure(
              `Index already has a primary key: \`${primaryKey}\`.`,
              "index_primary_key_already_exists",
            );
          }
          primaryKey = primaryKeyParam;
        }
        if (primaryKey === null && docs.length > 0) {
          const candidates = Object.keys(docs[0] as Json)
            .filter((key) => key.toLowerCase().endsWith("id"))
            .sort();
          if (candidates.length === 0) {
            throw new Failure(
              "The primary key inference failed as the engine did not find any field ending with `id` in its name. Please specify the primary key manually using the `primaryKey` query parameter.",
              "index_primary_key_no_candidate_found",
            );
          }
          if (candidates.length > 1) {
            throw new Failure(
              `The primary key inference failed as the engine found ${candidates.length} fields ending with \`id\` in their names: '${candidates.join("' and '")}'. Please specify the primary key manually using the \`primaryKey\` query parameter.`,
              "index_primary_key_multiple_candidates_found",
            );
          }
          primaryKey = candidates[0] as string;
        }
        const ids = docs.map((doc) => {
          if (primaryKey === null || !Object.hasOwn(doc, primaryKey)) {
            throw new Failure(
              `Document doesn't have a \`${primaryKey}\` attribute: \`${JSON.stringify(doc)}\`.`,
              "missing_document_id",
            );
          }
          const id = documentIdOf(doc[primaryKey]);
          if (id === null) {
            throw new Failure(
              `Document identifier \`${JSON.stringify(doc[primaryKey])}\` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.`,
              "invalid_document_id",
            );
          }
          return id;
        });
        const target = index ?? create(uid, primaryKey);
        target.primaryKey = primaryKey;
        docs.forEach((doc, i) => {
          const id = ids[i] as string;
          const before = merge ? target.documents.get(id) : undefined;
          target.documents.set(id, { ...(before ?? {}), ...doc });
        });
        target.updatedAt = new Date().toISOString();
        return { indexedDocuments: docs.length };
      },
    );
  const readArray = async (c: C): Promise<Json[] | Response> => {
    const body = await c.req.json().catch(() => undefined);
    if (
      !Array.isArray(body) ||
      !body.every((d) => typeof d === "object" && d !== null && !Array.isArray(d))
    ) {
      return c.json(
        errorBody(
          "The `json` payload provided is malformed. `Couldn't serialize document value`.",
          "malformed_payload",
          "invalid_request",
        ),
        400,
      );
    }
    return body as Json[];
  };

  // An index created through the management routes (and not named for a canned answer) is searched
  // over its own documents, as Meilisearch would at its simplest: every query word (or one of its
  // synonyms, from the index's `synonyms` setting) must be a word of some string field, the last one
  // as a prefix; stop words are dropped. Enough to see documents and settings reach search.
  app.post("/indexes/:uid/search", async (c, next) => {
    const uid = c.req.param("uid");
    const index = indexes.get(uid);
    if (index === undefined || CANNED.test(uid)) return next();
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const body = ((await c.req.json().catch(() => ({}))) ?? {}) as Json;
    const words = (s: string) =>
      s
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w !== "");
    const stop = new Set((index.settings.stopWords as string[] | undefined) ?? []);
    const synonyms = (index.settings.synonyms as Record<string, string[]> | undefined) ?? {};
    const query = words(typeof body.q === "string" ? body.q : "").filter((w) => !stop.has(w));
    const hits = [...index.documents.values()].filter((doc) => {
      const text = Object.values(doc).flatMap((v) =>
        typeof v === "string"
          ? words(v)
          : Array.isArray(v)
            ? v.flatMap((x) => (typeof x === "string" ? words(x) : []))
            : [],
      );
      return query.every((word, i) => {
        const alternatives = [word, ...(synonyms[word] ?? []).flatMap(words)];
        const last = i === query.length - 1;
        return alternatives.some((a) => text.some((t) => (last ? t.startsWith(a) : t === a)));
      });
    });
    const limit = typeof body.limit === "number" ? body.limit : 20;
    const offset = typeof body.offset === "number" ? body.offset : 0;
    const filterable = (index.settings.filterableAttributes as string[] | undefined) ?? [];
    let facetDistribution: Record<string, Record<string, number>> | undefined;
    if (Array.isArray(body.facets)) {
      facetDistribution = {};
      for (const facet of body.facets as string[]) {
        if (!filterable.includes(facet)) {
          return c.json(
            errorBody(
              `Invalid facet distribution, attribute \`${facet}\` is not filterable. The available filterable attributes are \`${filterable.join(", ")}\`.`,
              "invalid_search_facets",
              "invalid_request",
            ),
            400,
          );
        }
        const counts: Record<string, number> = {};
        for (const doc of hits)
          for (const value of valuesOf(doc[facet])) counts[value] = (counts[value] ?? 0) + 1;
        facetDistribution[facet] = counts;
      }
    }
    return c.json({
      hits: hits.slice(offset, offset + limit),
      query: body.q ?? "",
      processingTimeMs: 0,
      limit,
      offset,
      estimatedTotalHits: hits.length,
      ...(facetDistribution === undefined ? {} : { facetDistribution }),
    });
  });

  // Facet search (https://www.meilisearch.com/docs/reference/api/facet_search): the string values
  // of a filterable attribute among the documents `q` selects (as the search above selects them),
  // those whose lower-cased form starts with `facetQuery` give or take Meilisearch's default typos
  // (one from 5 characters, two from 9), alphabetically, at most 100.
  app.post("/indexes/:uid/facet-search", async (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    const index = indexes.get(uid);
    // A `*-products` index: its canned documents, filterable on id and tags, every one selected.
    const canned = index === undefined && uid.endsWith("-products");
    if (index === undefined && !canned) return notFound(c, uid);
    const body = ((await c.req.json().catch(() => ({}))) ?? {}) as Json;
    if (typeof body.facetName !== "string") {
      return c.json(
        errorBody("Missing field `facetName`", "missing_facet_search_facet_name", "invalid_request"),
        400,
      );
    }
    const filterable =
      index === undefined
        ? ["id", "tags"]
        : ((index.settings.filterableAttributes as string[] | undefined) ?? []);
    if (!filterable.includes(body.facetName)) {
      return c.json(
        errorBody(
          `Attribute \`${body.facetName}\` is not filterable. Available filterable attributes are: \`${filterable.join(", ")}\`.`,
          "invalid_facet_search_facet_name",
          "invalid_request",
        ),
        400,
      );
    }
    const docs =
      index === undefined
        ? PRODUCTS
        : (
            (await (
              await app.request(`/indexes/${uid}/search`, {
                method: "POST",
                headers: {
                  authorization: c.req.header("authorization") ?? "",
                  "content-type": "application/json",
                },
                body: JSON.stringify({ q: body.q ?? "", limit: index.documents.size }),
              })
            ).json()) as { hits: Json[] }
          ).hits;
    const counts = new Map<string, { value: string; count: number }>();
    for (const doc of docs) {
      for (const value of new Set(valuesOf(doc[body.facetName]))) {
        const key = value.toLowerCase();
        const entry = counts.get(key) ?? { value, count: 0 };
        entry.count++;
        counts.set(key, entry);
      }
    }
    const query = typeof body.facetQuery === "string" ? body.facetQuery.toLowerCase() : "";
    const typos = query.length >= 9 ? 2 : query.length >= 5 ? 1 : 0;
    const facetHits = [...counts.entries()]
      .filter(([key]) => query === "" || startsWithin(key, query, typos))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, 100)
      .map(([, hit]) => hit);
    return c.json({ facetHits, facetQuery: body.facetQuery ?? null, processingTimeMs: 0 });
  });

  app.get("/health", (c) => c.json({ status: "available" }));
  app.get("/version", (c) => {
    return (
      authFailure(c) ??
      c.json({ commitSha: "double", commitDate: "2026-01-01T00:00:00Z", pkgVersion: "1.15.0" })
    );
  });
  app.get("/stolen/*", (c) => authFailure(c) ?? c.json({ stolen: true }));

  app.post("/indexes", async (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const body = (await c.req.json().catch(() => ({}))) as Json;
    if (typeof body.uid !== "string") {
      return c.json(errorBody("Missing field `uid`", "missing_index_uid", "invalid_request"), 400);
    }
    const uid = body.uid;
    if (!UID.test(uid)) return invalidUid(c, uid);
    const primaryKey = typeof body.primaryKey === "string" ? body.primaryKey : null;
    return enqueue(c, uid, "indexCreation", { primaryKey }, () => {
      if (indexes.has(uid)) throw new Failure(`Index \`${uid}\` already exists.`, "index_already_exists");
      create(uid, primaryKey);
      return {};
    });
  });

  app.get("/indexes", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const offset = Number(c.req.query("offset") ?? 0);
    const limit = Number(c.req.query("limit") ?? 20);
    const all = [...indexes.values()].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    return c.json({ results: all.slice(offset, offset + limit).map(info), offset, limit, total: all.length });
  });

  app.get("/indexes/:uid", async (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    if (uid.endsWith("-moved")) return c.redirect(`/stolen/${uid}`, 308);
    await slow(uid);
    if (!UID.test(uid)) return invalidUid(c, uid);
    const index = indexes.get(uid);
    return index === undefined ? notFound(c, uid) : c.json(info(index));
  });

  app.delete("/indexes/:uid", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    if (!UID.test(uid)) return invalidUid(c, uid);
    return enqueue(c, uid, "indexDeletion", { deletedDocuments: null }, () => {
      const index = existing(uid);
      indexes.delete(uid);
      return { deletedDocuments: index.documents.size };
    });
  });

  for (const method of ["post", "put"] as const) {
    app[method]("/indexes/:uid/documents", async (c) => {
      const denied = authFailure(c);
      if (denied !== null) return denied;
      const uid = c.req.param("uid");
      if (!UID.test(uid)) return invalidUid(c, uid);
      const docs = await readArray(c);
      if (docs instanceof Response) return docs;
      return documentsWrite(c, uid, docs, c.req.query("primaryKey"), method === "put");
    });
  }

  // Meilisearch answers documents in its internal order (the order they were first added): a Map's.
  app.get("/indexes/:uid/documents", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    const index = indexes.get(uid);
    if (index === undefined) return notFound(c, uid);
    const offset = Number(c.req.query("offset") ?? 0);
    const limit = Number(c.req.query("limit") ?? 20);
    const all = [...index.documents.values()];
    return c.json({ results: all.slice(offset, offset + limit), offset, limit, total: all.length });
  });

  app.delete("/indexes/:uid/documents", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    return enqueue(
      c,
      uid,
      "documentDeletion",
      { providedIds: 0, deletedDocuments: null, originalFilter: null },
      () => {
        const index = existing(uid);
        const deletedDocuments = index.documents.size;
        index.documents.clear();
        return { deletedDocuments };
      },
    );
  });

  app.post("/indexes/:uid/documents/delete-batch", async (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    const ids = await c.req.json().catch(() => undefined);
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string" || typeof id === "number")) {
      return c.json(
        errorBody(
          "Json deserialize error: invalid type: expected a sequence",
          "bad_request",
          "invalid_request",
        ),
        400,
      );
    }
    return enqueue(
      c,
      uid,
      "documentDeletion",
      { providedIds: ids.length, deletedDocuments: null, originalFilter: null },
      () => {
        const index = existing(uid);
        let deletedDocuments = 0;
        for (const id of new Set(ids.map(String))) if (index.documents.delete(id)) deletedDocuments++;
        index.updatedAt = new Date().toISOString();
        return { deletedDocuments };
      },
    );
  });

  app.get("/indexes/:uid/documents/:id", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    const index = indexes.get(uid);
    if (index === undefined) return notFound(c, uid);
    const id = c.req.param("id");
    const doc = index.documents.get(id);
    if (doc === undefined) {
      return c.json(errorBody(`Document \`${id}\` not found.`, "document_not_found", "invalid_request"), 404);
    }
    const fields = c.req.query("fields");
    if (fields === undefined || fields === "*") return c.json(doc);
    const wanted = new Set(fields.split(","));
    return c.json(Object.fromEntries(Object.entries(doc).filter(([key]) => wanted.has(key))));
  });

  app.delete("/indexes/:uid/documents/:id", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    const id = c.req.param("id");
    return enqueue(
      c,
      uid,
      "documentDeletion",
      { providedIds: 1, deletedDocuments: null, originalFilter: null },
      () => ({ deletedDocuments: existing(uid).documents.delete(id) ? 1 : 0 }),
    );
  });

  // `GET /tasks`: comma-separated lists (any of), dates strictly before/after, newest first from `from`.
  app.get("/tasks", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const list = (name: string) => c.req.query(name)?.split(",");
    const uids = list("uids")?.map(Number);
    const statuses = list("statuses");
    const types = list("types");
    const indexUids = list("indexUids");
    const limit = Number(c.req.query("limit") ?? 20);
    const from = c.req.query("from") === undefined ? undefined : Number(c.req.query("from"));
    const dates: [string, keyof DoubleTask, 1 | -1][] = [
      ["beforeEnqueuedAt", "enqueuedAt", -1],
      ["afterEnqueuedAt", "enqueuedAt", 1],
      ["beforeStartedAt", "startedAt", -1],
      ["afterStartedAt", "startedAt", 1],
      ["beforeFinishedAt", "finishedAt", -1],
      ["afterFinishedAt", "finishedAt", 1],
    ];
    const matching = tasks
      .filter(
        (t) =>
          (uids === undefined || uids.includes(t.uid)) &&
          (statuses === undefined || statuses.includes(t.status)) &&
          (types === undefined || types.includes(t.type)) &&
          (indexUids === undefined || indexUids.includes(t.indexUid)) &&
          dates.every(([name, field, sign]) => {
            const bound = c.req.query(name);
            if (bound === undefined) return true;
            const value = t[field];
            if (typeof value !== "string") return false;
            const diff = Date.parse(value) - Date.parse(bound);
            return sign === 1 ? diff > 0 : diff < 0;
          }),
      )
      .reverse();
    const paged = matching.filter((t) => from === undefined || t.uid <= from);
    const results = paged.slice(0, limit);
    return c.json({
      results,
      total: matching.length,
      limit,
      from: results[0]?.uid ?? null,
      next: paged[limit]?.uid ?? null,
    });
  });

  app.get("/indexes/:uid/settings", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    const index = indexes.get(uid);
    return index === undefined ? notFound(c, uid) : c.json({ ...SETTINGS_DEFAULTS, ...index.settings });
  });

  app.patch("/indexes/:uid/settings", async (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    if (!UID.test(uid)) return invalidUid(c, uid);
    const body = await c.req.json().catch(() => undefined);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return c.json(
        errorBody("Json deserialize error: expected a map", "bad_request", "invalid_request"),
        400,
      );
    }
    const unknown = Object.keys(body).find((key) => !Object.hasOwn(SETTINGS_DEFAULTS, key));
    if (unknown !== undefined) {
      return c.json(
        errorBody(
          `Unknown field \`${unknown}\`: expected one of ${Object.keys(SETTINGS_DEFAULTS)
            .map((k) => `\`${k}\``)
            .join(", ")}`,
          "bad_request",
          "invalid_request",
        ),
        400,
      );
    }
    return enqueue(c, uid, "settingsUpdate", { ...body }, () => {
      const index = indexes.get(uid) ?? create(uid, null);
      for (const [key, value] of Object.entries(body as Json)) {
        if (value === null) delete index.settings[key];
        else index.settings[key] = value;
      }
      index.updatedAt = new Date().toISOString();
      return {};
    });
  });

  app.get("/indexes/:uid/stats", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const uid = c.req.param("uid");
    const index = indexes.get(uid);
    if (index === undefined) return notFound(c, uid);
    const fieldDistribution: Record<string, number> = {};
    for (const doc of index.documents.values()) {
      for (const key of Object.keys(doc)) fieldDistribution[key] = (fieldDistribution[key] ?? 0) + 1;
    }
    return c.json({
      numberOfDocuments: index.documents.size,
      rawDocumentDbSize: 0,
      avgDocumentSize: 0,
      isIndexing: tasks.some(
        (t) => t.indexUid === uid && (t.status === "enqueued" || t.status === "processing"),
      ),
      numberOfEmbeddings: 0,
      numberOfEmbeddedDocuments: 0,
      fieldDistribution,
    });
  });

  app.get("/tasks/:uid", (c) => {
    const denied = authFailure(c);
    if (denied !== null) return denied;
    const raw = c.req.param("uid");
    const task = /^\d+$/.test(raw) ? tasks[Number(raw)] : undefined;
    if (task === undefined) {
      return c.json(errorBody(`Task \`${raw}\` not found.`, "task_not_found", "invalid_request"), 404);
    }
    return c.json(task);
  });

  return recorded;
}

/** A facet's string values in a document (booleans as Meilisearch keeps them, as strings). */
function valuesOf(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values.filter((v) => typeof v === "string" || typeof v === "boolean").map(String);
}

/** Whether some prefix of `text` is within `typos` edits of `query` (plain Levenshtein). */
function startsWithin(text: string, query: string, typos: number): boolean {
  for (
    let end = Math.max(0, query.length - typos);
    end <= Math.min(text.length, query.length + typos);
    end++
  ) {
    if (levenshtein(text.slice(0, end), query) <= typos) return true;
  }
  return false;
}

function levenshtein(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] as number) + 1,
        (next[j - 1] as number) + 1,
        (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] as number;
}
