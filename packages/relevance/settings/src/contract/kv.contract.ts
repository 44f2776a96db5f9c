// One behaviour suite for every Kv adapter (SQLite, Workers KV binding, Cloudflare REST).
import { describe, expect, it } from "vitest";
import type { Kv } from "../ports.ts";

export function kvContract(name: string, makeKv: () => Promise<Kv>): void {
  describe(`Kv contract: ${name}`, () => {
    it("stores, replaces and deletes values", async () => {
      const kv = await makeKv();
      expect(await kv.get("acct-products")).toBeNull();
      await kv.put("acct-products", '{"version":1}');
      expect(await kv.get("acct-products")).toBe('{"version":1}');
      await kv.put("acct-products", '{"version":2}');
      expect(await kv.get("acct-products")).toBe('{"version":2}');
      await kv.delete("acct-products");
      expect(await kv.get("acct-products")).toBeNull();
      await kv.delete("acct-products"); // deleting a missing key is not an error
    });

    it("keeps keys with colons, spaces and non-ASCII apart", async () => {
      const kv = await makeKv();
      const keys = [
        "relevance_model:acct:products:v1",
        "relevance_model:acct:products:v10",
        "acct-prod ucts",
        "acct-größe",
      ];
      for (const [i, key] of keys.entries()) await kv.put(key, `value ${i}`);
      for (const [i, key] of keys.entries()) expect(await kv.get(key)).toBe(`value ${i}`);
    });

    it("stores a large value (an artifact) byte for byte", async () => {
      const kv = await makeKv();
      const big = JSON.stringify({ trees: Array.from({ length: 5000 }, (_, i) => ({ v: i / 7, s: "é✓" })) });
      await kv.put("relevance_model:acct:p:v1", big);
      expect(await kv.get("relevance_model:acct:p:v1")).toBe(big);
    });

    it("lists keys by prefix, sorted", async () => {
      const kv = await makeKv();
      for (const key of [
        "relevance_model:a:p:v2",
        "acct-p",
        "relevance_model:a:p:v1",
        "relevance_model:b:q:v1",
      ]) {
        await kv.put(key, "x");
      }
      expect(await kv.list("relevance_model:a:")).toEqual([
        "relevance_model:a:p:v1",
        "relevance_model:a:p:v2",
      ]);
      expect(await kv.list("nothing")).toEqual([]);
    });

    it("sorts listed keys by code point (UTF-8 byte order), as Workers KV does", async () => {
      const kv = await makeKv();
      const sorted = ["sort:B", "sort:a", "sort:a b", "sort:é", "sort:\uff61", "sort:\u{1f600}"];
      for (const key of [...sorted].reverse()) await kv.put(key, "x");
      expect(await kv.list("sort:")).toEqual(sorted);
    });
  });
}
