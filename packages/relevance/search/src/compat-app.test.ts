// The Meilisearch-compatible surface of the search app, in process: Bearer keys, multi-search,
// health, version, page/hitsPerPage, and Meilisearch's error fields next to ours.
import { clampScore, computeFeaturesV1, loadArtifact, modelKey } from "@relevance/core";
import { beforeEach, describe, expect, it } from "vitest";
import { createSearchApp } from "./app.ts";
import { MAX_MULTI_SEARCH_QUERIES } from "./limits.ts";
import { meilisearchFields } from "./meili-errors.ts";
import {
  artifactText,
  FixedHitsBackend,
  newKv,
  putApiKey,
  putSettings,
  recordingLogger,
} from "./test-support/harness.ts";

const ACCOUNT = "acct_aaaaaaaaaaaa";
const KEY = "rk_key_of_account_a";
const MODEL = `${ACCOUNT}:products:v1`;
const HITS = [
  { id: "1", title: "Red running shoes", tags: ["shoes", "running"] },
  { id: "2", title: "Blue running shorts", tags: ["apparel", "running"] },
  { id: "3", title: "Red socks", tags: ["socks"] },
];

let backend: FixedHitsBackend;
let app: ReturnType<typeof createSearchApp>;

beforeEach(async () => {
  const kv = newKv();
  await putApiKey(kv, KEY, ACCOUNT);
  await putSettings(kv, ACCOUNT, "products", {
    filterable_attributes: ["tags"],
    relevance_trigger_config: { model_id: MODEL, title_field: "title", tags_field: "tags" },
  });
  await putSettings(kv, ACCOUNT, "plain", {});
  await kv.put(modelKey(MODEL), artifactText(MODEL));
  backend = new FixedHitsBackend(HITS, 42);
  app = createSearchApp({ kv, retrieval: backend, log: recordingLogger() });
});

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field.
  body: any;
  headers: Headers;
}

