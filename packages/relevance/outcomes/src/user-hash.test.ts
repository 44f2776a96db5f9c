import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashUserId } from "./user-hash.ts";

describe("hashUserId", () => {
  it("is SHA-256 hex over the account and the id, so one id differs between accounts", async () => {
    const a = await hashUserId("acct_a", "shopper-1");
    expect(a).toBe(createHash("sha256").update("acct_a\u0000shopper-1").digest("hex"));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(await hashUserId("acct_b", "shopper-1")).not.toBe(a);
    expect(a).not.toContain("shopper-1");
  });
});
