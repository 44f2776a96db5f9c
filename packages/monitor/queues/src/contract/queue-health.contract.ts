// One behaviour suite for every QueueHealthSource adapter (SQS, embedded SQLite).
import type { QueueHealth, QueueHealthSource } from "@monitor/core";
import { afterEach, describe, expect, it } from "vitest";
import { queueStatus } from "../queue-health.ts";

/** What a queue holds when the test starts. */
export interface QueueSetup {
  name: string;
  visible: number;
  in_flight: number;
  /** Messages in its dead-letter queue; null for a queue without one. */
  dead_letters: number | null;
}

export interface QueueHealthHarness {
  source: QueueHealthSource;
  /** From now on, reading this queue fails (access denied, a closed file...). */
  breakQueue(name: string): Promise<void>;
  close(): Promise<void>;
}

export const CONTRACT_NOW = Date.UTC(2025, 5, 1, 12, 0, 0);

export function queueHealthContract(
  name: string,
  make: (setup: readonly QueueSetup[], now: () => number) => Promise<QueueHealthHarness>,
): void {
  describe(`QueueHealthSource contract: ${name}`, () => {
    const open: QueueHealthHarness[] = [];
    const start = async (setup: readonly QueueSetup[]) => {
      const h = await make(setup, () => CONTRACT_NOW);
      open.push(h);
      return h;
    };
    afterEach(async () => {
      for (const h of open.splice(0)) await h.close();
    });

    const three: QueueSetup[] = [
      { name: "events", visible: 3, in_flight: 2, dead_letters: 0 },
      { name: "billing", visible: 0, in_flight: 0, dead_letters: 4 },
      { name: "plain", visible: 1, in_flight: 0, dead_letters: null },
    ];

    it("names its queues without reading them, in configuration order", async () => {
      const h = await start(three);
      expect(h.source.queues).toEqual(["events", "billing", "plain"]);
    });

    it("reports depth, in-flight count and dead-letter queue depth of each queue, in order", async () => {
      const h = await start(three);
      const got = await h.source.read();
      expect(got.map((q) => q.name)).toEqual(["events", "billing", "plain"]);
      const [events, billing, plain] = got as [QueueHealth, QueueHealth, QueueHealth];
      expect(events).toMatchObject({ depth: 3, in_flight: 2, dead_letter_depth: 0, error: null });
      expect(events.dead_letter_queue).toEqual(expect.any(String));
      expect(billing).toMatchObject({ depth: 0, in_flight: 0, dead_letter_depth: 4, error: null });
      expect(billing.dead_letter_queue).not.toBe(events.dead_letter_queue);
      expect(plain).toMatchObject({
        depth: 1,
        in_flight: 0,
        dead_letter_queue: null,
        dead_letter_depth: null,
        error: null,
      });
      expect(got.map(queueStatus)).toEqual(["ok", "dead_letters", "ok"]);
      for (const q of got) {
        expect(q.read_at).toBe(CONTRACT_NOW);
        expect(q.source).toMatch(/\S/);
      }
    });

    it("an unreadable queue becomes an error entry; the other queues are still reported", async () => {
      const h = await start(three);
      await h.breakQueue("billing");
      const got = await h.source.read();
      expect(got.map((q) => q.name)).toEqual(["events", "billing", "plain"]);
      const billing = got[1] as QueueHealth;
      expect(billing.error).toEqual(expect.stringMatching(/\S/));
      expect(billing.depth).toBeNull();
      expect(billing.dead_letter_depth).toBeNull();
      expect(queueStatus(billing)).toBe("unreadable");
      expect(got[0]).toMatchObject({ depth: 3, dead_letter_depth: 0, error: null });
      expect(got[2]).toMatchObject({ depth: 1, error: null });
    });

    it("a read whose signal is already aborted resolves with every queue unreadable", async () => {
      const h = await start(three);
      const ac = new AbortController();
      ac.abort(new Error("status deadline"));
      const got = await h.source.read(ac.signal);
      expect(got.map((q) => [q.name, queueStatus(q)])).toEqual([
        ["events", "unreadable"],
        ["billing", "unreadable"],
        ["plain", "unreadable"],
      ]);
    });

    it("with no queue configured, reports nothing", async () => {
      const h = await start([]);
      expect(h.source.queues).toEqual([]);
      expect(await h.source.read()).toEqual([]);
    });
  });
}
