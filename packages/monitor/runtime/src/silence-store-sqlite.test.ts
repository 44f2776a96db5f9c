/** The SilenceStore contract on SQLite: a fresh file per case, and a second handle seeing the first's. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silenceStoreContract } from "@monitor/core/contract/silence-store";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSilenceStore } from "./silence-store-sqlite.ts";
import { SqliteTransitionStore } from "./transition-store-sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "svcmon-silences-"));
const opened: { close(): void }[] = [];
let n = 0;
afterAll(() => {
  for (const s of opened) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(path: string): SqliteSilenceStore {
  const s = new SqliteSilenceStore(path);
  opened.push(s);
  return s;
}

silenceStoreContract({ name: "SQLite (file)", open: async () => open(join(dir, `s${++n}.sqlite`)) });
silenceStoreContract({ name: "SQLite (:memory:)", open: async () => open(":memory:") });

describe("SQLite silence store", () => {
  it("lives in the alerts file beside the transitions; a restart (new handle) reads it", async () => {
    const path = join(dir, "alerts.sqlite");
    const transitions = new SqliteTransitionStore(path);
    opened.push(transitions);
    const a = open(path);
    const s = {
      id: "x",
      matchers: { rule: null, subject: { op: "eq" as const, value: "ec2" } },
      author: "ann",
      reason: "r",
      startsAt: 1,
      endsAt: 2,
      createdAt: 1,
    };
    expect(await a.create(s)).toBe(true);
    expect(await open(path).list()).toEqual([s]);
  });
});
