import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startClickHouseHttpChdb } from "@relevance/outcomes/test-support/clickhouse-http";
import { describe, expect, it } from "vitest";
import { depsFromEnv, outcomesFromEnv } from "./handler.ts";

const BASE = {
  ENV: "prod",
  ADMIN_TOKEN: "a".repeat(32),
  CLOUDFLARE_ACCOUNT_ID: "a",
  KV_NAMESPACE_ID: "n",
  CLOUDFLARE_API_TOKEN: "t",
};

describe("the admin Lambda's outcome store", () => {
  it("is absent without CLICKHOUSE_URL (the quality and training routes answer 503)", () => {
    expect(depsFromEnv(BASE).outcomes).toBeUndefined();
    expect(depsFromEnv({ ...BASE, CLICKHOUSE_URL: " " }).outcomes).toBeUndefined();
  });

  it("refuses a CLICKHOUSE_URL that is not http(s) and a bad OUTCOME_RETENTION_DAYS, naming them", () => {
    expect(() => depsFromEnv({ ...BASE, CLICKHOUSE_URL: "ch.example.com:8443" })).toThrow(
      "AdminInternalApi: CLICKHOUSE_URL must be an http(s) URL",
    );
    expect(() =>
      depsFromEnv({ ...BASE, CLICKHOUSE_URL: "https://ch.example.com", OUTCOME_RETENTION_DAYS: "0" }),
    ).toThrow(/^AdminInternalApi: OUTCOME_RETENTION_DAYS must be/);
  });

  it("reads and writes ClickHouse over HTTP with CLICKHOUSE_USER and CLICKHOUSE_PASSWORD", async () => {
    const dir = mkdtempSync(join(tmpdir(), "admin-outcomes-"));
    const server = await startClickHouseHttpChdb(dir, { user: "admin", password: "s3cret" });
    try {
      const env = { CLICKHOUSE_URL: server.url, CLICKHOUSE_USER: "admin", CLICKHOUSE_PASSWORD: "s3cret" };
      const store = outcomesFromEnv(env).outcomes;
      if (store === undefined) throw new Error("expected a store");
      await store.purge(0);
      expect(
        server.statements.some((s) => s.includes("CREATE TABLE IF NOT EXISTS `relevance`.served_searches")),
      ).toBe(true);
      const wrong = outcomesFromEnv({ ...env, CLICKHOUSE_PASSWORD: "nope" }).outcomes;
      await expect(wrong?.purge(0)).rejects.toThrow(/AUTHENTICATION_FAILED/);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
