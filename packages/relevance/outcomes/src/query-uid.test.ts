import { describe, expect, it } from "vitest";
import { newQueryUid, QUERY_UID, queryUidTime, uuidV7 } from "./query-uid.ts";

describe("queryUid (UUID v7)", () => {
  it("carries the version, the variant and the time it was made at", () => {
    const at = Date.UTC(2026, 10, 28, 12, 0, 0, 123);
    const uid = uuidV7(at, new Uint8Array(10).fill(0xff));
    expect(uid).toMatch(QUERY_UID);
    expect(uid[14]).toBe("7");
    expect("89ab").toContain(uid[19]);
    expect(queryUidTime(uid)).toBe(at);
  });

  it("sorts by time, and two uids of the same millisecond differ", () => {
    const a = newQueryUid(1_000);
    const b = newQueryUid(2_000);
    expect(a < b).toBe(true);
    expect(newQueryUid(1_000)).not.toBe(newQueryUid(1_000));
  });

  it("reads no time from a string that is not a v7 uid", () => {
    expect(queryUidTime("not-a-uid")).toBeNull();
    expect(queryUidTime("019a01b7-a1c2-4782-a410-bb1274c81393")).toBeNull(); // v4
  });
});
