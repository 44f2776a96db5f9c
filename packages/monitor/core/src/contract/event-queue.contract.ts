/**
 * One behaviour suite for every `EventQueue` adapter (the collectors' sender): the embedded SQLite
 * queue and SQS (`SqsEventPublisher`). Run by packages/monitor/queues/src/event-queue.contract.test.ts
 * over the list of adapters, one `describe` per adapter, the same cases.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { EventQueue } from "../ports.ts";

export interface EventQueueSubject {
  queue: EventQueue;
  /** The bodies the back end holds, in the order it accepted them (read without consuming them). */
  sent(): Promise<string[]>;
  close(): Promise<void>;
}

export interface EventQueueAdapter {
  name: string;
  /** A fresh, empty queue. */
  open(): Promise<EventQueueSubject>;
}

export function eventQueueContract(adapter: EventQueueAdapter): void {
  describe(`EventQueue contract: ${adapter.name}`, () => {
    let subject: EventQueueSubject | null = null;
    const open = async () => {
      subject = await adapter.open();
      return subject;
    };
    afterEach(async () => {
      await subject?.close();
      subject = null;
    });

    it("sends a batch: resolves to the number accepted, the queue holds each body once, in order", async () => {
      const q = await open();
      const bodies = ['{"n":1}', '{"n":2}', '{"n":3}'];
      expect(await q.queue.send(bodies)).toBe(3);
      expect(await q.sent()).toEqual(bodies);
    });

    it("sends nothing for an empty batch", async () => {
      const q = await open();
      expect(await q.queue.send([])).toBe(0);
      expect(await q.sent()).toEqual([]);
    });

    it("keeps bodies byte for byte (non-ASCII, quotes, newlines, a 100 KiB body)", async () => {
      const q = await open();
      const bodies = ['{"name":"größe ✓ \\"q\\"\\n"}', "x".repeat(100 * 1024), "\u{1f600}"];
      expect(await q.queue.send(bodies)).toBe(3);
      expect(await q.sent()).toEqual(bodies);
    });

    it("sends more bodies than one call carries (25), keeping their order", async () => {
      const q = await open();
      const bodies = Array.from({ length: 25 }, (_, i) => JSON.stringify({ i }));
      expect(await q.queue.send(bodies)).toBe(25);
      expect(await q.sent()).toEqual(bodies);
    });

    it("successive sends append", async () => {
      const q = await open();
      await q.queue.send(["a"]);
      await q.queue.send(["b", "c"]);
      expect(await q.sent()).toEqual(["a", "b", "c"]);
    });
  });
}
