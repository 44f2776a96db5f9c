import { createServer } from "node:net";
import { RunStoreUnavailable } from "@monitor/core";
import { settlesAt, settlesBefore } from "@shared/test-support/deadline";
import { describe, expect, it } from "vitest";
import { openHttpRunStore } from "./clickhouse-run-store.ts";

/** A local port nobody listens on: bind an ephemeral port, then release it. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const addr = srv.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe("unreachable analytics database (HTTP)", () => {
  it("fails fast with RunStoreUnavailable on a closed port", async () => {
    const store = openHttpRunStore({ url: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 1500 });
    try {
      // Fails before the 1,500 ms deadline could: the refused connection ends the wait.
      const err = await settlesBefore(1500, () => store.latestRunPerCollector().catch((e: unknown) => e));
      expect(err).toBeInstanceOf(RunStoreUnavailable);
      expect((err as Error).message).toMatch(/analytics database unavailable.*ECONNREFUSED/);
      await expect(store.insertRuns([])).resolves.toEqual({ inserted: 0, duplicates: [] });
      await expect(store.dbHealth()).rejects.toBeInstanceOf(RunStoreUnavailable);
      await expect(store.migrate()).rejects.toBeInstanceOf(RunStoreUnavailable);
    } finally {
      await store.close();
    }
  });

  it("times out within the bound when the server accepts but never answers", async () => {
    const sockets: import("node:net").Socket[] = [];
    const srv = createServer((s) => sockets.push(s)); // accepts, never replies
    await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
    const addr = srv.address();
    const port = typeof addr === "object" && addr ? addr.port : 0;
    const store = openHttpRunStore({ url: `http://127.0.0.1:${port}`, timeoutMs: 800 });
    try {
      const err = await settlesAt(800, () => store.accountsLatest().catch((e: unknown) => e));
      expect(err).toBeInstanceOf(RunStoreUnavailable);
      expect((err as Error).message).toMatch(/timeout|unavailable/i);
    } finally {
      await store.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    }
  });
});
