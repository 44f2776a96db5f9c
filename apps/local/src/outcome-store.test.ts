import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { FEATURE_SET_V1 } from "@relevance/core";
import { newQueryUid } from "@relevance/outcomes";
import { afterAll, describe, expect, it } from "vitest";
import { readConfig } from "./env.ts";
import { startOutcomeStore } from "./stack/outcome-store.ts";

const dir = mkdtempSync(join(tmpdir(), "local-outcomes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const silent = { info() {}, warn() {}, error() {} };

describe("npm start's outcome store", () => {
  it("shares the monitor's chDB folder, in a database of its own, and purges what is past the retention", async () => {
    const runStore = openChdbRunStore(join(dir, "chdb"));
    await runStore.migrate();
    const now = Date.UTC(2026, 10, 28, 12);
    const warnings: string[] = [];
    const log = { ...silent, warn: (m: string) => warnings.push(m) };
    const { store, retention, close } = startOutcomeStore(
      { dataDir: dir, outcomeRetentionDays: 7 },
      log,
      () => now,
    );
    try {
      const row = (servedAt: number, queryKey: string) => ({
        queryUid: newQueryUid(servedAt),
        account: "a",
        index: "products",
        indexUid: "products",
        modelId: "m",
        score: 5,
        features: FEATURE_SET_V1.map(() => 1),
        query: queryKey,
        queryKey,
        hitIds: ["1"],
        estimatedTotalHits: 1,
        latencyMs: 1,
        servedAt,
        userHash: null,
      });
      await store.recordSearches([row(now - 8 * 86_400_000, "old"), row(now - 86_400_000, "recent")]);
      await retention.runOnce();
      const q = await store.quality({
        account: "a",
        index: "products",
        since: 0,
        until: now,
        minImpressions: 1,
        maxQueries: 10,
      });
      expect(q.queries.map((x) => x.queryKey)).toEqual(["recent"]);
      expect(warnings).toEqual([]);
      // the monitor's database is untouched and still readable beside it
      await expect(runStore.ping()).resolves.toBeUndefined();
      expect(await runStore.migrate()).toEqual([]);
    } finally {
      await retention.stop();
      close();
      await runStore.close();
    }
  });
});

describe("OUTCOME_RETENTION_DAYS", () => {
  it("defaults to 90 days and takes 1 to 3650", () => {
    const days = (v: string | undefined) => {
      const r = readConfig(v === undefined ? {} : { OUTCOME_RETENTION_DAYS: v });
      return r.ok ? r.config.outcomeRetentionDays : r.error;
    };
    expect(days(undefined)).toBe(90);
    expect(days("")).toBe(90);
    expect(days("1")).toBe(1);
    expect(days("3650")).toBe(3650);
    for (const bad of ["0", "3651", "-5", "1.5", "ninety", "1e3"])
      expect(days(bad)).toMatch(
        /^OUTCOME_RETENTION_DAYS must be a whole number of days from 1 to 3650, got /,
      );
  });
});
