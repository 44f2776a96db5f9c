// Loaded into `npm start`'s process by the benchmarks (`node --import`): how long the event loop was
// held. A 1 ms timer notes the longest gap between its ticks; the benchmark resets it before a
// request and reads it after, over the IPC channel. The gap is the longest time any callback (a
// request's handler, a task, a snapshot write, an alert tick) kept every other request waiting.
// (perf_hooks' monitorEventLoopDelay drops the first delay after a reset, which is the one wanted.)
import { performance } from "node:perf_hooks";

if (typeof process.send === "function") {
  let last = performance.now();
  let max = 0;
  const tick = () => {
    const now = performance.now();
    if (now - last > max) max = now - last;
    last = now;
    setTimeout(tick, 1).unref();
  };
  setTimeout(tick, 1).unref();
  process.on("message", (message: { probe?: string; id?: number }) => {
    if (message?.probe === "reset") {
      max = 0;
      process.send?.({ probe: "reset", id: message.id });
    } else if (message?.probe === "read") {
      process.send?.({ probe: "read", id: message.id, maxMs: Math.max(max, performance.now() - last) });
    }
  });
  // The channel must not keep a stack that was told to stop alive.
  process.channel?.unref();
}
