import { recordingSampleRate } from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./test-support/harness.ts";

const path = (account: string, index: string) =>
  `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-recording-config`;

async function setup() {
  const h = makeHarness();
  const { systemAccountId: account, apiKey } = await h.account();
  await h.index(apiKey, "products");
  const put = (config: unknown, headers: Record<string, string> = {}) =>
    h.admin("PUT", path(account, "products"), { relevanceRecordingConfig: config }, headers);
  const get = () => h.admin("GET", path(account, "products"));
  return { h, account, apiKey, put, get };
}

describe("admin relevance-recording-config", () => {
  it("reads null by default, stores {sample_rate}, and reaches the KV copy the search reads", async () => {
    const { h, account, put, get } = await setup();
    const empty = await get();
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ relevanceRecordingConfig: null, version: 1 });
    expect(empty.headers.get("etag")).toBe('"1"');

    const written = await put({ sampleRate: 0.25 });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({ relevanceRecordingConfig: { sampleRate: 0.25 }, version: 2 });
    expect(written.headers.get("etag")).toBe('"2"');
    expect((await get()).body).toEqual({ relevanceRecordingConfig: { sampleRate: 0.25 }, version: 2 });
    expect((await h.table.get(account, "INDEX#products"))?.attributes.relevance_recording_config).toEqual({
      sample_rate: 0.25,
    });

    await h.drain();
    const copy = await h.copy(account, "products");
    expect(copy?.relevance_recording_config).toEqual({ sample_rate: 0.25 });
    expect(recordingSampleRate(copy?.relevance_recording_config)).toEqual({ rate: 0.25, valid: true });

    const removed = await put(null);
    expect(removed.body).toEqual({ relevanceRecordingConfig: null, version: 3 });
    await h.drain();
    const after = await h.copy(account, "products");
    expect(after).not.toHaveProperty("relevance_recording_config");
    expect(recordingSampleRate(after?.relevance_recording_config)).toEqual({ rate: 1, valid: true });
  });

  it("leaves the relevance trigger config exactly as it was (its three fields)", async () => {
    const { h, account, put } = await setup();
    const trigger = { modelId: `${account}:products:v1`, titleField: "title", tagsField: null };
    expect((await h.putConfig(account, "products", trigger)).status).toBe(200);
    expect((await put({ sampleRate: 0 })).status).toBe(200);
    const stored = (await h.table.get(account, "INDEX#products"))?.attributes;
    expect(stored?.relevance_trigger_config).toEqual({
      model_id: `${account}:products:v1`,
      title_field: "title",
      tags_field: null,
    });
    expect((await h.getConfig(account, "products")).body.relevanceTriggerConfig).toEqual(trigger);
  });

  it("refuses a bad rate or body with a 422 naming the field", async () => {
    const { h, put } = await setup();
    const cases: [unknown, string][] = [
      [{ sampleRate: 1.5 }, "relevanceRecordingConfig.sampleRate"],
      [{ sampleRate: -0.01 }, "relevanceRecordingConfig.sampleRate"],
      [{ sampleRate: "0.5" }, "relevanceRecordingConfig.sampleRate"],
      [{}, "relevanceRecordingConfig.sampleRate"],
      [{ sampleRate: 0.5, extra: 1 }, "relevanceRecordingConfig.extra"],
      [{ sample_rate: 0.5 }, "relevanceRecordingConfig.sample_rate"],
      [0.5, "relevanceRecordingConfig"],
    ];
    for (const [config, field] of cases) {
      const res = await put(config);
      expect(res.status, JSON.stringify(config)).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    const { systemAccountId: account } = await h.account("Other");
    const missingKey = await h.admin("PUT", path(account, "products"), {});
    expect(missingKey.status).toBe(422);
    expect(missingKey.body.error.details[0].path).toBe("relevanceRecordingConfig");
  });

  it("writes nothing for a refused body", async () => {
    const { h, put } = await setup();
    const before = h.dump();
    expect((await put({ sampleRate: 2 })).status).toBe(422);
    expect(h.dump()).toBe(before);
  });

  it("404 for a missing account or index; 409 for a stale If-Match", async () => {
    const { h, account, put } = await setup();
    for (const [acct, index] of [
      ["acct_000000000000", "products"],
      [account, "missing"],
      [account, "bad%20name"],
    ] as const) {
      expect((await h.admin("GET", path(acct, index))).status).toBe(404);
      expect((await h.admin("PUT", path(acct, index), { relevanceRecordingConfig: null })).status).toBe(404);
    }
    expect((await put({ sampleRate: 1 }, { "if-match": '"1"' })).status).toBe(200);
    const stale = await put({ sampleRate: 1 }, { "if-match": '"1"' });
    expect(stale.status).toBe(409);
    expect((await put({ sampleRate: 1 }, { "if-match": "nope" })).status).toBe(422);
  });

  it("shows a malformed stored value as is, with its problems", async () => {
    const { h, account, get } = await setup();
    // a direct table edit
    await h.table.setAttribute(account, "INDEX#products", "relevance_recording_config", { sample_rate: 7 });
    const res = await get();
    expect(res.body.relevanceRecordingConfig).toEqual({ sample_rate: 7 });
    expect(res.body.storedConfigProblems[0].path).toBe("relevance_recording_config.sample_rate");
  });
});
