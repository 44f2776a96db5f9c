// Loaded into `npm start`'s process by the benchmarks (`node --import`): how long the event loop was
// held. A 1 ms timer notes the longest gap between its ticks; the benchmark resets it before a
// request and reads it after, over the IPC channel. The gap is the longest time any callback (a
// request's handler, a task, a snapshot write, an alert tick) kept every other request waiting.
// (perf_hooks' monitorEventLoopDelay drops the first delay after a reset, which is the one wanted.)
// It also says how much of that gap was garbage collection (perf_hooks' `gc` entries that overlap
// it), since a pause of the collector holds the loop as surely as a long callback does.
import { PerformanceObserver, performance } from "node:perf_hooks";

/** V8's collection kinds as perf_hooks numbers them (constants.NODE_PERFORMANCE_GC_*). */
const GC_KINDS: Record<number, string> = { 1: "minor", 2: "major", 4: "incremental", 8: "weakcb" };
/** Collections kept to attribute a gap: a few seconds' worth is plenty. */
const GC_KEPT = 512;

if (typeof process.send === "function") {
  let last = performance.now();
  let max = 0;
  let maxEnd = 0;
  const collections: Array<{ start: number; end: number; kind: string }> = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = ((entry as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind ?? 0;
      collections.push({
        start: entry.startTime,
        end: entry.startTime + entry.duration,
        kind: GC_KINDS[kind] ?? String(kind),
      });
      if (collections.length > GC_KEPT) collections.shift();
    }
  }).observe({ entryTypes: ["gc"] });
  const tick = () => {
    const now = performance.now();
    if (now - last > max) {
      max = now - last;
      maxEnd = now;
    }
    last = now;
    setTimeout(tick, 1).unref();
  };
  setTimeout(tick, 1).unref();
  /** Milliseconds of collection inside the longest gap, and their kinds. */
  const inGap = () => {
    const start = maxEnd - max;
    let gcMs = 0;
    const kinds = new Set<string>();
    for (const c of collections) {
      const overlap = Math.min(c.end, maxEnd) - Math.max(c.start, start);
      if (overlap <= 0) continue;
      gcMs += overlap;
      kinds.add(c.kind);
    }
    return { gcMs, gcKinds: [...kinds] };
  };
  process.on("message", (message: { probe?: string; id?: number }) => {
    if (message?.probe === "reset") {
      max = 0;
      maxEnd = performance.now();
      process.send?.({ probe: "reset", id: message.id });
    } else if (message?.probe === "read") {
      const now = performance.now();
      if (now - last > max) {
        max = now - last;
        maxEnd = now;
      }
      process.send?.({ probe: "read", id: message.id, maxMs: max, ...inGap() });
    }
  });
  // The channel must not keep a stack that was told to stop alive.
  process.channel?.unref();
}
