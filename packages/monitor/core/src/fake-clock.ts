import type { Clock } from "./ports.ts";

/** A manual clock for tests: time moves only through `advance`, timers fire in time order. */

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

const realTick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Map<number, Timer>();

  constructor(start: number) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), seq: id, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Pending timers. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing due timers in order (letting real I/O callbacks run between). */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      let next: [number, Timer] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at > target) continue;
        if (!next || entry[1].at < next[1].at || (entry[1].at === next[1].at && entry[1].seq < next[1].seq)) {
          next = entry;
        }
      }
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#now = Math.max(this.#now, next[1].at);
      next[1].fn();
      await realTick();
    }
    this.#now = target;
    await realTick();
  }

  /** Waits (in real time) until at least `n` timers are pending. */
  async waitForTimers(n = 1, realTimeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + realTimeoutMs;
    while (this.#timers.size < n) {
      if (Date.now() > deadline) throw new Error(`expected ${n} pending timers, have ${this.#timers.size}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}
