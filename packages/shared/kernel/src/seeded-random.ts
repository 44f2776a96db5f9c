/**
 * mulberry32: a small seeded PRNG returning floats in [0, 1). Everything that must replay the same
 * "random" choices from a seed uses this one: generated test and benchmark data, the monitor's
 * simulated cloud, the simulated shopper, the trainer's subsampling.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
