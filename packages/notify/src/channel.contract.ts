/**
 * One behaviour suite for every `Channel` adapter (webhook, Slack incoming webhook, SMTP e-mail),
 * each against a real local receiver. Run by channel.contract.test.ts over the list of adapters, one
 * `describe` per adapter, the same cases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Channel } from "./ports.ts";
import { sampleNotification } from "./test-doubles.ts";

export interface ChannelAdapter {
  name: string;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** A channel named `channelName` to the running receiver. */
  open(channelName: string): Channel;
  /** A channel named `channelName` to a receiver that is down (connection refused). */
  openDown(channelName: string): Promise<Channel>;
  /** Every delivery the receiver accepted, as text, oldest first. */
  delivered(): string[];
}

export function channelContract(adapter: ChannelAdapter): void {
  describe(`Channel contract: ${adapter.name}`, () => {
    const never = new AbortController().signal;
    beforeAll(async () => adapter.setup?.());
    afterAll(async () => adapter.teardown?.());

    it("is named as configured", () => {
      expect(adapter.open("ops-1").name).toBe("ops-1");
    });

    it("delivers: the receiver gets the notification's rule and subject", async () => {
      const n = sampleNotification({ rule: "collector_failure", subject: "collector/cur-ingest" });
      await adapter.open("ops").send(n, never);
      const got = adapter.delivered().at(-1) ?? "";
      expect(got).toContain("collector_failure");
      expect(got).toContain("collector/cur-ingest");
    });

    it("delivers once per send", async () => {
      const before = adapter.delivered().length;
      const ch = adapter.open("ops");
      await ch.send(sampleNotification({ subject: "queue/one" }), never);
      await ch.send(sampleNotification({ subject: "queue/two" }), never);
      const got = adapter.delivered().slice(before);
      expect(got).toHaveLength(2);
      expect(got[0]).toContain("queue/one");
      expect(got[1]).toContain("queue/two");
    });

    it("a receiver that is down fails the send with an error that names the channel", async () => {
      const ch = await adapter.openDown("gone");
      await expect(ch.send(sampleNotification(), never)).rejects.toThrow(/^gone: /);
    });
  });
}