async function call(
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  const res = await app.request(path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const bearer = { authorization: `Bearer ${KEY}` };
const search = (body: unknown, headers: Record<string, string> = bearer) =>
  call("POST", "/api/v1/indexes/products/search", body, headers);
const multi = (body: unknown, headers: Record<string, string> = bearer) =>
  call("POST", "/api/v1/multi-search", body, headers);

function expectMeiliError(answer: Answer, status: number, code: string, type: string): void {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({
    error: { code: expect.any(String), message: answer.body.message },
    message: expect.any(String),
    code,
    type,
    link: `https://docs.meilisearch.com/errors#${code}`,
  });
}

describe("authentication as Meilisearch clients send it", () => {
  it("accepts the key as Authorization: Bearer as well as x-api-key", async () => {
    expect((await search({ q: "red" })).status).toBe(200);
    expect((await search({ q: "red" }, { "x-api-key": KEY })).status).toBe(200);
    expect((await search({ q: "red" }, { authorization: `bearer ${KEY}` })).status).toBe(200);
  });

  it("answers 401 missing_authorization_header without a key and invalid_api_key with a wrong one", async () => {
    const none = await search({ q: "red" }, {});
    expectMeiliError(none, 401, "missing_authorization_header", "auth");
    expect(none.body.error.code).toBe("unauthorized");
    expect(none.headers.get("x-meilisearch-auth-code")).toBeNull();
    expectMeiliError(
      await search({ q: "red" }, { authorization: "Bearer rk_wrong" }),
      401,
      "invalid_api_key",
      "auth",
    );
    expectMeiliError(
      await search({ q: "red" }, { authorization: "Basic abc" }),
      401,
      "missing_authorization_header",
      "auth",
    );
    expect(backend.calls).toEqual([]);
  });

  it("counts wrong Bearer keys in the same throttle as x-api-key (429 with Meilisearch fields)", async () => {
    let last: Answer | undefined;
    for (let i = 0; i < 25; i++) last = await search({ q: "red" }, { authorization: `Bearer rk_guess_${i}` });
    expect(last?.status).toBe(429);
    expect(last?.headers.get("retry-after")).toEqual(expect.any(String));
    expectMeiliError(last as Answer, 429, "too_many_requests", "auth");
  });
});

describe("page and hitsPerPage (exhaustive pagination)", () => {
  it("passes the page to the backend and answers totalHits, totalPages, page and hitsPerPage", async () => {
    const res = await search({ q: "red", page: 2, hitsPerPage: 2 });
    expect(res.status).toBe(200);
    expect(backend.calls[0]?.query).toMatchObject({
      limit: 2,
      offset: 2,
      pagination: { page: 2, hitsPerPage: 2 },
    });
    expect(res.body).toMatchObject({
      hits: [HITS[2]],
      page: 2,
      hitsPerPage: 2,
      totalHits: 42,
      totalPages: 21,
    });
    expect(res.body).not.toHaveProperty("estimatedTotalHits");
    expect(res.body).not.toHaveProperty("limit");
  });

  it("answers only the totals for hitsPerPage 0", async () => {
    const res = await search({ q: "red", hitsPerPage: 0 });
    expect(res.body).toMatchObject({ hits: [], page: 1, hitsPerPage: 0, totalHits: 42, totalPages: 0 });
  });

  it("passes the other Meilisearch parameters to the backend unchanged", async () => {
    const body = {
      q: "red",
      filter: ["tags = shoes", ["tags = socks", "tags = apparel"]],
      sort: ["price:asc"],
      facets: ["tags"],
      attributesToRetrieve: ["id"],
      attributesToHighlight: ["title"],
      highlightPreTag: "<b>",
      highlightPostTag: "</b>",
      attributesToCrop: ["title"],
      cropLength: 3,
      cropMarker: "..",
      showRankingScore: true,
      matchingStrategy: "frequency",
    };
    expect((await search(body)).status).toBe(200);
    const { q: _, ...rest } = body;
    expect(backend.calls[0]?.query).toEqual({ q: "red", limit: 20, offset: 0, ...rest });
  });
});

describe("POST /api/v1/multi-search", () => {
  it("answers one result per query, each with its indexUid and its own relevanceScore when asked", async () => {
    const res = await multi({
      queries: [
        { indexUid: "products", q: "red shoes", limit: 2, relevanceScore: true },
        { indexUid: "plain", q: "socks" },
        { indexUid: "products", q: "red", page: 1, hitsPerPage: 1 },
      ],
    });
    expect(res.status).toBe(200);
    const [first, second, third] = res.body.results;
    expect(first).toMatchObject({ indexUid: "products", hits: HITS.slice(0, 2), estimatedTotalHits: 42 });
    const loaded = loadArtifact(artifactText(MODEL));
    if (!loaded.ok) throw new Error("fixture");
    const features = computeFeaturesV1({
      query: "red shoes",
      hits: HITS.slice(0, 2),
      estimatedTotalHits: 42,
      titleField: "title",
      tagsField: "tags",
    });
    expect(first.relevanceScore).toBe(clampScore(loaded.value.model.predictV1(features)));
    expect(second).toMatchObject({ indexUid: "plain", query: "socks" });
    expect(second).not.toHaveProperty("relevanceScore");
    expect(third).toMatchObject({ indexUid: "products", totalHits: 42, page: 1 });
    expect(res.headers.get("x-relevance-model")).toBeNull();
    expect(backend.calls.map((c) => c.target.index)).toEqual(["products", "plain", "products"]);
  });

  it(`refuses more than ${MAX_MULTI_SEARCH_QUERIES} queries before any search`, async () => {
    const queries = Array.from({ length: MAX_MULTI_SEARCH_QUERIES + 1 }, () => ({
      indexUid: "products",
      q: "red",
    }));
    const res = await multi({ queries });
    expectMeiliError(res, 422, "invalid_multi_search_queries", "invalid_request");
    expect(res.body.error.details[0].path).toBe("queries");
    expect(res.body.message).toContain(String(MAX_MULTI_SEARCH_QUERIES));
    expect(backend.calls).toEqual([]);
    expect((await multi({ queries: queries.slice(1) })).status).toBe(200);
  });

  it("checks every query before running any, naming the query and field", async () => {
    const res = await multi({
      queries: [
        { indexUid: "products", q: "red" },
        { indexUid: "products", q: "red", limit: 1001 },
        { q: "red" },
      ],
    });
    expectMeiliError(res, 422, "invalid_search_limit", "invalid_request");
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      "queries[1].limit",
      "queries[2].indexUid",
    ]);
    expect(backend.calls).toEqual([]);
  });

  it("refuses a body without queries and unknown top-level fields (federation is not supported)", async () => {
    expectMeiliError(await multi({}), 422, "invalid_multi_search_queries", "invalid_request");
    expectMeiliError(await multi({ queries: [], federation: {} }), 422, "bad_request", "invalid_request");
  });

  it("says which query named a missing index", async () => {
    const res = await multi({
      queries: [
        { indexUid: "products", q: "red" },
        { indexUid: "nothere", q: "red" },
      ],
    });
    expectMeiliError(res, 404, "index_not_found", "invalid_request");
    expect(res.body.message).toBe("Inside `.queries[1]`: index not found");
  });

  it("needs a key", async () => {
    expectMeiliError(await multi({ queries: [] }, {}), 401, "missing_authorization_header", "auth");
  });
});

