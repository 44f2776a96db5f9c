import {
  DEFAULT_MIN_IMPRESSIONS,
  MAX_MIN_IMPRESSIONS,
  MAX_QUALITY_MODEL_CHARS,
  MAX_QUALITY_QUERIES,
  MAX_QUALITY_RANGE_DAYS,
  QualityReportSchema,
} from "@relevance/outcomes";
import { fixedQualityStore, syntheticQualityInputs } from "@relevance/outcomes/test-support/quality-inputs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi.ts";
import { makeHarness } from "./test-support/harness.ts";

const NOW = "2026-11-21T12:00:00.000Z";

async function setup(inputs = syntheticQualityInputs({ modelId: "m:v1" })) {
  const fake = fixedQualityStore({ ...inputs, events: { attributed: 7, unattributed: 2, duplicates: 1 } });
  const h = makeHarness({ outcomes: fake.store });
  const { systemAccountId: account, apiKey } = await h.account();
  await h.index(apiKey, "products");
  const path = `/api/v1/admin/accounts/${account}/indexes/products/quality`;
  return { h, account, path, asked: fake.asked };
}

describe("GET /api/v1/admin/accounts/{id}/indexes/{index}/quality", () => {
  it("reports the last 7 days per model with every metric, the events counts and the scope read", async () => {
    const { h, account, path, asked } = await setup();
    const res = await h.admin("GET", path);
    expect(res.status).toBe(200);
    const report = QualityReportSchema.parse(res.body);
    expect(asked).toEqual([
      {
        account,
        index: "products",
        since: Date.parse("2026-11-14T12:00:00.000Z"),
        until: Date.parse(NOW),
        minImpressions: DEFAULT_MIN_IMPRESSIONS,
        maxQueries: MAX_QUALITY_QUERIES,
      },
    ]);
    expect(report).toMatchObject({
      account,
      index: "products",
      since: "2026-11-14T12:00:00.000Z",
      until: NOW,
      generatedAt: NOW,
      events: { attributed: 7, unattributed: 2, duplicates: 1 },
    });
    expect(report.models.map((m) => m.modelId)).toEqual(["m:v1"]);
    expect(report.models[0]?.calibration.status).toBe("ok");
    expect(report.models[0]?.kendallTau).toMatchObject({ status: "ok", n: 200 });
  });

  it("takes since as a duration or an ISO time, until, model and minImpressions", async () => {
    const { h, path, asked } = await setup();
    const q = "?since=24h&until=2026-11-20T00:00:00Z&model=m%3Av1&minImpressions=20";
    expect((await h.admin("GET", path + q)).status).toBe(200);
    expect(asked[0]).toMatchObject({
      since: Date.parse("2026-11-19T00:00:00Z"),
      until: Date.parse("2026-11-20T00:00:00Z"),
      modelId: "m:v1",
      minImpressions: 20,
    });
    expect((await h.admin("GET", `${path}?since=2026-11-01`)).status).toBe(200);
    expect(asked[1]?.since).toBe(Date.parse("2026-11-01T00:00:00Z"));
    const other = await h.admin("GET", `${path}?model=m%3Av2`);
    expect(QualityReportSchema.parse(other.body).models).toEqual([]);
  });

  it("answers 422 naming the field for each parameter beyond its bound, before reading the store", async () => {
    const { h, path, asked } = await setup();
    const cases: [string, string][] = [
      [`since=${MAX_QUALITY_RANGE_DAYS + 1}d`, "since"],
      ["since=2026-08-01T00:00:00Z", "since"],
      ["since=yesterday", "since"],
      ["since=2026-11-22T00:00:00Z", "since"],
      [`since=${"1".repeat(41)}`, "since"],
      ["until=tomorrow", "until"],
      [`model=${"m".repeat(MAX_QUALITY_MODEL_CHARS + 1)}`, "model"],
      ["model=", "model"],
      ["minImpressions=0", "minImpressions"],
      [`minImpressions=${MAX_MIN_IMPRESSIONS + 1}`, "minImpressions"],
      ["minImpressions=5.5", "minImpressions"],
    ];
    for (const [q, field] of cases) {
      const res = await h.admin("GET", `${path}?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.error.code, q).toBe("validation_failed");
      expect(
        res.body.error.details.map((d: { path: string }) => d.path),
        q,
      ).toEqual([field]);
    }
    expect(asked).toEqual([]);
  });

  it("answers 404 for an unknown account or index and 401 without the admin token", async () => {
    const { h, account, path } = await setup();
    expect(
      (await h.admin("GET", `/api/v1/admin/accounts/acct_000000000000/indexes/products/quality`)).status,
    ).toBe(404);
    expect((await h.admin("GET", `/api/v1/admin/accounts/${account}/indexes/nope/quality`)).status).toBe(404);
    expect((await h.call("GET", path)).status).toBe(401);
  });

  it("answers 503 recording_not_configured without an outcome store", async () => {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const res = await h.admin("GET", `/api/v1/admin/accounts/${account}/indexes/products/quality`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("recording_not_configured");
  });

  it("is in the OpenAPI document with the report's schema and its query parameters", () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<
        string,
        Record<string, { parameters: { name: string; in: string }[]; responses: Record<string, unknown> }>
      >;
    };
    const op = doc.paths["/api/v1/admin/accounts/{id}/indexes/{index}/quality"]?.get;
    expect(op?.parameters.filter((p) => p.in === "query").map((p) => p.name)).toEqual([
      "since",
      "until",
      "model",
      "minImpressions",
    ]);
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(["200", "404", "422", "503"]));
  });
});
