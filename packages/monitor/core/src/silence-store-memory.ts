/** The in-memory `SilenceStore` (tests, and any stack without a persistent one). */
import type { Silence } from "./alerts/index.ts";
import type { SilenceStore } from "./ports.ts";

const byCreated = (a: Silence, b: Silence): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class InMemorySilenceStore implements SilenceStore {
  readonly #rows = new Map<string, Silence>();

  async create(silence: Silence): Promise<boolean> {
    if (this.#rows.has(silence.id)) return false;
    this.#rows.set(silence.id, structuredClone(silence));
    return true;
  }

  async list(): Promise<Silence[]> {
    return [...this.#rows.values()].map((s) => structuredClone(s)).sort(byCreated);
  }

  async expire(id: string, at: number): Promise<Silence | null> {
    const s = this.#rows.get(id);
    if (s === undefined) return null;
    if (s.endsAt > at) {
      s.endsAt = at;
      if (s.startsAt > at) s.startsAt = at;
    }
    return structuredClone(s);
  }

  async prune(before: number): Promise<number> {
    let n = 0;
    for (const [id, s] of this.#rows)
      if (s.endsAt < before) {
        this.#rows.delete(id);
        n += 1;
      }
    return n;
  }
}
