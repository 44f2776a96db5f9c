/** The MaintenanceStore contract on SQLite: a fresh file per case, and a second handle seeing the first's. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MaintenanceWindow } from "@monitor/core";
import { maintenanceStoreContract } from "@monitor/core/contract/maintenance-store";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteMaintenanceStore } from "./maintenance-store-sqlite.ts";
import { SqliteSilenceStore } from "./silence-store-sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "svcmon-maintenance-"));
const opened: { close(): void }[] = [];
let n = 0;
afterAll(() => {
  for (const s of opened) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(path: string): SqliteMaintenanceStore {
  const s = new SqliteMaintenanceStore(path);
  opened.push(s);
  return s;
}

maintenanceStoreContract({ name: "SQLite (file)", open: async () => open(join(dir, `m${++n}.sqlite`)) });
maintenanceStoreContract({ name: "SQLite (:memory:)", open: async () => open(":memory:") });

describe("SQLite maintenance store", () => {
  it("lives in the alerts file beside the silences; a restart (new handle) reads it", async () => {
    const path = join(dir, "alerts.sqlite");
    const silences = new SqliteSilenceStore(path);
    opened.push(silences);
    const w: MaintenanceWindow = {
      id: "x",
      scope: { all: true },
      author: "ann",
      reason: "r",
      createdAt: 1,
      timing: { kind: "recurring", schedule: "0 2 * * 0", timezone: "UTC", durationMinutes: 60 },
      endedAt: null,
    };
    expect(await open(path).create(w)).toBe(true);
    expect(await open(path).list()).toEqual([w]);
  });
});