describe("health and version", () => {
  it("answers GET /api/v1/health without a key", async () => {
    const res = await call("GET", "/api/v1/health", undefined, {});
    expect([res.status, res.body]).toEqual([200, { status: "available" }]);
  });

  it("answers GET /api/v1/version to any valid key only", async () => {
    const res = await call("GET", "/api/v1/version", undefined, bearer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      commitSha: expect.any(String),
      commitDate: expect.any(String),
      pkgVersion: "0.1.0",
    });
    expectMeiliError(
      await call("GET", "/api/v1/version", undefined, {}),
      401,
      "missing_authorization_header",
      "auth",
    );
  });
});

describe("Meilisearch's error fields", () => {
  it("answers malformed_payload for a body that is not JSON and payload_too_large above the limit", async () => {
    expectMeiliError(await search("{q: red"), 400, "malformed_payload", "invalid_request");
    const big = await search({ q: "red", filter: "x".repeat(2 * 1024 * 1024) });
    expectMeiliError(big, 413, "payload_too_large", "invalid_request");
  });

  it("answers bad_request for an unknown field and the field's code for a bad value", async () => {
    expectMeiliError(await search({ q: "red", typo: true }), 422, "bad_request", "invalid_request");
    expectMeiliError(await search({ q: 3 }), 422, "invalid_search_q", "invalid_request");
    expectMeiliError(
      await search({ q: "red", sort: ["price"] }),
      422,
      "invalid_search_sort",
      "invalid_request",
    );
    expectMeiliError(
      await search({ q: "red", facets: "tags" }),
      422,
      "invalid_search_facets",
      "invalid_request",
    );
  });

  it("maps our codes to Meilisearch's and keeps the message", () => {
    expect(meilisearchFields(404, "not_found", "index not found", undefined)).toEqual({
      message: "index not found",
      code: "index_not_found",
      type: "invalid_request",
      link: "https://docs.meilisearch.com/errors#index_not_found",
    });
    expect(meilisearchFields(502, "backend_unavailable", "m", undefined).type).toBe("system");
    expect(meilisearchFields(500, "internal", "m", undefined).code).toBe("internal");
    expect(
      meilisearchFields(422, "validation_failed", "m", [
        { path: "queries[3].attributesToCrop[0]", message: "x" },
      ]).code,
    ).toBe("invalid_search_attributes_to_crop");
  });
});
