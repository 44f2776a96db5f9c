/**
 * Silences. With an injected clock, a silence mutes a firing alert (shown muted by
 * it, not sent); at its end, or when expired early, the still-firing alert is sent, once.
 */
import {
  InMemoryCollectorRegistry,
  InMemorySilenceStore,
  InMemoryTransitionStore,
  type Silence,
} from "@monitor/core";
import { type Channel, InMemoryDeliveryLog, type Notification } from "@shared/notify";
import { describe, expect, it } from "vitest";
import { AlertEngine } from "./alert-engine.ts";
import { SqliteSilenceStore } from "./silence-store-sqlite.ts";
import { dlq, emptyRunStore, MemoryStateStore, quiet } from "./test-support/engine-fixtures.ts";

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const MIN = 60_000;

const silence = (over: Partial<Silence> = {}): Silence => ({
  id: "sil-1",
  matchers: { rule: "dead_letter_queue", subject: null },
  author: "ann",
  reason: "replaying the queue",
  startsAt: T0,
  endsAt: T0 + 10 * MIN,
  createdAt: T0,
  ...over,
});

const STORES = [
  { name: "in memory", open: () => new InMemorySilenceStore() },
  { name: "SQLite", open: () => new SqliteSilenceStore(":memory:") },
];

for (const { name, open } of STORES) {
  describe(`AlertEngine with silences (${name})`, () => {
    function world() {
      const clock = { now: T0 };
      const sent: Notification[] = [];
      const channel: Channel = {
        name: "recording",
        async send(n) {
          sent.push(n);
        },
      };
      const state = new MemoryStateStore();
      const silences = open();
      const engine = new AlertEngine({
        store: emptyRunStore,
        registry: new InMemoryCollectorRegistry([]),
        stateStore: state,
        channels: [channel],
        deliveryLog: new InMemoryDeliveryLog(),
        now: () => clock.now,
        log: quiet,
        queues: async () => [dlq("ingest", 3, T0)],
        transitions: new InMemoryTransitionStore(),
        silences,
      });
      const firing = () => sent.flatMap((n) => (n.alerts ?? []).filter((a) => a.kind === "firing"));
      return { clock, sent, state, silences, engine, firing };
    }

    it("a subject regex silence mutes the alerts whose whole subject it matches, tick after tick", async () => {
      const w = world();
      await w.silences.create(
        silence({ matchers: { rule: null, subject: { op: "regex", value: "ingest-[a-z]+" } } }),
      );
      await w.silences.create(
        silence({ id: "sil-2", matchers: { rule: null, subject: { op: "regex", value: "ingest" } } }),
      );
      for (let i = 0; i < 2; i++) {
        w.clock.now = T0 + i * MIN;
        await w.engine.tick();
        expect(w.sent).toEqual([]);
        const a = Object.values((await w.state.load()).alerts)[0];
        expect(a?.muted).toBe(true);
        expect(a?.mutedBy).toMatchObject({ kind: "silence", id: "sil-1" });
      }
    });

    it("mutes while the silence holds, then sends the still-firing alert once at its end", async () => {
      const w = world();
      await w.silences.create(silence());
      await w.engine.tick();
      expect(w.sent).toEqual([]);
      const a = Object.values((await w.state.load()).alerts)[0];
      expect(a?.status).toBe("firing");
      expect(a?.muted).toBe(true);
      expect(a?.mutedBy).toEqual({
        kind: "silence",
        id: "sil-1",
        author: "ann",
        reason: "replaying the queue",
        endsAt: T0 + 10 * MIN,
      });
      w.clock.now = T0 + 5 * MIN;
      await w.engine.tick();
      expect(w.sent).toEqual([]);
      w.clock.now = T0 + 10 * MIN;
      await w.engine.tick();
      expect(w.firing()).toHaveLength(1);
      expect(Object.values((await w.state.load()).alerts)[0]?.muted).toBe(false);
      w.clock.now = T0 + 11 * MIN;
      await w.engine.tick();
      expect(w.firing()).toHaveLength(1);
    });

    it("a silence store that cannot be read keeps the silences last read", async () => {
      const w = world();
      await w.silences.create(silence());
      await w.engine.tick();
      const list = w.silences.list.bind(w.silences);
      w.silences.list = async () => {
        throw new Error("store down");
      };
      w.clock.now = T0 + 2 * MIN;
      await w.engine.tick();
      expect(w.sent).toEqual([]);
      w.silences.list = list;
      w.clock.now = T0 + 10 * MIN;
      await w.engine.tick();
      expect(w.firing()).toHaveLength(1);
    });

    it("an expired silence lets the alert through at the next tick; other rules are not silenced", async () => {
      const w = world();
      await w.silences.create(silence({ matchers: { rule: "disk_high", subject: null } }));
      await w.silences.create(silence({ id: "sil-2", endsAt: T0 + 60 * MIN }));
      await w.engine.tick();
      expect(w.sent).toEqual([]);
      w.clock.now = T0 + 2 * MIN;
      await w.silences.expire("sil-2", w.clock.now);
      await w.engine.tick();
      expect(w.firing()).toHaveLength(1);
    });
  });
}
