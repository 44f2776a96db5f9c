/** A migrated chDB run store in a fresh temporary folder, for the tests of every monitor package. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openChdbRunStore } from "../chdb.ts";
import type { ClickHouseRunStore } from "../clickhouse-run-store.ts";

/** One chDB data folder per test file (one engine per folder per process), migrated. */
export async function openTempStore(
  prefix: string,
): Promise<{ store: ClickHouseRunStore; dir: string; cleanup(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
  return {
    store,
    dir,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
