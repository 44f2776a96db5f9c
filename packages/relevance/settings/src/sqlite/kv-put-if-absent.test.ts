// A conditional put on the SQLite KV: a writer that must never replace a value (the demo seeding's
// model upload) writes only when the key is absent, whoever wrote it, in this process or another.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.ts";
import { SqliteKv } from "./kv.ts";

describe("SqliteKv.putIfAbsent", () => {
  it("writes an absent key and answers true; leaves a present one as it is and answers false", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kv-put-if-absent-"));
    try {
      const path = join(dir, "kv.db");
      const mine = new SqliteKv(openDatabase(path));
      // Another connection to the same file: what the CLI or another process writes with.
      const theirs = new SqliteKv(openDatabase(path));
      expect(await mine.putIfAbsent("relevance_model:a:p:v1", "seed")).toBe(true);
      expect(await theirs.get("relevance_model:a:p:v1")).toBe("seed");

      await theirs.put("relevance_model:a:p:v2", "operator");
      expect(await mine.putIfAbsent("relevance_model:a:p:v2", "seed")).toBe(false);
      expect(await mine.get("relevance_model:a:p:v2")).toBe("operator");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
