/**
 * At most one event per key per window (per worker): the scorer's log lines go through it so that
 * a misconfigured index under load writes one line a minute, not one per search.
 */
export class RateLimiter {
  private readonly last = new Map<string, { at: number; suppressed: number }>();
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly maxKeys: number;

  constructor(now: () => number, windowMs = 60_000, maxKeys = 10_000) {
    this.now = now;
    this.windowMs = windowMs;
    this.maxKeys = maxKeys;
  }

  /**
   * Null when the event falls inside the key's window (it is counted as suppressed); otherwise the
   * number of events suppressed since the key's previous allowed one.
   */
  take(key: string): number | null {
    const now = this.now();
    const entry = this.last.get(key);
    if (entry !== undefined && now - entry.at < this.windowMs) {
      entry.suppressed++;
      return null;
    }
    const suppressed = entry?.suppressed ?? 0;
    this.last.delete(key);
    if (this.last.size >= this.maxKeys) {
      // Entries are in the order they were last allowed: the oldest is the first.
      const oldest = this.last.keys().next();
      if (oldest.done !== true) this.last.delete(oldest.value);
    }
    this.last.set(key, { at: now, suppressed: 0 });
    return suppressed;
  }
}
