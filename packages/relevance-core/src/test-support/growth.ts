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

/** The fastest of `runs` measurements of `fn`, in milliseconds: robust against a GC pause or a busy CPU. */
export function fastest(fn: () => void, runs = 5): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = clockMs();
    fn();
    best = Math.min(best, clockMs() - start);
  }
  return best;
}

/**
 * How many times longer `work(large)` takes than `work(small)`. Linear work on 10x the input gives
 * about 10; quadratic about 100. Callers compare with a generous bound (30), and pass a tighter
 * one as `bound` so a noisy measurement above it is taken again.
 */
export function growth<T>(work: (input: T) => unknown, small: T, large: T, bound = 15): number {
  // Warm up the JIT on both sizes (a first pass over the large input also pays for growing the heap).
  work(small);
  work(large);
  // The lowest of up to five measurements: a busy machine (other test files share the CPU) can slow
  // a pass of the large input, never make quadratic work look linear.
  let ratio = Number.POSITIVE_INFINITY;
  // Measured again (up to five times) while at or over the caller's bound: noise only ever inflates it.
  for (let attempt = 0; attempt < 5 && ratio >= bound; attempt++) {
    const a = fastest(() => work(small));
    const b = fastest(() => work(large), 3);
    // A floor of 0.05 ms keeps a sub-timer-resolution small run from inflating the ratio.
    ratio = Math.min(ratio, b / Math.max(a, 0.05));
  }
  return ratio;
}
