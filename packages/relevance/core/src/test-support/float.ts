// Test-only nextafter-style helpers for float64 and float32 neighbours.

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** The next float64 after x towards +Infinity (or -Infinity with `down`), like C's nextafter. */
export function nextFloat64(x: number, down = false): number {
  if (Number.isNaN(x)) return x;
  if (x === 0) return down ? -Number.MIN_VALUE : Number.MIN_VALUE;
  if (x === (down ? -Infinity : Infinity)) return x;
  f64[0] = x;
  const away = x > 0 !== down; // moving away from zero increases the magnitude bits
  u64[0] = away ? (u64[0] as bigint) + 1n : (u64[0] as bigint) - 1n;
  return f64[0] as number;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The next float32 after fround(x) towards +Infinity (or -Infinity with `down`), as a number. */
export function nextFloat32(x: number, down = false): number {
  const r = Math.fround(x);
  if (Number.isNaN(r)) return r;
  if (r === 0) return down ? -(2 ** -149) : 2 ** -149;
  if (r === (down ? -Infinity : Infinity)) return r;
  f32[0] = r;
  const away = r > 0 !== down;
  u32[0] = away ? (u32[0] as number) + 1 : (u32[0] as number) - 1;
  return f32[0] as number;
}

/** The largest float32 value below x (strictly). */
export function float32Below(x: number): number {
  const r = Math.fround(x);
  return r < x ? r : nextFloat32(r, true);
}

/** The smallest float32 value above x (strictly). */
export function float32Above(x: number): number {
  const r = Math.fround(x);
  return r > x ? r : nextFloat32(r);
}
