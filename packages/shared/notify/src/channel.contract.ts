/**
 * One behaviour suite for every `Channel` adapter (webhook, Slack incoming webhook, SMTP e-mail),
 * each against a real local receiver. Run by channel.contract.test.ts over the list of adapters, one
 * `describe` per adapter, the same cases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Channel } from "./ports.ts";
import { sampleAlertsNotification, sampleNotification } from "./test-doubles.ts";

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

    it("carries each alert's facts: fingerprint, status, start, end, last error, link, overall status", async () => {
      await adapter.open("ops").send(sampleAlertsNotification(), never);
      const got = adapter.delivered().at(-1) ?? "";
      for (const fact of [
        "a1b2c3d4e5f60718",
        "99aa88bb77cc66dd",
        "2025-01-31T11:40:00.000Z",
        "2025-01-31T10:00:00.000Z",
        "2025-01-31T11:55:00.000Z",
        "AccessDenied: not authorized to perform ec2:DescribeInstances",
        "https://monitor.example.com/system#collector-config_ec2",
        "https://monitor.example.com/system#collector-config_ebs",
        "config_ec2/111111111111/us-east-1",
        "config_ebs/222222222222/eu-west-1",
        "3 consecutive failed runs",
      ]) {
        expect(got).toContain(fact);
      }
      // Each alert's own status, and the overall one (firing: not every alert is resolved).
      expect(got).toMatch(/firing/i);
      expect(got).toMatch(/resolved/i);
    });

    it("a receiver that is down fails the send with an error that names the channel", async () => {
      const ch = await adapter.openDown("gone");
      await expect(ch.send(sampleNotification(), never)).rejects.toThrow(/^gone: /);
    });
  });
}
