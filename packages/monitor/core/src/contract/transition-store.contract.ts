/**
 * One behaviour suite for every `TransitionStore` adapter: in memory, SQLite (the embedded stack) and
 * DynamoDB (production, on dynalite). Each adapter's test file calls `transitionStoreContract`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AlertState, emptyState } from "../alerts/index.ts";
import type { Transition, TransitionStore } from "../ports.ts";

export interface TransitionStoreAdapter {
  name: string;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** A store with nothing recorded and no state saved. */
  open(): Promise<TransitionStore>;
}

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const LEASE = 60_000;

function note(id: string, at = T0): Transition {
  return {
    id,
    kind: "notification",
    rule: "collector_stale",
    subject: "config_ec2",
    at,
    data: { id, items: [{ subject: "config_ec2", detail: "größe ✓" }] },
  };
}

function sampleState(seq: number): AlertState {
  return { ...emptyState(), seq };
}

export function transitionStoreContract(adapter: TransitionStoreAdapter): void {
  describe(`TransitionStore contract: ${adapter.name}`, () => {
    beforeAll(async () => adapter.setup?.());
    afterAll(async () => adapter.teardown?.());

    it("records a row once: the same id again is a no-op", async () => {
      const s = await adapter.open();
      expect(await s.record(note("n1"))).toBe(true);
      expect(await s.record({ ...note("n1"), subject: "other" })).toBe(false);
      const row = await s.get("n1");
      expect(row).toMatchObject({
        ...note("n1"),
        claimedBy: null,
        leaseUntil: null,
        sentAt: null,
        retiredAt: null,
      });
      expect(await s.get("missing")).toBeNull();
    });

    it("exactly one of many concurrent claimants wins", async () => {
      const s = await adapter.open();
      await s.record(note("n1"));
      const results = await Promise.all(
        ["a", "b", "c", "d", "e"].map((who) => s.claim("n1", who, T0, LEASE)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = (await s.get("n1"))?.claimedBy;
      for (const r of results) if (!r.ok) expect(r).toEqual({ ok: false, sent: false, heldBy: winner });
      expect((await s.get("n1"))?.leaseUntil).toBe(T0 + LEASE);
    });

    it("a delivery row (one alert's item) is claimed by one of many, then sent once", async () => {
      const s = await adapter.open();
      await s.record({ ...note("delivery|k|start|1|0"), kind: "delivery" });
      const results = await Promise.all(
        ["a", "b", "c"].map((who) => s.claim("delivery|k|start|1|0", who, T0, LEASE)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = (await s.get("delivery|k|start|1|0"))?.claimedBy as string;
      expect(await s.markSent("delivery|k|start|1|0", winner, T0 + 1)).toBe(true);
      expect(await s.claim("delivery|k|start|1|0", "z", T0 + LEASE, LEASE)).toEqual({
        ok: false,
        sent: true,
        heldBy: winner,
      });
      expect(await s.unsent(T0 + LEASE)).toEqual([]);
    });

    it("a claim on an unknown id fails", async () => {
      const s = await adapter.open();
      expect(await s.claim("nope", "a", T0, LEASE)).toEqual({ ok: false, sent: false, heldBy: null });
    });

    it("a lease that expired can be claimed by another sender; a live one by its holder only", async () => {
      const s = await adapter.open();
      await s.record(note("n1"));
      expect((await s.claim("n1", "a", T0, LEASE)).ok).toBe(true);
      expect((await s.claim("n1", "a", T0 + 1, LEASE)).ok).toBe(true);
      expect((await s.claim("n1", "b", T0 + LEASE, LEASE)).ok).toBe(false);
      expect((await s.claim("n1", "b", T0 + 1 + LEASE, LEASE)).ok).toBe(true);
      expect(await s.get("n1")).toMatchObject({ claimedBy: "b", leaseUntil: T0 + 1 + 2 * LEASE });
      // The crashed holder cannot confirm any more.
      expect(await s.markSent("n1", "a", T0 + 2 * LEASE)).toBe(false);
    });

    it("marked sent by its claimant: never claimable again", async () => {
      const s = await adapter.open();
      await s.record(note("n1"));
      expect(await s.markSent("n1", "a", T0)).toBe(false);
      await s.claim("n1", "a", T0, LEASE);
      expect(await s.markSent("n1", "b", T0)).toBe(false);
      expect(await s.markSent("n1", "a", T0 + 5)).toBe(true);
      expect(await s.markSent("n1", "a", T0 + 6)).toBe(false);
      expect((await s.get("n1"))?.sentAt).toBe(T0 + 5);
      expect(await s.claim("n1", "b", T0 + 10 * LEASE, LEASE)).toEqual({
        ok: false,
        sent: true,
        heldBy: "a",
      });
      expect(await s.claim("n1", "a", T0 + 10 * LEASE, LEASE)).toMatchObject({ ok: false, sent: true });
    });

    it("a released claim is claimable at once", async () => {
      const s = await adapter.open();
      await s.record(note("n1"));
      await s.claim("n1", "a", T0, LEASE);
      expect(await s.release("n1", "b")).toBe(false);
      expect(await s.release("n1", "a")).toBe(true);
      expect((await s.claim("n1", "b", T0 + 1, LEASE)).ok).toBe(true);
    });

    it("unsent: notifications neither sent nor under a live lease, oldest first", async () => {
      const s = await adapter.open();
      await s.record(note("n2", T0 + 2));
      await s.record(note("n1", T0 + 1));
      await s.record(note("n3", T0 + 3));
      await s.record({ ...note("f1", T0), kind: "flip" });
      await s.record({ ...note("d1", T0 + 4), kind: "delivery" });
      await s.claim("n2", "a", T0, LEASE);
      await s.claim("n3", "a", T0, LEASE);
      await s.markSent("n3", "a", T0);
      expect((await s.unsent(T0 + 10)).map((r) => r.id)).toEqual(["n1"]);
      expect((await s.unsent(T0 + LEASE)).map((r) => r.id)).toEqual(["n1", "n2"]);
      expect((await s.list()).map((r) => r.id)).toEqual(["f1", "n1", "n2", "n3", "d1"]);
      expect((await s.list({ kind: "flip" })).map((r) => r.id)).toEqual(["f1"]);
      expect((await s.list({ kind: "delivery" })).map((r) => r.id)).toEqual(["d1"]);
      expect((await s.list({ since: T0 + 2, limit: 1 })).map((r) => r.id)).toEqual(["n2"]);
    });

    it("a retired notification leaves unsent; a sent one cannot be retired", async () => {
      const s = await adapter.open();
      await s.record(note("n1", T0 + 1));
      await s.record(note("n2", T0 + 2));
      expect(await s.retire("n1", T0 + 5)).toBe(true);
      expect(await s.retire("n1", T0 + 6)).toBe(false);
      expect((await s.get("n1"))?.retiredAt).toBe(T0 + 5);
      await s.claim("n2", "a", T0, LEASE);
      await s.markSent("n2", "a", T0 + 3);
      expect(await s.retire("n2", T0 + 7)).toBe(false);
      expect(await s.retire("missing", T0)).toBe(false);
      expect(await s.unsent(T0 + 10 * LEASE)).toEqual([]);
    });

    it("the alert state: version 0 and empty until saved, then each save bumps the version", async () => {
      const s = await adapter.open();
      expect(await s.readState()).toEqual({ state: emptyState(), version: 0 });
      expect(await s.putState(sampleState(1), 0)).toEqual({ ok: true, version: 1 });
      expect(await s.putState(sampleState(2), 1)).toEqual({ ok: true, version: 2 });
      expect(await s.readState()).toEqual({ state: sampleState(2), version: 2 });
    });

    it("a save against a stale version is a conflict and writes nothing", async () => {
      const s = await adapter.open();
      await s.putState(sampleState(1), 0);
      expect(await s.putState(sampleState(9), 0)).toEqual({ ok: false, conflict: true, version: 1 });
      expect(await s.readState()).toEqual({ state: sampleState(1), version: 1 });
    });

    it("two concurrent saves from the same version: exactly one wins", async () => {
      const s = await adapter.open();
      const { version } = await s.readState();
      const results = await Promise.all([
        s.putState(sampleState(7), version),
        s.putState(sampleState(8), version),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const stored = await s.readState();
      expect(stored.version).toBe(version + 1);
      expect([7, 8]).toContain(stored.state.seq);
    });
  });
}
