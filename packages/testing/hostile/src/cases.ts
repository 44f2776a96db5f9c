// The catalogue itself. Limits come from the packages that enforce them (their LimitRow tables), so
// each case sits just beyond the documented bound; the findings of the hostile-input issue are
// replayed as measured (one 100 KB word, 100,000 words, a filter 5,000 parentheses deep, ...).

import { MONITOR_LIMITS } from "@monitor/core";
import { ADMIN_LIMITS } from "@relevance/admin";
import { EVENT_LIMITS, SEARCH_LIMITS } from "@relevance/search";
import { CANARY_CASES } from "./canary-cases.ts";
import type { HostileCase, HostileContext, HostileRequest } from "./catalogue.ts";
import { limitOf, streamedBody } from "./catalogue.ts";
import { KEY_CASES } from "./key-cases.ts";
import { QUALITY_CASES } from "./quality-cases.ts";
import { TRAINING_CASES } from "./training-cases.ts";

const S = (field: string, unit: Parameters<typeof limitOf>[3], status?: Parameters<typeof limitOf>[4]) =>
  limitOf(SEARCH_LIMITS, "search", field, unit, status);
const M = (field: string, unit: Parameters<typeof limitOf>[3]) =>
  limitOf(MONITOR_LIMITS, "monitor", field, unit);
const A = (area: string, field: string, unit: Parameters<typeof limitOf>[3]) =>
  limitOf(ADMIN_LIMITS, area, field, unit);
const MiB = 1024 * 1024;
const both = ["node", "worker"] as const;
const node = ["node"] as const;

const searchPath = (ctx: HostileContext) => `/api/v1/indexes/${ctx.index}/search`;
const searchHeaders = (ctx: HostileContext) => ({
  "content-type": "application/json",
  "x-api-key": ctx.apiKey,
});
const search =
  (body: unknown) =>
  (ctx: HostileContext): HostileRequest[] => [
    { method: "POST", path: searchPath(ctx), headers: searchHeaders(ctx), body: JSON.stringify(body) },
  ];
const searchRaw =
  (body: string | (() => ReadableStream<Uint8Array>)) =>
  (ctx: HostileContext): HostileRequest[] => [
    { method: "POST", path: searchPath(ctx), headers: searchHeaders(ctx), body },
  ];
const facetSearch =
  (body: unknown) =>
  (ctx: HostileContext): HostileRequest[] => [
    {
      method: "POST",
      path: `/api/v1/indexes/${ctx.index}/facet-search`,
      headers: searchHeaders(ctx),
      body: JSON.stringify(body),
    },
  ];
const searchGet =
  (query: string) =>
  (ctx: HostileContext): HostileRequest[] => [
    { method: "GET", path: `${searchPath(ctx)}?${query}`, headers: { "x-api-key": ctx.apiKey } },
  ];
const invalid = (path: string | RegExp) => ({ status: 422, code: "validation_failed", path });
const tooLarge = { status: 413, code: "payload_too_large", path: "body" };
const throttled = { status: 429, code: "too_many_requests", header: "retry-after" };
/** More failed attempts than any per-address budget allows. */
const GUESSES = 25;

const monitorHeaders = (ctx: HostileContext) => ({
  "content-type": "application/json",
  authorization: `Bearer ${ctx.monitorToken}`,
});
const run = (patch: Record<string, unknown> = {}) => ({
  collector: "hostile_job",
  cloud_account_id: "111111111111",
  cloud_region: "eu-west-1",
  started_at: "2026-01-01T00:00:00.000Z",
  completed_at: "2026-01-01T00:00:01.000Z",
  status: "succeeded",
  events_produced: 1,
  rows_inserted: 1,
  ...patch,
});
const runs =
  (body: unknown) =>
  (ctx: HostileContext): HostileRequest[] => [
    { method: "POST", path: "/api/system/runs", headers: monitorHeaders(ctx), body: JSON.stringify(body) },
  ];

