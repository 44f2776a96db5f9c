import { describe, expect, it } from "vitest";
import { SLICE_MS, Slicer, StringKeyMap } from "./slices.ts";

/** Counts turns of the event loop: one setImmediate callback per turn, each queueing the next. */
function turnCounter(): { turn: () => number; stop: () => void } {
  let turn = 0;
  let running = true;
  const next = () => {
    if (!running) return;
    turn++;
    setImmediate(next);
  };
  setImmediate(next);
  return { turn: () => turn, stop: () => (running = false) };
}

describe("slices of the event loop", () => {
  it("resumes one slice per turn of the loop, however many works are sliced at once", async () => {
    const turns = turnCounter();
    // A clock on which every slice is used up at once: every pause gives the loop back.
    let now = 0;
    const clock = () => (now += SLICE_MS);
    const ran: { work: number; turn: number }[] = [];
    const work = async (id: number) => {
      const slicer = new Slicer(clock);
      for (let step = 0; step < 5; step++) {
        ran.push({ work: id, turn: turns.turn() });
        await slicer.pause();
      }
    };
    await Promise.all([work(1), work(2), work(3)]);
    turns.stop();
    // After their first slice (run by their callers), no two slices of the three works share a turn.
    const resumed = ran.filter((_, i) => i >= 3).map((r) => r.turn);
    expect(new Set(resumed).size).toBe(resumed.length);
    // Taken in turn, first come first resumed.
    expect(ran.slice(3, 9).map((r) => r.work)).toEqual([1, 2, 3, 1, 2, 3]);
  });
});

describe("maps that grow without rehashing", () => {
  it("StringKeyMap answers as a Map: insertion order, a present key keeps its place, deletes", () => {
    const sharded = new StringKeyMap<number>();
    const map = new Map<string, number>();
    const keys = Array.from({ length: 3000 }, (_, i) => `p${i}`);
    for (const [i, key] of keys.entries()) {
      sharded.set(key, i);
      map.set(key, i);
    }
    sharded.set("p7", -7);
    map.set("p7", -7);
    for (const key of keys.slice(0, 2000))
      if (Number(key.slice(1)) % 3 === 0) {
        expect(sharded.delete(key)).toBe(map.delete(key));
      }
    // Past half of the slots deleted: compacted, still in insertion order.
    for (const key of keys.slice(1000, 2900)) {
      sharded.delete(key);
      map.delete(key);
    }
    sharded.set("p1500", 1);
    map.set("p1500", 1);
    expect([...sharded]).toEqual([...map]);
    expect(sharded.size).toBe(map.size);
    expect(sharded.get("p7")).toBe(-7);
    expect(sharded.has("p3")).toBe(false);
    expect(sharded.get("nope")).toBeUndefined();
  });
});
