import { describe, expect, it } from "vitest";
import { wilsonInterval } from "./wilson.ts";

describe("wilsonInterval", () => {
  it("matches the textbook 95 % intervals for 0, 5 and 10 of 10", () => {
    // centre (p + z²/2n)/(1 + z²/n), half z·√(p(1−p)/n + z²/4n²)/(1 + z²/n), z = 1.96:
    // 0/10 → [0, 0.2775]; 5/10 → [0.2366, 0.7634]; 10/10 → [0.7225, 1].
    const [lo0, hi0] = wilsonInterval(0, 10);
    expect(lo0).toBe(0);
    expect(hi0).toBeCloseTo(0.27753, 4);
    const [lo5, hi5] = wilsonInterval(5, 10);
    expect(lo5).toBeCloseTo(0.23659, 4);
    expect(hi5).toBeCloseTo(0.76341, 4);
    const [lo10, hi10] = wilsonInterval(10, 10);
    expect(lo10).toBeCloseTo(0.72247, 4);
    expect(hi10).toBe(1);
  });

  it("knows nothing of an empty group and narrows as n grows", () => {
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
    const small = wilsonInterval(1, 10);
    const large = wilsonInterval(100, 1000);
    expect(large[1] - large[0]).toBeLessThan(small[1] - small[0]);
    expect(large[0]).toBeLessThan(0.1);
    expect(large[1]).toBeGreaterThan(0.1);
  });
});