/** Search: the proxy on Node and in the Worker. */
const SEARCH_CASES: HostileCase[] = [
  {
    id: "search-one-100kb-word",
    proves: "finding: a search with one 100 KB word (was 10 GB RSS and 13 s)",
    surfaces: both,
    requests: search({ q: "a".repeat(100 * 1024) }),
    expect: invalid("q"),
  },
  {
    id: "search-100000-words",
    proves: "finding: a search with 100,000 words (was 35 s frozen)",
    surfaces: both,
    requests: search({ q: "ab ".repeat(100_000) }),
    expect: invalid("q"),
  },
  {
    id: "search-q-over-limit",
    proves: "limit: search q characters",
    surfaces: both,
    requests: search({ q: "x".repeat(S("q", "characters", 422) + 1) }),
    expect: invalid("q"),
  },
  {
    id: "search-long-words-within-limit",
    proves: "limit: words used and longest expanded word (answered, matched exactly, cheap)",
    surfaces: both,
    requests: search({
      // More words than are used, each longer than any word that is expanded, within the q limit.
      q: Array.from(
        { length: S("q", "words") + 4 },
        (_, i) => `${String.fromCharCode(97 + i)}${"z".repeat(S("q", "characters", 0) + 1)}`,
      )
        .join(" ")
        .slice(0, S("q", "characters", 422)),
    }),
    expect: { status: 200 },
  },
  {
    id: "search-limit-over-range",
    proves: "limit: search limit",
    surfaces: both,
    requests: search({ q: "chair", limit: S("limit", "items") + 1 }),
    expect: invalid("limit"),
  },
  {
    id: "search-offset-over-range",
    proves: "limit: search offset",
    surfaces: both,
    requests: search({ q: "chair", offset: S("offset", "items") + 1 }),
    expect: invalid("offset"),
  },
  {
    id: "search-filter-5000-deep",
    proves: "finding: a filter nested 5,000 parentheses deep (was 500)",
    surfaces: both,
    requests: search({ q: "chair", filter: `${"(".repeat(5000)}price > 1${")".repeat(5000)}` }),
    expect: invalid("filter"),
  },
  {
    id: "search-filter-depth",
    proves: "limit: search filter nesting",
    surfaces: both,
    requests: search({
      q: "chair",
      filter: `${"(".repeat(S("filter", "levels") + 1)}price > 1${")".repeat(S("filter", "levels") + 1)}`,
    }),
    expect: invalid("filter"),
  },
  {
    id: "search-filter-not-chain",
    proves: "limit: search filter nesting (chained NOT)",
    surfaces: both,
    requests: search({ q: "chair", filter: `${"NOT ".repeat(S("filter", "levels") + 1)}price > 1` }),
    expect: invalid("filter"),
  },
  {
    id: "search-filter-over-length",
    proves: "limit: search filter characters",
    surfaces: both,
    requests: search({
      q: "chair",
      filter: "price > 1 OR ".repeat(S("filter", "characters")).slice(0, S("filter", "characters") + 1),
    }),
    expect: invalid("filter"),
  },
  {
    id: "search-body-declared-too-large",
    proves: "limit: search body (Content-Length)",
    surfaces: both,
    requests: searchRaw(JSON.stringify({ q: "chair", pad: "x".repeat(2 * MiB) })),
    expect: tooLarge,
  },
  {
    id: "search-body-chunked-too-large",
    proves: "limit: search body (chunked, counted while reading)",
    surfaces: both,
    requests: searchRaw(streamedBody(64 * MiB, '{"q":"')),
    expect: tooLarge,
  },
  {
    id: "search-proto-key",
    proves: "limit: keys named __proto__ in a search body",
    surfaces: both,
    requests: searchRaw('{"q":"chair","__proto__":{"limit":5}}'),
    expect: invalid("__proto__"),
  },
  {
    id: "search-deep-json",
    proves: "limit: JSON nesting of a search body",
    surfaces: both,
    requests: searchRaw(`{"q":"chair","filter":${"[".repeat(10_000)}${"]".repeat(10_000)}}`),
    expect: { status: 422, code: "validation_failed" },
  },
  {
    id: "search-not-json",
    proves: "a body that is not JSON",
    surfaces: both,
    requests: searchRaw('{"q": "chair"'),
    expect: { status: 400, code: "invalid_json" },
  },
  // Meilisearch-compatible search parameters.
  {
    id: "search-page-over-range",
    proves: "limit: search page",
    surfaces: both,
    requests: search({ q: "chair", page: S("page", "items") + 1 }),
    expect: invalid("page"),
  },
  {
    id: "search-hits-per-page-over-range",
    proves: "limit: search hitsPerPage",
    surfaces: both,
    requests: search({ q: "chair", hitsPerPage: S("hitsPerPage", "items") + 1 }),
    expect: invalid("hitsPerPage"),
  },
  {
    id: "search-sort-too-many",
    proves: "limit: search sort criteria",
    surfaces: both,
    requests: search({
      q: "chair",
      sort: Array.from({ length: S("sort", "items") + 1 }, (_, i) => `price${i}:asc`),
    }),
    expect: invalid("sort"),
  },
  {
    id: "search-facets-too-many",
    proves: "limit: search facets",
    surfaces: both,
    requests: search({
      q: "chair",
      facets: Array.from({ length: S("facets", "items") + 1 }, (_, i) => `f${i}`),
    }),
    expect: invalid("facets"),
  },
  {
    id: "search-attributes-to-retrieve-too-many",
    proves: "limit: search attribute lists",
    surfaces: both,
    requests: search({
      q: "chair",
      attributesToHighlight: Array(S("attributesToRetrieve", "items") + 1).fill("title"),
    }),
    expect: invalid("attributesToHighlight"),
  },
  {
    id: "search-attribute-name-too-long",
    proves: "limit: search attribute names",
    surfaces: both,
    requests: search({ q: "chair", facets: ["a".repeat(S("attribute names", "characters") + 1)] }),
    expect: invalid("facets[0]"),
  },
  {
    id: "search-highlight-tag-too-long",
    proves: "limit: search highlight tags and crop marker",
    surfaces: both,
    requests: search({ q: "chair", highlightPostTag: "<".repeat(S("highlightPreTag", "characters") + 1) }),
    expect: invalid("highlightPostTag"),
  },
  {
    id: "search-crop-length-over-range",
    proves: "limit: search cropLength",
    surfaces: both,
    requests: search({ q: "chair", attributesToCrop: ["title"], cropLength: S("cropLength", "words") + 1 }),
    expect: invalid("cropLength"),
  },
  {
    id: "search-filter-array-too-many",
    proves: "limit: search array filter expressions",
    surfaces: both,
    requests: search({ q: "chair", filter: [Array(S("filter", "items") + 1).fill("price > 1")] }),
    expect: invalid("filter"),
  },
  {
    id: "multi-search-too-many-queries",
    proves: "limit: multi-search queries",
    surfaces: both,
    requests: (ctx: HostileContext): HostileRequest[] => [
      {
        method: "POST",
        path: "/api/v1/multi-search",
        headers: searchHeaders(ctx),
        body: JSON.stringify({
          queries: Array.from({ length: S("queries", "items") + 1 }, () => ({
            indexUid: ctx.index,
            q: "chair",
          })),
        }),
      },
    ],
    expect: invalid("queries"),
  },
  {
    id: "multi-search-query-over-limit",
    proves: "limit: each multi-search query has the bounds of a search",
    surfaces: both,
    requests: (ctx: HostileContext): HostileRequest[] => [
      {
        method: "POST",
        path: "/api/v1/multi-search",
        headers: searchHeaders(ctx),
        body: JSON.stringify({
          queries: [{ indexUid: ctx.index, q: "x".repeat(S("q", "characters", 422) + 1) }],
        }),
      },
    ],
    expect: invalid("queries[0].q"),
  },
  {
    id: "facet-search-facet-query-over-limit",
    proves: "limit: facet search facetQuery characters",
    surfaces: both,
    requests: facetSearch({ facetName: "tags", facetQuery: "x".repeat(S("facetQuery", "characters") + 1) }),
    expect: invalid("facetQuery"),
  },
  {
    id: "facet-search-facet-name-over-limit",
    proves: "limit: facet search facetName characters",
    surfaces: both,
    requests: facetSearch({ facetName: "x".repeat(S("facetName", "characters") + 1) }),
    expect: invalid("facetName"),
  },
  {
    id: "search-get-query-string-over-limit",
    proves: "limit: GET search query string characters (a platform in front may refuse it first: 414)",
    surfaces: both,
    requests: searchGet(`q=${"x".repeat(S("query string", "characters"))}`),
    expect: { status: [422, 414] },
  },
  {
    id: "search-get-parameters-over-limit",
    proves: "limit: GET search query string parameters",
    surfaces: both,
    requests: searchGet(
      Array.from({ length: S("query string", "items") + 1 }, (_, i) => `p${i}=1`).join("&"),
    ),
    expect: invalid("query string"),
  },
];

