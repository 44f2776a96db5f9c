/**
 * A concurrency limit in front of calls to a back end: the AWS collectors' SDK calls (the scheduler
 * starts every account × region of a tick at once, and a few hundred parallel Describe calls would
 * only be throttled) and the alert engine's per-alert transition writes (a storm of alerts is that
 * many conditional writes, which in sequence would take seconds on DynamoDB).
 */
export class Limiter {
  readonly #max: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(max: number) {
    if (!(Number.isInteger(max) && max >= 1))
      throw new Error(`concurrency limit must be an integer ≥ 1, got ${max}`);
    this.#max = max;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `fn` once a slot is free; a caller whose signal aborts while waiting leaves the queue. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.#max) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        this.#active++;
        resolve();
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(grant);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason);
      };
      this.#waiting.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #release(): void {
    this.#active--;
    this.#waiting.shift()?.();
  }
}
