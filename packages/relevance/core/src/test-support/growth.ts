// Test-only: how work grows with input size, without absolute wall-clock assertions. Two sizes are
// measured in the same run and compared, so a slow machine slows both alike. The measure is the
// process's own CPU time where the runtime offers it (Node's process.cpuUsage): time spent waiting
// for a CPU that other processes hold (a busy CI machine) is not counted, which wall-clock time is.

const cpu = (globalThis as { process?: { cpuUsage?: () => { user: number; system: number } } }).process
  ?.cpuUsage;

/** Milliseconds of this process's CPU time, or of the wall clock where CPU time is not available. */
function clockMs(): number {
  if (cpu === undefined) return performance.now();
  const { user, system } = cpu();
  return (user + system) / 1000;
}

/**
 * The CPU milliseconds one call of `fn` costs: calls are repeated until `minMs` have passed, so a
 * call far shorter than the clock's resolution is still measured; the lowest of `runs` such
 * measurements is kept, robust against a GC pause or a busy CPU.
 */
export function perCall(fn: () => void, runs = 3, minMs = 4): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    let calls = 0;
    const start = clockMs();
    let end = start;
    do {
      fn();
      calls++;
      end = clockMs();
    } while (end - start < minMs);
    best = Math.min(best, (end - start) / calls);
  }
  return best;
}

/**
 * How many times longer `work(large)` takes than `work(small)`. Linear work on 10x the input gives
 * about 10 where both inputs fit the CPU's caches, and more where only the small one does (a 100x
 * larger text measured 18-800x here, each character costing more once the text leaves the caches);
 * quadratic work gives the square. Callers compare with a bound far from both, and pass a tighter
 * one as `bound` so a noisy measurement above it is taken again.
 */
export function growth<T>(work: (input: T) => unknown, small: T, large: T, bound = 15): number {
  // Warm up the JIT on both sizes (a first pass over the large input also pays for growing the heap).
  work(small);
  work(large);
  let ratio = Number.POSITIVE_INFINITY;
  // Measured again (up to five times) while at or over the caller's bound: a busy machine (other
  // test files share the CPU) can slow a pass of the large input, never make quadratic work look linear.
  for (let attempt = 0; attempt < 5 && ratio >= bound; attempt++) {
    const a = perCall(() => work(small));
    const b = perCall(() => work(large));
    ratio = Math.min(ratio, b / a);
  }
  return ratio;
}
