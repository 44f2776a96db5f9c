import { describe, expect, it } from "vitest";
import { endedSessionStoreContract } from "./contract/ended-session-store.contract.ts";
import { InMemoryEndedSessionStore } from "./ended-session-store-memory.ts";

endedSessionStoreContract({ name: "in memory", open: async () => new InMemoryEndedSessionStore() });

describe("InMemoryEndedSessionStore", () => {
  it("prune forgets what expired", async () => {
    const store = new InMemoryEndedSessionStore();
    await store.end("a", 10);
    await store.end("b", 30);
    expect(await store.prune(20)).toBe(1);
    expect(await store.ended("a")).toBe(false);
    expect(await store.ended("b")).toBe(true);
  });
});
