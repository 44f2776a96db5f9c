import { describe, expect, it } from "vitest";
import { Limiter } from "./concurrency-limiter.ts";

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("Limiter", () => {
  it("runs at most `max` calls at once, the others in arrival order", async () => {
    const limiter = new Limiter(2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i);
        await g.promise;
        return i;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    expect(limiter.waiting).toBe(1);
    gates[1]?.resolve();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.resolve();
    gates[2]?.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(limiter.active).toBe(0);
  });

  it("a waiting caller whose signal aborts leaves the queue without taking a slot", async () => {
    const limiter = new Limiter(1);
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const ac = new AbortController();
    let ran = false;
    const second = limiter.run(async () => {
      ran = true;
    }, ac.signal);
    ac.abort(new Error("timed out after 5000 ms"));
    await expect(second).rejects.toThrow("timed out after 5000 ms");
    expect(limiter.waiting).toBe(0);
    gate.resolve();
    await first;
    expect(ran).toBe(false);
    expect(limiter.active).toBe(0);
    expect(() => new Limiter(0)).toThrow("concurrency limit must be an integer ≥ 1, got 0");
  });
});