/** Routes nobody serves, and methods a route does not take. */
const ROUTE_CASES: HostileCase[] = [
  {
    id: "unknown-route",
    proves: "finding: unknown routes answered plain-text 404 on Node",
    surfaces: both,
    requests: () => [{ method: "GET", path: "/api/v1/no-such-route", headers: {} }],
    expect: { status: 404, code: "not_found" },
  },
  {
    id: "wrong-method-search",
    proves: "wrong method on the search route: JSON 405 with Allow",
    surfaces: both,
    requests: (ctx) => [{ method: "PUT", path: searchPath(ctx), headers: { "x-api-key": ctx.apiKey } }],
    expect: { status: 405, code: "method_not_allowed", header: "allow" },
  },
  {
    id: "headers-too-large",
    proves: "request headers over Node's 16 KiB: JSON 431, not Node's plain answer",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "GET",
        path: `/api/v1/indexes/${ctx.index}`,
        headers: { "x-api-key": ctx.apiKey, "x-pad": "p".repeat(20_000) },
      },
    ],
    expect: { status: 431, code: "headers_too_large" },
  },
  {
    id: "malformed-header",
    proves: "a request Node's parser refuses: JSON 400",
    surfaces: node,
    requests: (ctx) => [
      { method: "GET", path: `/api/v1/indexes/${ctx.index}`, headers: { "x bad header": "1" } },
    ],
    expect: { status: 400, code: "bad_request" },
  },
  {
    id: "wrong-method-monitor",
    proves: "wrong method on a monitor route: JSON 405",
    surfaces: node,
    requests: (ctx) => [{ method: "DELETE", path: "/api/system/status", headers: monitorHeaders(ctx) }],
    expect: { status: 405, code: "method_not_allowed", header: "allow" },
  },
];

