import { describe, expect, it } from "vitest";
import { graceClock } from "./grace-clock.ts";

const mine = new Date("2026-11-25T12:00:00.000Z");
const minus = (ms: number) => new Date(mine.getTime() - ms);

describe("the clock of the 24 h grace period", () => {
  it("is the store's clock when it is behind this machine's, and says so", () => {
    const clock = graceClock(mine, minus(3_600_000), false);
    expect(clock.at).toEqual(minus(3_600_000));
    expect(clock.source).toBe("the store");
    expect(clock.note).toBe(
      "measuring the 24 h grace period at 2026-11-25T11:00:00.000Z, the store's clock: this machine's clock is 3600 s ahead of it",
    );
  });

  it("is this machine's clock when the store's is ahead, equal, within the resolution of its Date header, or unknown", () => {
    for (const store of [new Date(mine.getTime() + 60_000), mine, minus(1_500), null]) {
      expect(graceClock(mine, store, false)).toEqual({ at: mine, source: "this machine", note: null });
    }
  });

  it("is RELEVANCE_NOW as given when it is set (accepted on --env local only)", () => {
    const tomorrow = new Date(mine.getTime() + 86_400_000);
    expect(graceClock(tomorrow, mine, true)).toEqual({ at: tomorrow, source: "RELEVANCE_NOW", note: null });
  });
});
