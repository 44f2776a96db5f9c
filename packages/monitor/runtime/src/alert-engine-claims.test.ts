/**
 * Status changes as rows, claimed before sending. Two engines tick at once over the
 * same stores (same injected clock); a recording channel shows each notification sent exactly once.
 * A sender that dies between its claim and its send is replaced once its lease expires.
 */

import {
  startTransitionsDynalite,
  type TransitionsDynalite,
} from "@monitor/aws/test-support/dynalite-transitions";
import { InMemoryCollectorRegistry, InMemoryTransitionStore, type TransitionStore } from "@monitor/core";
import { alertmanagerChannel, type Channel, InMemoryDeliveryLog, type Notification } from "@shared/notify";
import { startAlertmanagerDouble } from "@shared/notify/alertmanager-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AlertEngine, type AlertEngineLogger } from "./alert-engine.ts";
import { dlq, emptyRunStore, MemoryStateStore, quiet } from "./test-support/engine-fixtures.ts";
import { SqliteTransitionStore } from "./transition-store-sqlite.ts";

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const SEC = 1000;

/** Records every notification it is given; yields to the event loop first, as a network send would. */
function recordingChannel(sent: Notification[]): Channel {
  return {
    name: "recording",
    async send(n) {
      await new Promise((r) => setTimeout(r, 1));
      sent.push(n);
    },
  };
}

interface World {
  clock: { now: number };
  depths: Map<string, number>;
  sent: Notification[];
  transitions: TransitionStore;
  stateMirror: MemoryStateStore;
}

function world(transitions: TransitionStore = new InMemoryTransitionStore()): World {
  return {
    clock: { now: T0 },
    depths: new Map(),
    sent: [],
    transitions,
    stateMirror: new MemoryStateStore(),
  };
}

function engine(
  w: World,
  claimant: string,
  transitions: TransitionStore = w.transitions,
  log: AlertEngineLogger = quiet,
  channel: Channel = recordingChannel(w.sent),
): AlertEngine {
  return new AlertEngine({
    store: emptyRunStore,
    registry: new InMemoryCollectorRegistry([]),
    stateStore: w.stateMirror,
    channels: [channel],
    deliveryLog: new InMemoryDeliveryLog(),
    now: () => w.clock.now,
    log,
    queues: async () => [...w.depths].map(([q, d]) => dlq(q, d, T0)),
    transitions,
    claimant,
    claimLeaseMs: 60 * SEC,
  });
}

/** A channel whose sends wait until `open()`; `entered` settles when the first send began. */
function gated(inner: Channel) {
  let open = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  let enter = () => {};
  const entered = new Promise<void>((r) => {
    enter = r;
  });
  const channel: Channel = {
    name: inner.name,
    async send(n, signal) {
      enter();
      await opened;
      await inner.send(n, signal);
    },
  };
  return { channel, open, entered };
}

/** What was sent, as `<kind> <subject>` per alert, in order. */
const sentAlerts = (w: World) => w.sent.flatMap((n) => (n.alerts ?? []).map((a) => `${a.kind} ${a.subject}`));

let dynamo: TransitionsDynalite | null = null;
beforeAll(async () => {
  dynamo = await startTransitionsDynalite();
});
afterAll(async () => dynamo?.close());

const STORES: { name: string; open(): Promise<TransitionStore> }[] = [
  { name: "in memory", open: async () => new InMemoryTransitionStore() },
  { name: "SQLite", open: async () => new SqliteTransitionStore(":memory:") },
  { name: "DynamoDB (dynalite)", open: () => (dynamo as TransitionsDynalite).newStore() },
];

