/** The EndedSessionStore contract on SQLite: a fresh file per case, and a second handle (a restart) seeing the first's. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { endedSessionStoreContract } from "@monitor/core/contract/ended-session-store";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteEndedSessionStore } from "./ended-session-store-sqlite.ts";
import { SqliteSilenceStore } from "./silence-store-sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "svcmon-ended-sessions-"));
const opened: { close(): void }[] = [];
let n = 0;
afterAll(() => {
  for (const s of opened) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(path: string): SqliteEndedSessionStore {
  const s = new SqliteEndedSessionStore(path);
  opened.push(s);
  return s;
}

endedSessionStoreContract({
  name: "SQLite (file)",
  open: async () => open(join(dir, `e${++n}.sqlite`)),
  reopen: async () => open(join(dir, `e${n}.sqlite`)),
});
endedSessionStoreContract({ name: "SQLite (:memory:)", open: async () => open(":memory:") });

describe("SQLite ended-session store", () => {
  it("lives in the alerts file beside the silences and forgets what expired", async () => {
    const path = join(dir, "alerts.sqlite");
    const silences = new SqliteSilenceStore(path);
    opened.push(silences);
    const store = open(path);
    await store.end("a", 10);
    await store.end("b", 30);
    expect(await store.prune(20)).toBe(1);
    expect(await open(path).ended("a")).toBe(false);
    expect(await open(path).ended("b")).toBe(true);
    expect(await silences.list()).toEqual([]);
  });
});
