/** Deterministic randomness for the simulated cloud: the same seed and key give the same demo data. */
import { mulberry32 } from "@shared/kernel";

/** FNV-1a: a stable 32-bit seed from text. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32 (the kernel's seeded PRNG): floats in [0, 1). */
export const prng: (seed: number) => () => number = mulberry32;
