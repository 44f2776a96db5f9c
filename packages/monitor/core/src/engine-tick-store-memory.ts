/** The alert engine's rounds in process memory (tests; a stack without a database). */
import type { EngineTick, EngineTickStore } from "./ports.ts";

/** Rounds kept: the latest is all a reader asks for; a few hundred show the recent history in a debugger. */
const KEPT = 500;

export class InMemoryEngineTickStore implements EngineTickStore {
  #ticks: EngineTick[] = [];

  async record(tick: EngineTick): Promise<void> {
    this.#ticks.push({ ...tick });
    if (this.#ticks.length > KEPT) this.#ticks.splice(0, this.#ticks.length - KEPT);
  }

  async latest(): Promise<EngineTick | null> {
    let best: EngineTick | null = null;
    // Ties: the one recorded last.
    for (const t of this.#ticks) if (best === null || t.completed_at >= best.completed_at) best = t;
    return best === null ? null : { ...best };
  }
}
