import { describe, expect, it } from "vitest";
import { raceAbort } from "./abort.ts";

describe("raceAbort", () => {
  it("rejects with the abort reason even when the call never settles", async () => {
    const ac = new AbortController();
    const p = raceAbort(new Promise(() => {}), ac.signal);
    ac.abort(new Error("stop"));
    await expect(p).rejects.toThrow("stop");
    await expect(raceAbort(Promise.resolve(1), ac.signal)).rejects.toThrow("stop");
    await expect(raceAbort(Promise.resolve(2), new AbortController().signal)).resolves.toBe(2);
  });
});
