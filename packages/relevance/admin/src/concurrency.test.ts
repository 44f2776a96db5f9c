import { settingsCopy } from "@relevance/settings";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./test-support/harness.ts";

describe("concurrent admin PUTs", () => {
  it("20 PUTs with the same If-Match: exactly one 200, nineteen 409; table and KV copy agree", async () => {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const read = await h.getConfig(account, "products");
    expect(read.headers.get("etag")).toBe('"1"');

    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.putConfig(
          account,
          "products",
          { modelId: `${account}:products:v${i + 1}`, titleField: "title", tagsField: null },
          { "if-match": read.headers.get("etag") as string },
        ),
      ),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of replies.filter((r) => r.status === 409)) {
      expect(r.body.error.code).toBe("conflict");
    }
    const winner = replies.find((r) => r.status === 200);
    expect(winner?.body.version).toBe(2);

    await h.drain();
    const item = await h.table.get(account, "INDEX#products");
    expect(item?.version).toBe(2);
    expect(item?.attributes.relevance_trigger_config).toEqual({
      model_id: winner?.body.relevanceTriggerConfig.modelId,
      title_field: "title",
      tags_field: null,
    });
    expect(await h.copy(account, "products")).toEqual(settingsCopy(item as NonNullable<typeof item>));
  });

  it("20 PUTs without If-Match still write conditionally: every reply is 200 or 409, versions never skip", async () => {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.putConfig(account, "products", {
          modelId: `${account}:products:v${i + 1}`,
          titleField: null,
          tagsField: null,
        }),
      ),
    );
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length + replies.filter((r) => r.status === 409).length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    const item = await h.table.get(account, "INDEX#products");
    expect(item?.version).toBe(1 + ok.length);
    await h.drain();
    expect(await h.copy(account, "products")).toEqual(settingsCopy(item as NonNullable<typeof item>));
  });
});
