import type {
  DriftDayCounts,
  OutcomeStore,
  QualityInputs,
  ShadowPair,
  TrainingQueryRow,
  TrainingRowsQuery,
} from "@relevance/outcomes";
import { MAX_TRAINING_RANGE_DAYS, MAX_TRAINING_ROWS_PAGE } from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi.ts";
import { makeHarness } from "./test-support/harness.ts";

const NOW = Date.parse("2026-11-21T12:00:00.000Z");
const DAY = 86_400_000;

/**
 * The port's training read over fixed rows: keeps the rows of the asked model with enough
 * impressions, in queryKey order, after the cursor, at most `limit`; remembers each query it got.
 */
class RowsStore implements OutcomeStore {
  readonly queries: TrainingRowsQuery[] = [];
  private readonly rows: TrainingQueryRow[];
  constructor(rows: TrainingQueryRow[]) {
    this.rows = rows;
  }
  async recordSearches(): Promise<void> {}
  async recordEvents(): Promise<void> {}
  async quality(): Promise<QualityInputs> {
    return { daily: [], bins: [], queries: [], events: { attributed: 0, unattributed: 0, duplicates: 0 } };
  }
  async purge(): Promise<void> {}
  async scoredModels(): Promise<[]> {
    return [];
  }
  async driftCounts(): Promise<DriftDayCounts[]> {
    return [];
  }
  async shadowPairs(): Promise<ShadowPair[]> {
    return [];
  }
  async shadowComparison() {
    return { pairs: [], bins: [], queries: [], daily: [], samples: [] };
  }
  async trainingRows(query: TrainingRowsQuery): Promise<TrainingQueryRow[]> {
    this.queries.push(query);
    return this.rows
      .filter((r) => query.modelId === undefined || r.modelId === query.modelId)
      .filter((r) => r.impressions >= query.minImpressions)
      .filter((r) => query.after === undefined || r.queryKey > query.after)
      .sort((a, b) => (a.queryKey < b.queryKey ? -1 : 1))
      .slice(0, query.limit);
  }
}

const row = (queryKey: string, impressions: number, modelId = "m1"): TrainingQueryRow => ({
  queryKey,
  query: queryKey.toUpperCase(),
  modelId,
  features: [1, 20, 3, 0.5, 1, 1, 0.2, 1, 3],
  impressions,
  clicked: Math.floor(impressions / 2),
  converted: 0,
  lastServedAt: NOW - DAY,
});

async function setup(rows: TrainingQueryRow[] = []) {
  const store = new RowsStore(rows);
  const h = makeHarness({ outcomes: store });
  const { systemAccountId } = await h.account();
  const path = (query = "") =>
    `/api/v1/admin/accounts/${systemAccountId}/indexes/products/training-rows${query}`;
  return { h, store, path, account: systemAccountId };
}

describe("GET …/training-rows", () => {
  it("asks the store for the last 30 days, the default minimum impressions and a page of 500", async () => {
    const { h, store, path, account } = await setup([row("red shoes", 7)]);
    const res = await h.admin("GET", path());
    expect(res.status).toBe(200);
    expect(store.queries).toEqual([
      { account, index: "products", since: NOW - 30 * DAY, until: NOW, minImpressions: 5, limit: 500 },
    ]);
    expect(res.body.featureSet).toHaveLength(9);
    expect(res.body.rows).toEqual([row("red shoes", 7)]);
    expect(res.body.next).toBeNull();
  });

  it("passes the model, the range and the minimum as given", async () => {
    const { h, store, path } = await setup();
    const res = await h.admin(
      "GET",
      path("?since=2026-11-01T00:00:00Z&until=12h&model=acme%3Av2&minImpressions=3&limit=10"),
    );
    expect(res.status).toBe(200);
    expect(store.queries[0]).toMatchObject({
      since: Date.parse("2026-11-01T00:00:00Z"),
      until: NOW - 12 * 3_600_000,
      modelId: "acme:v2",
      minImpressions: 3,
      limit: 10,
    });
  });

  it("counts a since duration back from until", async () => {
    const { h, store, path } = await setup();
    expect((await h.admin("GET", path("?since=2d&until=2026-11-10T00:00:00Z"))).status).toBe(200);
    expect(store.queries[0]).toMatchObject({
      since: Date.parse("2026-11-08T00:00:00Z"),
      until: Date.parse("2026-11-10T00:00:00Z"),
    });
  });

  it("pages by queryKey: following next returns every row once", async () => {
    const keys = ["a", "b", "c", "d", "e"];
    const { h, path } = await setup(keys.map((k) => row(k, 9)));
    const seen: string[] = [];
    let after: string | null = "";
    let pages = 0;
    while (after !== null) {
      const q: string = after === "" ? "?limit=2" : `?limit=2&after=${encodeURIComponent(after)}`;
      const res = await h.admin("GET", path(q));
      expect(res.status).toBe(200);
      seen.push(...res.body.rows.map((r: TrainingQueryRow) => r.queryKey));
      after = res.body.next;
      pages += 1;
    }
    expect(seen).toEqual(keys);
    expect(pages).toBe(3);
  });

  it("answers 503 recording_not_configured without an outcome store", async () => {
    const h = makeHarness();
    const { systemAccountId } = await h.account();
    const res = await h.admin(
      "GET",
      `/api/v1/admin/accounts/${systemAccountId}/indexes/products/training-rows`,
    );
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("recording_not_configured");
  });

  it("answers 404 for an account that does not exist, without reading outcomes", async () => {
    const { h, store } = await setup();
    const res = await h.admin(
      "GET",
      "/api/v1/admin/accounts/acct_000000000000/indexes/products/training-rows",
    );
    expect(res.status).toBe(404);
    expect(store.queries).toHaveLength(0);
  });

  it("needs the admin token", async () => {
    const { h, path } = await setup();
    expect((await h.call("GET", path())).status).toBe(401);
  });

  it("refuses every parameter beyond its bound with a 422 naming it, before reading the store", async () => {
    const { h, store, path } = await setup();
    const cases: [string, string][] = [
      [`?limit=${MAX_TRAINING_ROWS_PAGE + 1}`, "limit"],
      ["?limit=0", "limit"],
      ["?minImpressions=0", "minImpressions"],
      ["?minImpressions=1000001", "minImpressions"],
      [`?since=${MAX_TRAINING_RANGE_DAYS + 1}d`, "since"],
      ["?since=yesterday", "since"],
      ["?since=2026-11-20T00:00:00Z&until=2026-11-19T00:00:00Z", "since"],
      ["?until=2026-13-45", "until"],
      [`?after=${"x".repeat(513)}`, "after"],
      [`?model=${"m".repeat(257)}`, "model"],
      ["?model=", "model"],
      ["?label=ctr", "label"],
    ];
    for (const [query, field] of cases) {
      const res = await h.admin("GET", path(query));
      expect(res.status, query).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(JSON.stringify(res.body.error.details), query).toContain(field);
    }
    expect(store.queries).toHaveLength(0);
  });

  it("is in the admin OpenAPI document with its query parameters", () => {
    const op = (openApiDocument.paths as Record<string, Record<string, { parameters?: { name: string }[] }>>)[
      "/api/v1/admin/accounts/{id}/indexes/{index}/training-rows"
    ]?.get;
    expect(op?.parameters?.map((p) => p.name).sort()).toEqual(
      ["after", "id", "index", "limit", "minImpressions", "model", "since", "until"].sort(),
    );
  });
});
