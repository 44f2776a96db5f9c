/**
 * One behaviour suite for every `EndedSessionStore` adapter: in memory, SQLite (the embedded stack)
 * and DynamoDB. Each adapter's test file calls `endedSessionStoreContract`.
 */
import { describe, expect, it } from "vitest";
import type { EndedSessionStore } from "../ports.ts";

export interface EndedSessionStoreAdapter {
  name: string;
  /** A store with no ended session. */
  open(): Promise<EndedSessionStore>;
  /** A second handle on the same storage (another instance), when the adapter has one. */
  reopen?(): Promise<EndedSessionStore>;
}

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const H = 3600_000;
const ID_A = "0123456789abcdef0123456789abcdef";
const ID_B = "fedcba9876543210fedcba9876543210";

export function endedSessionStoreContract(adapter: EndedSessionStoreAdapter): void {
  describe(`EndedSessionStore contract: ${adapter.name}`, () => {
    it("knows an ended session, and only that one; ending twice changes nothing", async () => {
      const store = await adapter.open();
      expect(await store.ended(ID_A)).toBe(false);
      await store.end(ID_A, T0 + 12 * H);
      await store.end(ID_A, T0 + 12 * H);
      expect(await store.ended(ID_A)).toBe(true);
      expect(await store.ended(ID_B)).toBe(false);
    });

    it("prune never forgets a session whose cookie has not expired by the time given", async () => {
      const store = await adapter.open();
      await store.end(ID_A, T0 + H);
      await store.end(ID_B, T0 + 12 * H);
      await store.prune(T0 + 2 * H);
      expect(await store.ended(ID_B)).toBe(true);
      await store.prune(T0);
      expect(await store.ended(ID_B)).toBe(true);
    });

    if (adapter.reopen !== undefined) {
      const reopen = adapter.reopen;
      it("another handle on the same storage sees the ended session (another instance, a restart)", async () => {
        const store = await adapter.open();
        await store.end(ID_A, T0 + 12 * H);
        expect(await (await reopen()).ended(ID_A)).toBe(true);
      });
    }
  });
}
