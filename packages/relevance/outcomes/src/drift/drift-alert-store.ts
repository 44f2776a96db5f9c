/**
 * Where drift alerts' state changes are kept: one row per change, the current state of an alert
 * being its latest row, and each row claimed before its notification is sent and marked sent after.
 *
 * The rows live in the settings table (SQLite for npm start, DynamoDB in production), not in the
 * outcome database: a claim needs a conditional write (two checks running at once must not both
 * send), which the table has (`expectedVersion`, `mustNotExist`) and ClickHouse has not. The
 * partition is `DRIFT#<account>`, apart from the account's own items, and the exporter copies
 * nothing of it to KV (settingsCopyKey knows only index, key and CORS items).
 *
 * The adapter needs only get/put/query of the table's port, declared here structurally so this
 * package does not depend on @relevance/settings.
 */
import type { DriftAlertState, DriftTransition } from "./drift-alerts.ts";
import { alertKeyText } from "./drift-alerts.ts";

/** Sent rows older than this are deleted by the check: the table keeps a bounded history. */
export const DRIFT_HISTORY_DAYS = 90;
/** How long a claim holds before another check may take it (a crash between claim and send). */
export const DRIFT_CLAIM_LEASE_MS = 5 * 60_000;

export type DriftClaim = { ok: true } | { ok: false; sent: boolean; heldBy: string | null };

export interface DriftAlertStore {
  /** The current state of every alert of the account (its latest row), by alertKeyText. */
  states(account: string): Promise<Map<string, DriftAlertState>>;
  /** Stores a change; false when it was stored before (the same id): nothing is written then. */
  record(t: DriftTransition): Promise<boolean>;
  /** The account's changes not yet sent, oldest first. */
  unsent(account: string): Promise<DriftTransition[]>;
  /** Takes the right to send `id` until now + leaseMs; refused while another holds it or once it is sent. */
  claim(id: string, account: string, claimant: string, now: number, leaseMs: number): Promise<DriftClaim>;
  /** Marks a claimed change sent (by its claimant). */
  markSent(id: string, account: string, claimant: string, now: number): Promise<void>;
  /** Deletes the account's sent rows from before `before` (epoch ms), except each alert's latest. */
  prune(account: string, before: number): Promise<number>;
}

/** The settings table as this adapter uses it (a subset of @relevance/settings' SettingsTable). */
export interface DriftTable {
  get(pk: string, sk: string): Promise<{ version: number; attributes: Record<string, unknown> } | null>;
  put(
    pk: string,
    sk: string,
    attributes: Record<string, unknown>,
    condition: { expectedVersion: number } | { mustNotExist: true },
  ): Promise<{ ok: boolean }>;
  delete(pk: string, sk: string, condition: { expectedVersion: number }): Promise<{ ok: boolean }>;
  query(
    pk: string,
    skPrefix: string,
  ): Promise<{ sk: string; version: number; attributes: Record<string, unknown> }[]>;
}

const pkOf = (account: string) => `DRIFT#${account}`;
/** Day first: rows sort by the day of their change, so the latest row of an alert is the last. */
const skOf = (t: Pick<DriftTransition, "day" | "id">) => `${t.day}#${t.id}`;

interface Row {
  transition: DriftTransition;
  claimedBy: string | null;
  claimedUntil: number;
  sentAt: number | null;
}

function rowOf(attributes: Record<string, unknown>): Row {
  return attributes as unknown as Row;
}

export class TableDriftAlertStore implements DriftAlertStore {
  readonly #table: DriftTable;
  constructor(table: DriftTable) {
    this.#table = table;
  }

  async #rows(account: string) {
    return (await this.#table.query(pkOf(account), "")).map((i) => ({ ...i, row: rowOf(i.attributes) }));
  }

  async states(account: string): Promise<Map<string, DriftAlertState>> {
    const out = new Map<string, DriftAlertState>();
    // In sort-key order: day ascending, so a later change of an alert replaces an earlier one.
    for (const { row } of await this.#rows(account)) out.set(alertKeyText(row.transition), row.transition);
    return out;
  }

  async record(t: DriftTransition): Promise<boolean> {
    const row: Row = { transition: t, claimedBy: null, claimedUntil: 0, sentAt: null };
    const res = await this.#table.put(pkOf(t.account), skOf(t), { ...row }, { mustNotExist: true });
    return res.ok;
  }

  async unsent(account: string): Promise<DriftTransition[]> {
    return (await this.#rows(account)).filter((r) => r.row.sentAt === null).map((r) => r.row.transition);
  }

  async #find(account: string, id: string) {
    return (await this.#rows(account)).find((r) => r.row.transition.id === id) ?? null;
  }

  async claim(
    id: string,
    account: string,
    claimant: string,
    now: number,
    leaseMs: number,
  ): Promise<DriftClaim> {
    const item = await this.#find(account, id);
    if (item === null) return { ok: false, sent: false, heldBy: null };
    const { row } = item;
    if (row.sentAt !== null) return { ok: false, sent: true, heldBy: row.claimedBy };
    if (row.claimedBy !== null && row.claimedBy !== claimant && row.claimedUntil > now)
      return { ok: false, sent: false, heldBy: row.claimedBy };
    const next: Row = { ...row, claimedBy: claimant, claimedUntil: now + leaseMs };
    const res = await this.#table.put(pkOf(account), item.sk, { ...next }, { expectedVersion: item.version });
    // Another check wrote the row between our read and write: it holds the claim.
    return res.ok ? { ok: true } : { ok: false, sent: false, heldBy: null };
  }

  async markSent(id: string, account: string, claimant: string, now: number): Promise<void> {
    const item = await this.#find(account, id);
    if (item === null || item.row.claimedBy !== claimant || item.row.sentAt !== null) return;
    await this.#table.put(
      pkOf(account),
      item.sk,
      { ...item.row, sentAt: now },
      { expectedVersion: item.version },
    );
  }

  async prune(account: string, before: number): Promise<number> {
    const rows = await this.#rows(account);
    const latest = new Map<string, string>();
    for (const r of rows) latest.set(alertKeyText(r.row.transition), r.sk);
    let deleted = 0;
    for (const r of rows) {
      const old = Date.parse(r.row.transition.at) < before;
      if (!old || r.row.sentAt === null || latest.get(alertKeyText(r.row.transition)) === r.sk) continue;
      if ((await this.#table.delete(pkOf(account), r.sk, { expectedVersion: r.version })).ok) deleted++;
    }
    return deleted;
  }
}