/** The monitor's ingest API (Node; on AWS the same app runs in the status Lambda). */
const MONITOR_CASES: HostileCase[] = [
  {
    id: "monitor-batch-too-big",
    proves: "limit: run records per POST",
    surfaces: node,
    requests: runs(Array.from({ length: M("body", "items") + 1 }, () => run())),
    expect: { status: 422, code: "validation_failed" },
  },
  {
    id: "monitor-collector-name",
    proves: "limit: collector name",
    surfaces: node,
    requests: runs([run({ collector: "c".repeat(M("collector", "characters") + 1) })]),
    expect: invalid(/collector$/),
  },
  {
    id: "monitor-account-id",
    proves: "limit: cloud account id",
    surfaces: node,
    requests: runs([run({ cloud_account_id: "1".repeat(M("cloud_account_id", "characters") + 1) })]),
    expect: invalid(/cloud_account_id$/),
  },
  {
    id: "monitor-region",
    proves: "limit: cloud region",
    surfaces: node,
    requests: runs([run({ cloud_region: "r".repeat(M("cloud_region", "characters") + 1) })]),
    expect: invalid(/cloud_region$/),
  },
  {
    id: "monitor-error-text",
    proves: "limit: a run's error text",
    surfaces: node,
    requests: runs([run({ status: "failed", error: "e".repeat(M("error", "characters") + 1) })]),
    expect: invalid(/error$/),
  },
  {
    id: "monitor-proto-key",
    proves: "limit: keys named __proto__ in a run record",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "POST",
        path: "/api/system/runs",
        headers: monitorHeaders(ctx),
        body: `[${JSON.stringify(run()).slice(0, -1)},"__proto__":{"status":"succeeded"}}]`,
      },
    ],
    expect: invalid(/__proto__$/),
  },
  {
    id: "monitor-body-too-large",
    proves: "limit: monitor body",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "POST",
        path: "/api/system/runs",
        headers: monitorHeaders(ctx),
        body: streamedBody(64 * MiB, "["),
      },
    ],
    expect: tooLarge,
  },
  {
    id: "monitor-silence-regex-cost",
    proves: "finding: a silence regex of seven bounded quantifiers (backtracking paths)",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "POST",
        path: "/api/system/silences",
        headers: monitorHeaders(ctx),
        body: JSON.stringify({
          matchers: { subject: { op: "regex", value: "[a-z0-9_/]{1,9999}".repeat(7) } },
          author: "hostile",
          reason: "a regex whose test on one subject takes seconds",
          ends_at: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      },
    ],
    expect: invalid("matchers.subject.value"),
  },
];

const adminHeaders = (ctx: HostileContext) => ({
  "content-type": "application/json",
  authorization: `Bearer ${ctx.adminToken}`,
});
const customer =
  (
    method: string,
    path: (ctx: HostileContext) => string,
    body: string | (() => ReadableStream<Uint8Array>),
  ) =>
  (ctx: HostileContext): HostileRequest[] => [{ method, path: path(ctx), headers: searchHeaders(ctx), body }];
const settingsPath = (ctx: HostileContext) => `/api/v1/indexes/${ctx.index}/settings`;
const documentsPath = (ctx: HostileContext) => `/api/v1/indexes/${ctx.index}/documents`;