for (const { name, open } of STORES) {
  describe(`AlertEngine with a transition store (${name})`, () => {
    it("two engines racing over the same stores send each transition exactly once", async () => {
      const w = world(await open());
      const said: string[] = [];
      const log: AlertEngineLogger = { ...quiet, info: (m) => said.push(m) };
      const a = engine(w, "engine-a", w.transitions, log);
      const b = engine(w, "engine-b", w.transitions, log);
      w.depths.set("ingest", 3);
      const [ra, rb] = await Promise.all([a.tick(), b.tick()]);
      expect([...ra.delivered, ...rb.delivered]).toHaveLength(1);
      // Both read the same version; the slower save conflicted and was evaluated again.
      expect(said).toContain("alerts: state saved by another engine meanwhile; evaluating again");
      expect(sentAlerts(w)).toEqual(["firing ingest-dlq"]);

      // Both tick again at once, a second later and a minute later: nothing new is owed.
      for (const dt of [SEC, 60 * SEC]) {
        w.clock.now += dt;
        await Promise.all([a.tick(), b.tick()]);
      }
      expect(sentAlerts(w)).toEqual(["firing ingest-dlq"]);

      // Another queue fills and the first drains, in one step: a resolve and a start.
      w.depths.set("ingest", 0);
      w.depths.set("exports", 1);
      w.clock.now += 60 * SEC;
      await Promise.all([b.tick(), a.tick()]);
      w.clock.now += 60 * SEC;
      await Promise.all([a.tick(), b.tick()]);
      expect(sentAlerts(w).sort()).toEqual([
        "firing exports-dlq",
        "firing ingest-dlq",
        "resolved ingest-dlq",
      ]);

      // Every status change is a row; every notification a row, sent once and by one engine.
      const flips = await w.transitions.list({ kind: "flip" });
      expect(flips.map((f) => f.id)).toEqual([
        "flip|dead_letter_queue|ingest-dlq|1|firing",
        "flip|dead_letter_queue|exports-dlq|1|firing",
        "flip|dead_letter_queue|ingest-dlq|1|resolved",
      ]);
      const notes = await w.transitions.list({ kind: "notification" });
      expect(notes).toHaveLength(w.sent.length);
      expect(
        notes.every((n) => n.sentAt !== null && ["engine-a", "engine-b"].includes(n.claimedBy ?? "")),
      ).toBe(true);
      expect(new Set(w.sent.map((n) => n.id)).size).toBe(w.sent.length);
      expect(await w.transitions.unsent(w.clock.now)).toEqual([]);
      // The state was saved under optimistic concurrency, and mirrored for the status readers.
      const { state, version } = await w.transitions.readState();
      expect(version).toBeGreaterThan(1);
      expect(await w.stateMirror.load()).toEqual(state);
    });

    it("claims alone keep two engines that do not share the state from sending twice", async () => {
      const rows = await open();
      const w = world(rows);
      // Each engine has its own state (as if the optimistic concurrency were lost): only the rows are shared.
      const own = (): TransitionStore => {
        const state = new InMemoryTransitionStore();
        return Object.assign(Object.create(rows) as TransitionStore, {
          record: rows.record.bind(rows),
          claim: rows.claim.bind(rows),
          markSent: rows.markSent.bind(rows),
          release: rows.release.bind(rows),
          retire: rows.retire.bind(rows),
          unsent: rows.unsent.bind(rows),
          list: rows.list.bind(rows),
          get: rows.get.bind(rows),
          readState: state.readState.bind(state),
          putState: state.putState.bind(state),
        });
      };
      const a = engine(w, "engine-a", own());
      const b = engine(w, "engine-b", own());
      w.depths.set("ingest", 3);
      const [ra, rb] = await Promise.all([a.tick(), b.tick()]);
      expect(sentAlerts(w)).toEqual(["firing ingest-dlq"]);
      expect([...(ra.claimedElsewhere ?? []), ...(rb.claimedElsewhere ?? [])]).toHaveLength(1);
    });

    it("a failed notification regrouped at its retry is retired; the new one is sent once", async () => {
      const w = world(await open());
      let down = true;
      const flaky: Channel = {
        name: "flaky",
        async send(n) {
          if (down) throw new Error("503");
          w.sent.push(n);
        },
      };
      const make = () =>
        new AlertEngine({
          store: emptyRunStore,
          registry: new InMemoryCollectorRegistry([]),
          stateStore: w.stateMirror,
          channels: [flaky],
          deliveryLog: new InMemoryDeliveryLog(),
          now: () => w.clock.now,
          log: quiet,
          queues: async () => [...w.depths].map(([q, d]) => dlq(q, d, T0)),
          transitions: w.transitions,
          claimant: "engine-a",
        });
      const a = make();
      w.depths.set("ingest", 3);
      const first = await a.tick();
      expect(first.failed).toHaveLength(1);
      // Released: unsent at once, no lease held.
      expect((await w.transitions.unsent(w.clock.now)).map((r) => r.id)).toEqual(first.failed);
      // At the retry another queue of the same rule fills: one intent with both, under a new id.
      w.depths.set("exports", 2);
      down = false;
      w.clock.now += 31 * SEC;
      const second = await a.tick();
      expect(second.delivered).toHaveLength(1);
      expect(second.delivered[0]).not.toBe(first.failed[0]);
      expect(sentAlerts(w).sort()).toEqual(["firing exports-dlq", "firing ingest-dlq"]);
      expect((await w.transitions.get(first.failed[0] as string))?.retiredAt).toBe(w.clock.now);
      expect(await w.transitions.unsent(w.clock.now)).toEqual([]);
    });

    it("an alert regrouped by another engine while its send is in flight is sent once", async () => {
      const w = world(await open());
      const slow = gated(recordingChannel(w.sent));
      const a = engine(w, "engine-a", w.transitions, quiet, slow.channel);
      const b = engine(w, "engine-b");
      w.depths.set("ingest", 3);
      const first = a.tick();
      await slow.entered;
      // A's send hangs past the state's 30 s retry (its claim's lease is 60 s). Meanwhile another queue
      // of the same rule fills: B emits one notification with both alerts, under a new id.
      w.clock.now += 31 * SEC;
      w.depths.set("exports", 1);
      const rb = await b.tick();
      expect(rb.delivered).toHaveLength(1);
      expect(sentAlerts(w)).toEqual(["firing exports-dlq"]);
      slow.open();
      await first;
      // Every later tick of both: nothing is owed twice.
      for (let i = 0; i < 3; i++) {
        w.clock.now += 60 * SEC;
        await Promise.all([a.tick(), b.tick()]);
      }
      expect(sentAlerts(w).sort()).toEqual(["firing exports-dlq", "firing ingest-dlq"]);
      const items = await w.transitions.list({ kind: "delivery" });
      expect(items.every((r) => r.sentAt !== null)).toBe(true);
      expect(items.map((r) => [r.subject, r.claimedBy]).sort()).toEqual([
        ["exports-dlq", "engine-b"],
        ["ingest-dlq", "engine-a"],
      ]);
    });

    it("a firing post that lands after the resolve is followed by the resolve again (Alertmanager)", async () => {
      const w = world(await open());
      const am = await startAlertmanagerDouble({ now: () => w.clock.now });
      try {
        const toAm = () => alertmanagerChannel({ url: am.url, now: () => w.clock.now, timeoutMs: 5000 });
        const slow = gated(toAm());
        const a = engine(w, "engine-a", w.transitions, quiet, slow.channel);
        const b = engine(w, "engine-b", w.transitions, quiet, toAm());
        w.depths.set("ingest", 3);
        const first = a.tick();
        await slow.entered;
        // The queue drains while A's firing post hangs: B sends the resolve, and it lands first.
        w.clock.now += 5 * SEC;
        w.depths.set("ingest", 0);
        await b.tick();
        expect(am.stored().map((x) => x.resolved)).toEqual([true]);
        slow.open();
        await first;
        // Alertmanager merged the late firing post: the alert fires again there, until told again.
        expect(am.stored().map((x) => x.resolved)).toEqual([false]);
        w.clock.now += SEC;
        await b.tick();
        expect(am.stored().map((x) => x.resolved)).toEqual([true]);
        expect(am.posts).toHaveLength(3);
      } finally {
        await am.close();
      }
    });

    it("a sender that crashes between claim and send is replaced after its lease expires", async () => {
      const w = world(await open());
      const rows = w.transitions;
      // Engine A's process dies right after its claim is written.
      const crashing = Object.assign(Object.create(rows) as TransitionStore, {
        async claim(id: string, who: string, now: number, leaseMs: number) {
          await rows.claim(id, who, now, leaseMs);
          throw new Error("process killed");
        },
      });
      for (const m of [
        "record",
        "markSent",
        "release",
        "retire",
        "unsent",
        "list",
        "get",
        "readState",
        "putState",
      ] as const)
        Object.assign(crashing, { [m]: (rows[m] as (...args: unknown[]) => unknown).bind(rows) });
      w.depths.set("ingest", 3);
      await expect(engine(w, "engine-a", crashing).tick()).rejects.toThrow("process killed");
      expect(w.sent).toEqual([]);
      const [row] = await rows.list({ kind: "notification" });
      expect(row).toMatchObject({ claimedBy: "engine-a", leaseUntil: T0 + 60 * SEC, sentAt: null });
      expect(await rows.unsent(T0)).toEqual([]);

      // Engine B takes over. The state retries the notification after 30 s, but A's lease still holds.
      const b = engine(w, "engine-b");
      w.clock.now = T0 + 31 * SEC;
      const early = await b.tick();
      expect(early.claimedElsewhere).toEqual([row?.id]);
      expect(w.sent).toEqual([]);

      // Once the lease has expired the row is unsent again, and the next retry sends it, once.
      expect((await rows.unsent(T0 + 61 * SEC)).map((r) => r.id)).toEqual([row?.id]);
      for (let i = 0; i < 6; i++) {
        w.clock.now += 60 * SEC;
        await b.tick();
      }
      expect(sentAlerts(w)).toEqual(["firing ingest-dlq"]);
      expect(w.sent[0]?.id).toBe(row?.id);
      expect(await rows.get(row?.id as string)).toMatchObject({
        claimedBy: "engine-b",
        sentAt: expect.any(Number),
      });
    });
  });
}
