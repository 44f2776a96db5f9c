// One behaviour suite for every SettingsTable adapter (SQLite, DynamoDB). Call it from a *.test.ts
// beside the adapter with a factory that gives a fresh, empty table per test.
import { describe, expect, it } from "vitest";
import type { SettingsTable } from "../ports.ts";

export function settingsTableContract(name: string, makeTable: () => Promise<SettingsTable>): void {
  describe(`SettingsTable contract: ${name}`, () => {
    it("creates an item at version 1 only when it must not exist yet", async () => {
      const table = await makeTable();
      const first = await table.put("acct", "INDEX#products", { type: "index" }, { mustNotExist: true });
      expect(first).toMatchObject({ ok: true, item: { pk: "acct", sk: "INDEX#products", version: 1 } });
      const second = await table.put("acct", "INDEX#products", { type: "alias" }, { mustNotExist: true });
      expect(second).toMatchObject({
        ok: false,
        reason: "conflict",
        current: { version: 1, attributes: { type: "index" } },
      });
    });

    it("round-trips nested maps, lists and NULLs", async () => {
      const table = await makeTable();
      const attributes = {
        type: "index",
        searchable_attributes: ["title", "tags"],
        synonyms: { tv: ["television"] },
        relevance_trigger_config: { model_id: "acct:products:v1", title_field: "title", tags_field: null },
        created_at: "2026-11-21T00:00:00.000Z",
      };
      await table.put("acct", "INDEX#products", attributes, { mustNotExist: true });
      expect(await table.get("acct", "INDEX#products")).toEqual({
        pk: "acct",
        sk: "INDEX#products",
        version: 1,
        attributes,
      });
      expect(await table.get("acct", "INDEX#missing")).toBeNull();
    });

    it("writes at the expected version only, and increments it", async () => {
      const table = await makeTable();
      await table.put("acct", "INDEX#p", { n: 1 }, { mustNotExist: true });
      const ok = await table.put("acct", "INDEX#p", { n: 2 }, { expectedVersion: 1 });
      expect(ok).toMatchObject({ ok: true, item: { version: 2, attributes: { n: 2 } } });
      const stale = await table.put("acct", "INDEX#p", { n: 3 }, { expectedVersion: 1 });
      expect(stale).toMatchObject({ ok: false, reason: "conflict", current: { version: 2 } });
      const absent = await table.put("acct", "INDEX#q", { n: 1 }, { expectedVersion: 1 });
      expect(absent).toMatchObject({ ok: false, reason: "conflict", current: null });
      expect(await table.get("acct", "INDEX#q")).toBeNull();
    });

    it("lets exactly one of many concurrent writers at the same version win", async () => {
      const table = await makeTable();
      await table.put("acct", "INDEX#p", { n: 0 }, { mustNotExist: true });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          table.put("acct", "INDEX#p", { n: i + 1 }, { expectedVersion: 1 }),
        ),
      );
      const winners = results.filter((r) => r.ok);
      expect(winners).toHaveLength(1);
      expect((await table.get("acct", "INDEX#p"))?.version).toBe(2);
    });

    it("deletes conditionally", async () => {
      const table = await makeTable();
      await table.put("acct", "INDEX#p", { n: 1 }, { mustNotExist: true });
      expect(await table.delete("acct", "INDEX#p", { expectedVersion: 7 })).toMatchObject({
        ok: false,
        reason: "conflict",
      });
      expect(await table.delete("acct", "INDEX#p", { expectedVersion: 1 })).toMatchObject({
        ok: true,
        old: { version: 1 },
      });
      expect(await table.get("acct", "INDEX#p")).toBeNull();
      expect(await table.delete("acct", "INDEX#p", { always: true })).toMatchObject({
        ok: false,
        current: null,
      });
    });

    it("queries one partition by sort-key prefix, in sort-key order", async () => {
      const table = await makeTable();
      for (const sk of ["INDEX#b", "ACCOUNT", "INDEX#a", "INDEX#c"])
        await table.put("acct", sk, {}, { always: true });
      await table.put("other", "INDEX#z", {}, { always: true });
      const items = await table.query("acct", "INDEX#");
      expect(items.map((i) => i.sk)).toEqual(["INDEX#a", "INDEX#b", "INDEX#c"]);
    });

    it("sets or removes one attribute as a direct table edit, bumping the version", async () => {
      const table = await makeTable();
      await table.put("acct", "INDEX#p", { type: "index", keep: 1 }, { mustNotExist: true });
      const config = { model_id: "acct:p:v2", title_field: null, tags_field: null };
      const edited = await table.setAttribute("acct", "INDEX#p", "relevance_trigger_config", config);
      expect(edited).toEqual({
        pk: "acct",
        sk: "INDEX#p",
        version: 2,
        attributes: { type: "index", keep: 1, relevance_trigger_config: config },
      });
      const removed = await table.setAttribute("acct", "INDEX#p", "relevance_trigger_config", undefined);
      expect(removed?.attributes).toEqual({ type: "index", keep: 1 });
      expect(removed?.version).toBe(3);
      expect(await table.setAttribute("acct", "INDEX#none", "x", 1)).toBeNull();
    });
  });
}
