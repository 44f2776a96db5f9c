/** The TransitionStore contract on SQLite: a fresh file per case, and two handles on one file. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type TransitionStoreAdapter,
  transitionStoreContract,
} from "@monitor/core/contract/transition-store";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteTransitionStore } from "./transition-store-sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "svcmon-transitions-"));
const opened: SqliteTransitionStore[] = [];
let n = 0;
afterAll(() => {
  for (const s of opened) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(path: string): SqliteTransitionStore {
  const s = new SqliteTransitionStore(path);
  opened.push(s);
  return s;
}

const ADAPTERS: TransitionStoreAdapter[] = [
  { name: "SQLite (file)", open: async () => open(join(dir, `t${++n}.sqlite`)) },
  { name: "SQLite (:memory:)", open: async () => open(":memory:") },
];
for (const adapter of ADAPTERS) transitionStoreContract(adapter);

describe("SQLite transition store: two handles on one file (two processes)", () => {
  it("exactly one claims, and a stale state version conflicts", async () => {
    const path = join(dir, "shared.sqlite");
    const a = open(path);
    const b = open(path);
    await a.record({ id: "n1", kind: "notification", rule: "disk_high", subject: "x", at: 1, data: {} });
    expect(
      await b.record({ id: "n1", kind: "notification", rule: "disk_high", subject: "x", at: 1, data: {} }),
    ).toBe(false);
    const [ra, rb] = [await a.claim("n1", "a", 10, 1000), await b.claim("n1", "b", 10, 1000)];
    expect([ra.ok, rb.ok]).toEqual([true, false]);
    const v = (await a.readState()).version;
    expect((await a.putState((await a.readState()).state, v)).ok).toBe(true);
    expect(await b.putState((await b.readState()).state, v)).toEqual({
      ok: false,
      conflict: true,
      version: v + 1,
    });
  });
});
