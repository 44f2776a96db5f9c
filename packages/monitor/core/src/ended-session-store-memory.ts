/** The in-memory `EndedSessionStore` (tests, and an app built without a shared one). */
import type { EndedSessionStore } from "./ports.ts";

export class InMemoryEndedSessionStore implements EndedSessionStore {
  readonly #ended = new Map<string, number>();

  async end(id: string, expiresAt: number): Promise<void> {
    this.#ended.set(id, Math.max(expiresAt, this.#ended.get(id) ?? 0));
  }

  async ended(id: string): Promise<boolean> {
    return this.#ended.has(id);
  }

  async prune(before: number): Promise<number> {
    let n = 0;
    for (const [id, expiresAt] of this.#ended)
      if (expiresAt < before) {
        this.#ended.delete(id);
        n += 1;
      }
    return n;
  }
}
