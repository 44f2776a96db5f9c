/**
 * At most `perSecond` takes per key in each wall-clock second (per process or Worker isolate): the
 * events route's rate per API key. The map holds only the keys of the current second, so its size
 * is bounded by the keys active in one second.
 */
export class PerSecondBudget {
  private second = -1;
  private readonly counts = new Map<string, number>();

  private readonly now: () => number;
  private readonly perSecond: number;

  constructor(now: () => number, perSecond: number) {
    this.now = now;
    this.perSecond = perSecond;
  }

  take(key: string): boolean {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.counts.clear();
    }
    const used = this.counts.get(key) ?? 0;
    if (used >= this.perSecond) return false;
    this.counts.set(key, used + 1);
    return true;
  }
}