/** The admin API and the customer API (Node here; on AWS the admin app runs on Lambda). */
const API_CASES: HostileCase[] = [
  {
    id: "admin-body-256mb",
    proves: "finding: admin write bodies read whole into memory (256 MB accepted)",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "POST",
        path: "/api/v1/admin/accounts",
        headers: adminHeaders(ctx),
        body: streamedBody(256 * MiB, '{"name":"'),
      },
    ],
    expect: tooLarge,
  },
  {
    id: "admin-body-declared",
    proves: "limit: admin body (Content-Length)",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "POST",
        path: "/api/v1/admin/accounts",
        headers: adminHeaders(ctx),
        body: JSON.stringify({ name: "x".repeat(A("admin", "body", "bytes")) }),
      },
    ],
    expect: tooLarge,
  },
  {
    id: "admin-account-name",
    proves: "limit: admin account name",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "POST",
        path: "/api/v1/admin/accounts",
        headers: adminHeaders(ctx),
        body: JSON.stringify({ name: "n".repeat(A("admin", "name", "characters") + 1) }),
      },
    ],
    expect: invalid("name"),
  },
  {
    id: "admin-config-model-id",
    proves: "limit: relevanceTriggerConfig.modelId",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "PUT",
        path: `/api/v1/admin/accounts/${ctx.account}/indexes/${ctx.index}/relevance-trigger-config`,
        headers: adminHeaders(ctx),
        body: JSON.stringify({
          relevanceTriggerConfig: {
            modelId: `${ctx.account}:${ctx.index}:v${"9".repeat(A("admin", "relevanceTriggerConfig.modelId", "characters"))}`,
            titleField: "title",
            tagsField: null,
          },
        }),
      },
    ],
    expect: invalid(/modelId$/),
  },
  {
    id: "admin-shadow-config-model-id",
    proves: "limit: relevanceShadowConfig.modelId",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "PUT",
        path: `/api/v1/admin/accounts/${ctx.account}/indexes/${ctx.index}/relevance-shadow-config`,
        headers: adminHeaders(ctx),
        body: JSON.stringify({
          relevanceShadowConfig: {
            modelId: `${ctx.account}:${ctx.index}:v${"9".repeat(A("admin", "relevanceShadowConfig.modelId", "characters"))}`,
            sampleRate: 1,
          },
        }),
      },
    ],
    expect: invalid(/modelId$/),
  },
  {
    id: "admin-config-proto",
    proves: "limit: keys named __proto__ in the admin config body",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "PUT",
        path: `/api/v1/admin/accounts/${ctx.account}/indexes/${ctx.index}/relevance-trigger-config`,
        headers: adminHeaders(ctx),
        body: '{"relevanceTriggerConfig":{"modelId":"a:b:v1","titleField":null,"tagsField":null,"__proto__":{"x":1}}}',
      },
    ],
    expect: invalid(/__proto__$/),
  },
  {
    id: "customer-synonyms-10mb",
    proves: "finding: 10 MB of synonyms stored",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "PATCH",
        path: settingsPath(ctx),
        headers: searchHeaders(ctx),
        // About 10 MB of synonyms, made when sent.
        body: () =>
          new Response(
            `{"synonyms":{${Array.from({ length: 460_000 }, (_, i) => `"w${i}":["s${i}","t${i}"]`).join(",")}}}`,
          ).body as ReadableStream<Uint8Array>,
      },
    ],
    expect: tooLarge,
  },
  {
    id: "customer-synonym-count",
    proves: "limit: number of synonyms",
    surfaces: node,
    requests: customer(
      "PATCH",
      settingsPath,
      JSON.stringify({
        synonyms: Object.fromEntries(
          Array.from({ length: A("customer settings", "synonyms", "items") + 1 }, (_, i) => [`w${i}`, ["x"]]),
        ),
      }),
    ),
    expect: invalid("synonyms"),
  },
  {
    id: "customer-words-per-synonym",
    proves: "limit: words per synonym",
    surfaces: node,
    requests: customer(
      "PATCH",
      settingsPath,
      JSON.stringify({
        synonyms: {
          sofa: Array.from(
            { length: A("customer settings", "synonyms.<word>", "words") + 1 },
            (_, i) => `s${i}`,
          ),
        },
      }),
    ),
    expect: invalid("synonyms.sofa"),
  },
  {
    id: "customer-stop-words",
    proves: "limit: stop words",
    surfaces: node,
    requests: customer(
      "PATCH",
      settingsPath,
      JSON.stringify({
        stopWords: Array.from(
          { length: A("customer settings", "stopWords", "words") + 1 },
          (_, i) => `w${i}`,
        ),
      }),
    ),
    expect: invalid("stopWords"),
  },
  {
    id: "customer-attribute-name",
    proves: "limit: a searchable attribute's name",
    surfaces: node,
    requests: customer(
      "PATCH",
      settingsPath,
      JSON.stringify({
        searchableAttributes: [
          "a".repeat(A("customer settings", "searchableAttributes[]", "characters") + 1),
        ],
      }),
    ),
    expect: invalid(/^searchableAttributes\[0\]$/),
  },
  {
    id: "customer-settings-proto",
    proves: "limit: keys named __proto__ in the synonyms map",
    surfaces: node,
    requests: customer("PATCH", settingsPath, '{"synonyms":{"__proto__":["polluted"]}}'),
    expect: invalid("synonyms.__proto__"),
  },
  {
    id: "customer-index-name",
    proves: "limit: index name",
    surfaces: node,
    requests: customer(
      "POST",
      () => "/api/v1/indexes",
      JSON.stringify({ name: "i".repeat(A("customer", "name", "characters") + 1) }),
    ),
    expect: invalid("name"),
  },
  {
    id: "documents-body-too-large",
    proves: "limit: documents body (chunked)",
    surfaces: node,
    requests: customer("POST", documentsPath, streamedBody(64 * MiB, '[{"id":"x","title":"')),
    expect: tooLarge,
  },
  {
    id: "documents-one-over-limit",
    proves: "limit: bytes per document (the document is refused, the rest of the batch kept)",
    surfaces: node,
    requests: customer(
      "POST",
      documentsPath,
      JSON.stringify([
        { id: "big", title: "x".repeat(A("documents", "[i]", "bytes")) },
        { id: "ok-1", title: "Plain Oak Table" },
      ]),
    ),
    expect: { status: 202 },
    check: (answer) => {
      const b = answer.body as { accepted?: number; rejected?: Array<{ id?: unknown }> };
      return b.accepted === 1 && b.rejected?.length === 1 && b.rejected[0]?.id === "big"
        ? null
        : `expected one accepted and "big" rejected, got ${JSON.stringify(b).slice(0, 300)}`;
    },
  },
  {
    id: "documents-proto",
    proves: "limit: keys named __proto__ in a document",
    surfaces: node,
    requests: customer("POST", documentsPath, '[{"id":"p","__proto__":{"isAdmin":true}}]'),
    expect: invalid(/__proto__$/),
  },
  {
    id: "documents-delete-batch-ids",
    proves: "limit: ids per delete-batch (nothing deleted)",
    surfaces: node,
    requests: customer(
      "POST",
      (ctx) => `${documentsPath(ctx)}/delete-batch`,
      JSON.stringify(Array.from({ length: A("documents", "ids", "items") + 1 }, (_, i) => `id-${i}`)),
    ),
    expect: invalid(""),
  },
  {
    id: "documents-fields-count",
    proves: "limit: field names asked for in fields",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "GET",
        path: `${documentsPath(ctx)}?fields=${Array.from({ length: A("documents", "fields", "items") + 1 }, (_, i) => `f${i}`).join(",")}`,
        headers: searchHeaders(ctx),
      },
    ],
    expect: invalid("fields"),
  },
  {
    id: "documents-fields-name",
    proves: "limit: characters of one field name asked for",
    surfaces: node,
    requests: customer(
      "POST",
      (ctx) => `${documentsPath(ctx)}/fetch`,
      JSON.stringify({ fields: ["f".repeat(A("documents", "fields[]", "characters") + 1)] }),
    ),
    expect: invalid("fields[0]"),
  },
  {
    id: "documents-filter-refused",
    proves:
      "a document filter (which the embedded engine cannot honour) is a 422 naming filter, nothing deleted",
    surfaces: node,
    requests: customer("POST", (ctx) => `${documentsPath(ctx)}/delete`, JSON.stringify({ filter: "id > 0" })),
    expect: { status: 422, code: "not_supported", path: "filter" },
  },
  ...(["uids", "statuses", "types", "indexUids"] as const).map(
    (field): HostileCase => ({
      id: `tasks-${field}-count`,
      proves: `limit: values in the GET /tasks ${field} filter`,
      surfaces: node,
      requests: (ctx) => [
        {
          method: "GET",
          path: `/api/v1/tasks?${field}=${Array.from({ length: A("tasks", field, "items") + 1 }, (_, i) =>
            field === "uids"
              ? i
              : field === "statuses"
                ? "failed"
                : field === "types"
                  ? "indexCreation"
                  : `i${i}`,
          ).join(",")}`,
          headers: searchHeaders(ctx),
        },
      ],
      expect: invalid(field),
    }),
  ),
  {
    id: "tasks-limit",
    proves: "limit: GET /tasks page size",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "GET",
        path: `/api/v1/tasks?limit=${A("tasks", "limit", "items") + 1}`,
        headers: searchHeaders(ctx),
      },
    ],
    expect: invalid("limit"),
  },
  {
    id: "settings-unsupported",
    proves: "a Meilisearch setting this API does not support is a 422 naming it",
    surfaces: node,
    requests: customer("PUT", (ctx) => `${settingsPath(ctx)}/distinct-attribute`, JSON.stringify("id")),
    expect: { status: 422, code: "not_supported", path: "distinct-attribute" },
  },
  {
    id: "wrong-method-admin",
    proves: "wrong method on an admin route: JSON 405",
    surfaces: node,
    requests: (ctx) => [{ method: "DELETE", path: "/api/v1/admin/accounts", headers: adminHeaders(ctx) }],
    expect: { status: 405, code: "method_not_allowed", header: "allow" },
  },
  {
    id: "customer-typo-disabled-words",
    proves: "limit: typoTolerance.disableOnWords",
    surfaces: node,
    requests: customer(
      "PATCH",
      settingsPath,
      JSON.stringify({
        typoTolerance: {
          disableOnWords: Array.from(
            { length: A("customer settings", "typoTolerance.disableOnWords", "words") + 1 },
            (_, i) => `w${i}`,
          ),
        },
      }),
    ),
    expect: invalid("typoTolerance.disableOnWords"),
  },
  {
    id: "customer-ranking-rules",
    proves: "limit: rankingRules",
    surfaces: node,
    requests: customer(
      "PATCH",
      settingsPath,
      JSON.stringify({
        rankingRules: Array.from(
          { length: A("customer settings", "rankingRules", "items") + 1 },
          () => "words",
        ),
      }),
    ),
    expect: invalid("rankingRules"),
  },
];

