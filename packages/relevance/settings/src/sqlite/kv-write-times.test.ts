// The SQLite KV keeps each row's write time: the store's own record that prune's grace period uses.
import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.ts";
import { SqliteKv } from "./kv.ts";

describe("SqliteKv.writeTimes", () => {
  it("gives each key under the prefix the time its row was last written, and this machine's clock", async () => {
    const kv = new SqliteKv(openDatabase(":memory:"));
    const before = Date.now();
    await kv.putStamped("relevance_model:a:p:v1", "x");
    await kv.put("relevance_model:a:p:v2", "y");
    await kv.put("relevance_model:b:p:v1", "z");
    const after = Date.now();
    const { times, storeNow } = await kv.writeTimes("relevance_model:a:");
    expect([...times.keys()]).toEqual(["relevance_model:a:p:v1", "relevance_model:a:p:v2"]);
    for (const at of times.values()) {
      expect(Date.parse(at)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(at)).toBeLessThanOrEqual(after);
    }
    expect(storeNow?.getTime()).toBeGreaterThanOrEqual(after);
    expect(await kv.get("relevance_model:a:p:v1")).toBe("x");
  });
});
