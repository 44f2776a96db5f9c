/**
 * The alert engine's memo of which silences match which alert subjects. A subject regex is tested by
 * JavaScript's backtracking engine: each test is bounded (`SILENCE_REGEX_MAX_PATHS`), but 100
 * silences against every alert of a tick still add up, so the engine fills this memo before the
 * step in slices that give the event loop back every few milliseconds (`warm`), and the step reads
 * it (`matches`). A pair seen in the previous tick is not tested again: silences never change their
 * matchers and subjects repeat tick after tick. What a tick did not use is forgotten at its end.
 */
import {
  type AlertRule,
  type Silence,
  type SilenceMatchFn,
  silenceActive,
  silenceMatches,
  subjectMatches,
} from "@monitor/core";

/** Slices of regex tests between two yields to the event loop, at most this long (ms). */
export const SILENCE_MATCH_SLICE_MS = 5;

export interface SilenceMatchMemoOptions {
  /** Milliseconds since some start, for the slices only (never in a rule). Default `performance.now`. */
  elapsed?: () => number;
  /** Gives the event loop back. Default: `setImmediate`. */
  yieldToLoop?: () => Promise<void>;
  sliceMs?: number;
}

/** pattern → subject → whether the regex matches the whole subject (the strings' hashes are cached). */
type Pairs = Map<string, Map<string, boolean>>;

export class SilenceMatchMemo {
  #previous: Pairs = new Map();
  #current: Pairs = new Map();
  #pairs = 0;
  #previousPairs = 0;
  readonly #elapsed: () => number;
  readonly #yield: () => Promise<void>;
  readonly #sliceMs: number;
  /** Regex tests run (not answered from the memo), for tests. */
  tested = 0;

  constructor(options: SilenceMatchMemoOptions = {}) {
    this.#elapsed = options.elapsed ?? (() => performance.now());
    this.#yield = options.yieldToLoop ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
    this.#sliceMs = options.sliceMs ?? SILENCE_MATCH_SLICE_MS;
  }

  #regex(pattern: string, subject: string): boolean {
    let now = this.#current.get(pattern);
    const known = now?.get(subject);
    if (known !== undefined) return known;
    let hit = this.#previous.get(pattern)?.get(subject);
    if (hit === undefined) {
      this.tested += 1;
      hit = subjectMatches({ op: "regex", value: pattern }, subject);
    }
    if (now === undefined) {
      now = new Map();
      this.#current.set(pattern, now);
    }
    now.set(subject, hit);
    this.#pairs += 1;
    return hit;
  }

  /** `silenceMatches`, with subject regexes answered from the memo (tested on a miss). */
  readonly matches: SilenceMatchFn = (s, alert) => {
    const m = s.matchers.subject;
    if (m === null || m.op !== "regex") return silenceMatches(s, alert);
    if (s.matchers.rule !== null && s.matchers.rule !== alert.rule) return false;
    return this.#regex(m.value, alert.subject);
  };

  /**
   * Tests the active silences' subject regexes against `alerts` ahead of the step, yielding to the
   * event loop whenever a slice has run `sliceMs`.
   */
  async warm(
    silences: readonly Silence[],
    alerts: Iterable<{ rule: AlertRule; subject: string }>,
    now: number,
  ): Promise<void> {
    const regexes = silences.filter((s) => s.matchers.subject?.op === "regex" && silenceActive(s, now));
    if (regexes.length === 0) return;
    let start = this.#elapsed();
    for (const alert of alerts) {
      for (const s of regexes) {
        this.matches(s, alert);
        if (this.#elapsed() - start >= this.#sliceMs) {
          await this.#yield();
          start = this.#elapsed();
        }
      }
    }
  }

  /** Ends a tick: what it used is kept for the next one, the rest forgotten. */
  endTick(): void {
    this.#previous = this.#current;
    this.#previousPairs = this.#pairs;
    this.#current = new Map();
    this.#pairs = 0;
  }

  /** Pairs remembered (for the memory bound's test). */
  get size(): number {
    return this.#previousPairs + this.#pairs;
  }
}
