import type { CollectorDeleteOutcome, CollectorRegistry } from "./ports.ts";
import { type CollectorSpec, DEFAULT_COLLECTORS, type RegisteredBy } from "./records.ts";

/**
 * An in-memory CollectorRegistry seeded with DEFAULT_COLLECTORS. The port is three methods; the
 * ClickHouse registry has its own contract tests. With `now`, it registers like the ClickHouse one: a
 * collector without a registration is registered at `now()` the first time it is listed or put, and
 * a second registration keeps the first time. Without `now`, seeded collectors keep the registration
 * they were given (none: unknown, so a collector that never ran has no grace and is red).
 */
export class InMemoryCollectorRegistry implements CollectorRegistry {
  readonly #specs = new Map<string, CollectorSpec>();
  readonly #now: (() => number) | undefined;
  /** The seed is the configuration: those collectors cannot be deleted. */
  readonly #configured: ReadonlySet<string>;
  constructor(seed: readonly CollectorSpec[] = DEFAULT_COLLECTORS, opts: { now?: () => number } = {}) {
    for (const s of seed) this.#specs.set(s.name, { ...s });
    this.#configured = new Set(seed.map((s) => s.name));
    this.#now = opts.now;
  }
  #register(spec: CollectorSpec, by: RegisteredBy): CollectorSpec {
    if ((spec.registered_at ?? null) !== null || this.#now === undefined) return spec;
    const registered = { ...spec, registered_at: this.#now(), registered_by: by };
    this.#specs.set(spec.name, registered);
    return registered;
  }
  async list(): Promise<CollectorSpec[]> {
    return [...this.#specs.values()].map((s) => ({ ...this.#register(s, "config") }));
  }
  async get(name: string): Promise<CollectorSpec | null> {
    const s = this.#specs.get(name);
    return s === undefined ? null : { ...s };
  }
  async put(spec: CollectorSpec): Promise<void> {
    const prev = this.#specs.get(spec.name);
    const kept = {
      ...spec,
      registered_at: prev?.registered_at ?? null,
      registered_by: prev?.registered_by ?? null,
    };
    this.#specs.set(spec.name, kept);
    this.#register(kept, prev === undefined ? "api" : (prev.registered_by ?? "config"));
  }
  async registerIfAbsent(spec: CollectorSpec, by: RegisteredBy): Promise<boolean> {
    if (this.#specs.has(spec.name)) return false;
    const fresh = { ...spec, registered_at: null, registered_by: null };
    this.#specs.set(spec.name, fresh);
    // Without a clock the registration time is unknown, but how it came is still recorded.
    if (this.#now === undefined) this.#specs.set(spec.name, { ...fresh, registered_by: by });
    else this.#register(fresh, by);
    return true;
  }
  async delete(name: string): Promise<CollectorDeleteOutcome> {
    if (this.#configured.has(name)) return "configured";
    return this.#specs.delete(name) ? "deleted" : "not_found";
  }
}