const indexesPath = "/api/v1/indexes";
const searchOf = (index: string) => `/api/v1/indexes/${index}/search`;
const documentsOf = (index: string) => `/api/v1/indexes/${index}/documents`;
/** `category IN [c0, …, c799]`: 3.9 KB, within the filter's 4,096 characters. */
const IN_800 = `category IN [${Array.from({ length: 800 }, (_, i) => `c${i}`).join(",")}]`;
const WORDS = ["oak", "chair", "table", "lamp", "steel", "marble", "rustic", "modern", "sofa", "desk"];
/** `count` small products with a few common words and one of their own. */
const products = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    title: `${WORDS[i % 10]} ${WORDS[(i * 7 + 3) % 10]} item${i}`,
    category: `c${i % 1000}`,
    price: i % 500,
  }));
/** One batch of tiny documents (`{"id":N}`) filling `bytes`: 1.47 million of them in 20 MiB. */
function tinyDocuments(bytes: number): string {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; ; i++) {
    const doc = `{"id":${i}}`;
    if (size + doc.length + 1 > bytes) break;
    parts.push(doc);
    size += doc.length + 1;
  }
  return `[${parts.join(",")}]`;
}
/** A subject regex of seven bounded quantifiers: JavaScript's engine backtracks through every split. */
const SEVEN_QUANTIFIERS = `^${"[a-z0-9_/]{1,9999}".repeat(7)}x$`;
const REGEX_COLLECTOR = "hostile_regex_subject_abcdefghijklmn";

/**
 * One request's cost on the shared event loop: the requests that once held it for seconds, as
 * measured (one tenant's filter, batch, settings or silence freezing every other tenant and the
 * monitor). Each must answer within its bounds; `npm run bench -- hostile` measures how long each
 * holds the event loop.
 */
