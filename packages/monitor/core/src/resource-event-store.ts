/**
 * Where the ingest consumer stores the collectors' events (docs/monitor-tables.md, svc.resource_events):
 * an append-only log of `ResourceEvent`s with the time each was received. Queues deliver at least once
 * (SQS redelivers after a visibility timeout, a publisher retry can send an event twice), so every
 * event has an id derived from its content, and appending an event already stored stores nothing.
 */

import { createHash } from "node:crypto";
import type {
  AppendResult,
  ResourceEvent,
  ResourceEventFilter,
  ResourceEventStore,
  StoredResourceEvent,
} from "./ports.ts";
import { validateResourceEvent } from "./resource-event.ts";
import { RunStoreValidationError } from "./run-store.ts";

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = canonical((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/**
 * The event's identity: SHA-256 (hex, 32 characters) of its fields with object keys in a fixed order.
 * The same observation delivered twice has the same id; another observation (another time, other
 * attributes, another collector) has another.
 */
export function resourceEventId(e: ResourceEvent): string {
  const fields = [
    e.kind,
    e.collector,
    e.account_id,
    e.region,
    e.resource_type,
    e.resource_id,
    e.observed_at,
    canonical(e.attributes),
  ];
  return createHash("sha256").update(JSON.stringify(fields)).digest("hex").slice(0, 32);
}

/**
 * The batch checked and keyed: every event valid (else RunStoreValidationError, nothing stored), and
 * each id once, in the batch's order.
 */
export function checkedEvents(events: readonly ResourceEvent[]): {
  unique: { id: string; event: ResourceEvent }[];
  repeated: number;
} {
  const byId = new Map<string, ResourceEvent>();
  events.forEach((e, i) => {
    const checked = validateResourceEvent(e);
    if (!checked.ok) {
      const first = checked.errors[0] ?? { path: "event", message: "is invalid" };
      throw new RunStoreValidationError(i, first.path, first.message);
    }
    const id = resourceEventId(checked.value);
    if (!byId.has(id)) byId.set(id, checked.value);
  });
  return {
    unique: [...byId].map(([id, event]) => ({ id, event })),
    repeated: events.length - byId.size,
  };
}

/** The list order of the port, for adapters that sort in memory. */
export function compareStoredEvents(a: StoredResourceEvent, b: StoredResourceEvent): number {
  if (a.observed_at !== b.observed_at) return b.observed_at - a.observed_at;
  for (const k of ["account_id", "region", "resource_type", "resource_id", "event_id"] as const) {
    if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  }
  return 0;
}

/** In memory (tests, and a process without a database); lost on exit. */
export class MemoryResourceEventStore implements ResourceEventStore {
  readonly #events = new Map<string, StoredResourceEvent>();
  readonly #now: () => number;

  constructor(opts: { now?: () => number } = {}) {
    this.#now = opts.now ?? Date.now;
  }

  async append(events: readonly ResourceEvent[]): Promise<AppendResult> {
    const { unique, repeated } = checkedEvents(events);
    const receivedAt = this.#now();
    let stored = 0;
    for (const { id, event } of unique) {
      if (this.#events.has(id)) continue;
      this.#events.set(id, { ...event, event_id: id, received_at: receivedAt });
      stored += 1;
    }
    return { stored, duplicates: repeated + unique.length - stored };
  }

  async list(filter: ResourceEventFilter = {}): Promise<StoredResourceEvent[]> {
    return [...this.#events.values()]
      .filter(
        (e) =>
          (filter.account_id === undefined || e.account_id === filter.account_id) &&
          (filter.resource_id === undefined || e.resource_id === filter.resource_id),
      )
      .sort(compareStoredEvents)
      .slice(0, filter.limit ?? 1000);
  }
}
