/**
 * Status changes as rows: the rows the alert
 * engine records for its flips and notification intents, and the in-memory `TransitionStore` (tests,
 * and the reference the contract suite holds the other adapters to).
 */
import {
  type AlertState,
  emptyState,
  type Flip,
  type IntentItem,
  itemIdentity,
  type NotificationIntent,
} from "./alerts/index.ts";
import type { ClaimResult, PutStateResult, Transition, TransitionRow, TransitionStore } from "./ports.ts";

/** Default lease of a claim: a sender that crashed after claiming is replaced after this long. */
export const DEFAULT_CLAIM_LEASE_MS = 60_000;

/** The row of a status change; its id is stable, so recording it again is a no-op. */
export function flipTransition(f: Flip, episode: number): Transition {
  return {
    id: `flip|${f.rule}|${f.subject}|${episode}|${f.to}`,
    kind: "flip",
    rule: f.rule,
    subject: f.subject,
    at: f.at,
    data: { ...f, episode },
  };
}

/** The row of a notification intent, keyed by the intent's content-derived id. */
export function intentTransition(intent: NotificationIntent): Transition {
  const one = intent.items.length === 1 ? intent.items[0] : undefined;
  return {
    id: intent.id,
    kind: "notification",
    rule: intent.rule,
    subject: one !== undefined ? one.subject : `${intent.items.length} subjects`,
    at: intent.createdAt,
    data: intent,
  };
}

/**
 * The row of one alert's item in a notification: its id is the item's identity, so the same item in a
 * notification grouped otherwise (another evaluator, a retry) is the same row and is claimed once.
 */
export function deliveryTransition(intent: NotificationIntent, item: IntentItem): Transition {
  return {
    id: `delivery|${itemIdentity(item)}`,
    kind: "delivery",
    rule: intent.rule,
    subject: item.subject,
    at: intent.createdAt,
    data: { notification: intent.id, item },
  };
}

/** Whether a claimant may take `row` at `now` (shared by the adapters that check in code). */
export function claimable(row: TransitionRow, claimant: string, now: number): ClaimResult {
  if (row.sentAt !== null) return { ok: false, sent: true, heldBy: row.claimedBy };
  if (row.claimedBy !== null && row.claimedBy !== claimant && row.leaseUntil !== null && row.leaseUntil > now)
    return { ok: false, sent: false, heldBy: row.claimedBy };
  return { ok: true };
}

const copy = <T>(v: T): T => structuredClone(v);

/** In process memory: every method checks and writes without awaiting in between (atomic in JS). */
export class InMemoryTransitionStore implements TransitionStore {
  readonly #rows = new Map<string, TransitionRow>();
  #state: { json: string; version: number } | null = null;

  async record(t: Transition): Promise<boolean> {
    if (this.#rows.has(t.id)) return false;
    this.#rows.set(t.id, { ...copy(t), claimedBy: null, leaseUntil: null, sentAt: null, retiredAt: null });
    return true;
  }

  async claim(id: string, claimant: string, now: number, leaseMs: number): Promise<ClaimResult> {
    const row = this.#rows.get(id);
    if (row === undefined) return { ok: false, sent: false, heldBy: null };
    const r = claimable(row, claimant, now);
    if (r.ok) {
      row.claimedBy = claimant;
      row.leaseUntil = now + leaseMs;
    }
    return r;
  }

  async markSent(id: string, claimant: string, now: number): Promise<boolean> {
    const row = this.#rows.get(id);
    if (row === undefined || row.claimedBy !== claimant || row.sentAt !== null) return false;
    row.sentAt = now;
    return true;
  }

  async release(id: string, claimant: string): Promise<boolean> {
    const row = this.#rows.get(id);
    if (row === undefined || row.claimedBy !== claimant || row.sentAt !== null) return false;
    row.leaseUntil = null;
    return true;
  }

  async retire(id: string, now: number): Promise<boolean> {
    const row = this.#rows.get(id);
    if (row === undefined || row.sentAt !== null || row.retiredAt !== null) return false;
    row.retiredAt = now;
    return true;
  }

  async unsent(now: number): Promise<TransitionRow[]> {
    return [...this.#rows.values()]
      .filter(
        (r) =>
          r.kind === "notification" &&
          r.sentAt === null &&
          r.retiredAt === null &&
          (r.leaseUntil === null || r.leaseUntil <= now),
      )
      .sort(byAtThenId)
      .map(copy);
  }

  async list(
    opts: { since?: number; kind?: Transition["kind"]; limit?: number } = {},
  ): Promise<TransitionRow[]> {
    const rows = [...this.#rows.values()]
      .filter(
        (r) =>
          (opts.since === undefined || r.at >= opts.since) &&
          (opts.kind === undefined || r.kind === opts.kind),
      )
      .sort(byAtThenId)
      .map(copy);
    return opts.limit === undefined ? rows : rows.slice(0, opts.limit);
  }

  async get(id: string): Promise<TransitionRow | null> {
    const row = this.#rows.get(id);
    return row === undefined ? null : copy(row);
  }

  async readState(): Promise<{ state: AlertState; version: number }> {
    if (this.#state === null) return { state: emptyState(), version: 0 };
    return { state: JSON.parse(this.#state.json) as AlertState, version: this.#state.version };
  }

  async putState(state: AlertState, expectedVersion: number): Promise<PutStateResult> {
    const current = this.#state?.version ?? 0;
    if (current !== expectedVersion) return { ok: false, conflict: true, version: current };
    this.#state = { json: JSON.stringify(state), version: current + 1 };
    return { ok: true, version: current + 1 };
  }
}

export function byAtThenId(a: { at: number; id: string }, b: { at: number; id: string }): number {
  return a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