const CPU_CASES: HostileCase[] = [
  {
    id: "search-filter-in-800-values",
    proves:
      "finding: category IN [c0,…,c799] took 377–417 ms (every document value normalised per list value)",
    surfaces: node,
    requests: search({ q: "", filter: IN_800 }),
    expect: { status: 200 },
  },
  {
    id: "multi-search-10-filters-in-800-values",
    proves: "finding: a multi-search of ten IN [800 values] filters blocked 3.8 s",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "POST",
        path: "/api/v1/multi-search",
        headers: searchHeaders(ctx),
        body: JSON.stringify({
          queries: Array.from({ length: 10 }, () => ({ indexUid: ctx.index, q: "", filter: IN_800 })),
        }),
      },
    ],
    expect: { status: 200 },
  },
  {
    id: "search-90000-unknown-keys",
    proves:
      "finding: a 422 for 90,000 unknown search keys was a 4.6 MB body (now refused before parsing by the keys bound; every error list is at most 100 items)",
    surfaces: both,
    requests: searchRaw(`{"q":"chair",${Array.from({ length: 90_000 }, (_, i) => `"k${i}":0`).join(",")}}`),
    expect: invalid(""),
    check: (answer) => {
      const error = (answer.body as { error?: { details?: unknown[]; message?: string } }).error;
      const size = JSON.stringify(answer.body).length;
      const details = error?.details?.[0] as { message?: string } | undefined;
      if (
        !new RegExp(`90001 fields, more than the limit of ${S("body", "items")}`).test(details?.message ?? "")
      ) {
        return `the answer does not name the count and the limit: ${details?.message}`;
      }
      return size <= 64 * 1024 ? null : `the error body is ${size} bytes`;
    },
  },
  {
    id: "search-body-keys-over-limit",
    proves: "limit: keys of one object of a search body",
    surfaces: both,
    requests: search({
      q: "chair",
      ...Object.fromEntries(Array.from({ length: S("body", "items") }, (_, i) => [`k${i}`, 0])),
    }),
    expect: invalid(""),
  },
  {
    id: "documents-1470000-tiny",
    proves:
      "finding: one 20 MiB batch of 1.47 million tiny documents blocked 4.5 s (documents per batch are bounded)",
    surfaces: node,
    requests: (ctx) => [
      {
        method: "POST",
        path: documentsPath(ctx),
        headers: searchHeaders(ctx),
        body: tinyDocuments(A("documents", "body", "bytes") - 1),
      },
    ],
    expect: invalid(""),
  },
  {
    id: "index-stats",
    proves: "finding: GET …/stats read every document (69 s at 1.47 M documents, 1.2 s at 150k)",
    surfaces: node,
    requests: (ctx) => [
      { method: "GET", path: `/api/v1/indexes/${ctx.index}/stats`, headers: searchHeaders(ctx) },
    ],
    expect: { status: 200 },
    check: (answer) =>
      typeof (answer.body as { numberOfDocuments?: unknown }).numberOfDocuments === "number"
        ? null
        : `no numberOfDocuments: ${JSON.stringify(answer.body).slice(0, 200)}`,
  },
  {
    id: "first-search-after-ingest",
    proves:
      "finding: the first search after a large ingest blocked 16.8 s (the index was rebuilt on the event loop in one piece)",
    surfaces: node,
    requests: (ctx) => [
      { method: "POST", path: indexesPath, headers: searchHeaders(ctx), body: '{"name":"hostile_ingest"}' },
      {
        method: "POST",
        path: documentsOf("hostile_ingest"),
        headers: searchHeaders(ctx),
        body: JSON.stringify(products(1000, "i")),
      },
      {
        method: "POST",
        path: searchOf("hostile_ingest"),
        headers: searchHeaders(ctx),
        body: '{"q":"oak chair"}',
      },
    ],
    expect: { status: 200 },
  },
  {
    id: "search-heavy-settings",
    proves: "finding: 1,000 searchable attributes and 100 synonyms per word made each search cost 235–730 ms",
    surfaces: node,
    requests: (ctx) => {
      const headers = searchHeaders(ctx);
      const synonyms = Object.fromEntries(
        WORDS.map((word) => [word, Array.from({ length: 100 }, (_, i) => `${word}syn${i}`)]),
      );
      const searchable = ["title", ...Array.from({ length: 999 }, (_, i) => `f${i}`)];
      const q = JSON.stringify({ q: WORDS.join(" ") });
      return [
        { method: "POST", path: indexesPath, headers, body: '{"name":"hostile_settings"}' },
        {
          method: "PATCH",
          path: "/api/v1/indexes/hostile_settings/settings",
          headers,
          body: JSON.stringify({ searchableAttributes: searchable, synonyms }),
        },
        {
          method: "POST",
          path: documentsOf("hostile_settings"),
          headers,
          body: JSON.stringify(products(1000, "s")),
        },
        { method: "POST", path: searchOf("hostile_settings"), headers, body: q },
        { method: "POST", path: searchOf("hostile_settings"), headers, body: q },
        { method: "POST", path: searchOf("hostile_settings"), headers, body: q },
      ];
    },
    expect: { status: 200 },
  },
  {
    id: "silence-subject-regex-7-quantifiers",
    proves: "finding: a silence subject regex of seven [a-z0-9_/]{1,9999} cost 1.9 s per alert tick",
    surfaces: node,
    requests: (ctx) => [
      // Three failures make a firing alert whose subject the regex is tried on at every tick.
      ...[3, 2, 1].map((minutesAgo) => ({
        method: "POST",
        path: "/api/system/runs",
        headers: monitorHeaders(ctx),
        body: JSON.stringify([
          run({
            collector: REGEX_COLLECTOR,
            status: "failed",
            error: "hostile",
            started_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
            completed_at: new Date(Date.now() - minutesAgo * 60_000 + 1000).toISOString(),
          }),
        ]),
      })),
      {
        method: "POST",
        path: "/api/system/silences",
        headers: monitorHeaders(ctx),
        body: JSON.stringify({
          matchers: { subject: { op: "regex", value: SEVEN_QUANTIFIERS } },
          author: "hostile",
          reason: "a regex that backtracks",
          ends_at: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      },
    ],
    // Refused by its backtracking cost (docs/limits.md), so no alert tick ever tries it; the ticks
    // that follow are still watched, for the firing alert's other silences.
    expect: invalid("matchers.subject.value"),
    settleMs: 2500,
  },
];

/** Guessing credentials: last, since they leave this client's address blocked for a minute. */
const THROTTLE_CASES: HostileCase[] = [
  {
    id: "search-wrong-api-keys",
    proves: "finding: wrong API keys guessed at 1,550 a second, never slowed",
    surfaces: both,
    requests: (ctx) =>
      Array.from({ length: GUESSES }, (_, i) => ({
        method: "POST",
        path: searchPath(ctx),
        headers: { "content-type": "application/json", "x-api-key": `rk_guess${i}_${"x".repeat(30)}` },
        body: JSON.stringify({ q: "chair" }),
      })),
    expect: throttled,
  },
  {
    id: "admin-wrong-tokens",
    proves: "finding: wrong admin bearer tokens, never slowed",
    surfaces: node,
    requests: () =>
      Array.from({ length: GUESSES }, (_, i) => ({
        method: "POST",
        path: "/api/v1/admin/accounts",
        headers: { "content-type": "application/json", authorization: `Bearer guess-${i}-${"w".repeat(30)}` },
        body: '{"name":"x"}',
      })),
    expect: throttled,
  },
  {
    id: "monitor-wrong-bearer-tokens",
    proves: "finding: wrong monitor bearer tokens, never slowed",
    surfaces: node,
    requests: () =>
      Array.from({ length: GUESSES }, (_, i) => ({
        method: "GET",
        path: "/api/system/status",
        headers: { authorization: `Bearer guess-${i}-${"y".repeat(30)}` },
      })),
    expect: throttled,
  },
  {
    id: "system-page-wrong-passwords",
    proves: "finding: wrong /system page passwords, never slowed",
    surfaces: node,
    requests: () =>
      Array.from({ length: GUESSES }, (_, i) => ({
        method: "POST",
        path: "/system/login",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `token=guess-${i}-${"z".repeat(30)}`,
      })),
    expect: { status: 429, header: "retry-after" },
  },
];

const E = (field: string, unit: Parameters<typeof limitOf>[3]) =>
  limitOf(EVENT_LIMITS, "events", field, unit);
const CLICK = (ctx: HostileContext) => ({
  eventType: "click",
  eventName: "Search Result Clicked",
  indexUid: ctx.index,
  userId: "hostile-shopper",
  objectId: "p1",
  position: 0,
});
const event =
  (patch: (ctx: HostileContext) => Record<string, unknown>, headers: Record<string, string> = {}) =>
  (ctx: HostileContext): HostileRequest[] => [
    {
      method: "POST",
      path: "/api/v1/events",
      headers: { ...searchHeaders(ctx), ...headers },
      body: JSON.stringify({ ...CLICK(ctx), ...patch(ctx) }),
    },
  ];

/** Outcome events (POST /api/v1/events): served where outcomes are recorded (npm start). */
const EVENT_CASES: HostileCase[] = [
  {
    id: "events-body-over-limit",
    proves: "limit: events body",
    surfaces: node,
    requests: event(() => ({ objectName: "x".repeat(E("body", "bytes")) })),
    expect: tooLarge,
  },
  {
    id: "events-event-name-over-limit",
    proves: "limit: events eventName",
    surfaces: node,
    requests: event(() => ({ eventName: "x".repeat(E("eventName", "characters") + 1) })),
    expect: invalid("eventName"),
  },
  {
    id: "events-object-name-over-limit",
    proves: "limit: events objectName",
    surfaces: node,
    requests: event(() => ({ objectName: "x".repeat(E("objectName", "characters") + 1) })),
    expect: invalid("objectName"),
  },
  {
    id: "events-object-id-over-limit",
    proves: "limit: events objectId",
    surfaces: node,
    requests: event(() => ({ objectId: "x".repeat(E("objectId", "characters") + 1) })),
    expect: invalid("objectId"),
  },
  {
    id: "events-user-id-over-limit",
    proves: "limit: events userId",
    surfaces: node,
    requests: event(() => ({ userId: "u".repeat(E("userId", "characters") + 1) })),
    expect: invalid("userId"),
  },
  {
    id: "events-user-id-header-over-limit",
    proves: "limit: events userId (as the X-MS-USER-ID header)",
    surfaces: node,
    requests: event(() => ({ userId: undefined }), {
      "x-ms-user-id": "u".repeat(E("userId", "characters") + 1),
    }),
    expect: invalid("X-MS-USER-ID"),
  },
  {
    id: "events-position-over-limit",
    proves: "limit: events position",
    surfaces: node,
    requests: event(() => ({ position: E("position", "items") + 1 })),
    expect: invalid("position"),
  },
];

export const HOSTILE_CASES: readonly HostileCase[] = [
  ...SEARCH_CASES,
  ...EVENT_CASES,
  ...ROUTE_CASES,
  ...MONITOR_CASES,
  ...API_CASES,
  ...KEY_CASES,
  ...QUALITY_CASES,
  ...CANARY_CASES,
  ...TRAINING_CASES,
  ...CPU_CASES,
  ...THROTTLE_CASES,
];
