/**
 * The contract of the ResourceEventStore port: every adapter runs it. `make` gives an empty store
 * whose `received_at` clock reads `now()`.
 */

import { describe, expect, it } from "vitest";
import {
  RESOURCE_EVENT_KIND,
  type ResourceEvent,
  type ResourceEventStore,
  RunStoreValidationError,
  resourceEventId,
} from "../index.ts";

/** Recent (ClickHouse drops rows beyond the table's TTL) and fixed for the whole file. */
export const OBSERVED_AT = Math.floor(Date.now() / 1000) * 1000 - 10 * 60_000;

export function resourceEvent(resource_id: string, over: Partial<ResourceEvent> = {}): ResourceEvent {
  return {
    kind: RESOURCE_EVENT_KIND,
    collector: "config_ec2",
    account_id: "111111111111",
    region: "eu-west-1",
    resource_type: "ec2_instance",
    resource_id,
    observed_at: OBSERVED_AT,
    attributes: { instance_type: "t3.micro", state: "running" },
    ...over,
  };
}

export function resourceEventStoreContract(
  name: string,
  make: (now: () => number) => Promise<ResourceEventStore>,
): void {
  describe(`ResourceEventStore contract: ${name}`, () => {
    const RECEIVED = OBSERVED_AT + 5 * 60_000;

    it("stores each event with its content id and the time it was received", async () => {
      const store = await make(() => RECEIVED);
      const a = resourceEvent("i-a", { observed_at: RECEIVED - 2000 });
      const b = resourceEvent("i-b", {
        observed_at: RECEIVED - 1000,
        attributes: { nested: { z: 1, a: [1, 2] } },
      });
      expect(await store.append([a, b])).toEqual({ stored: 2, duplicates: 0 });
      expect(await store.list()).toEqual([
        { ...b, event_id: resourceEventId(b), received_at: RECEIVED },
        { ...a, event_id: resourceEventId(a), received_at: RECEIVED },
      ]);
    });

    it("stores a redelivered event once, keeping the first receipt", async () => {
      let now = RECEIVED;
      const store = await make(() => now);
      const events = [resourceEvent("i-1"), resourceEvent("i-2")];
      expect(await store.append(events)).toEqual({ stored: 2, duplicates: 0 });
      now = RECEIVED + 30_000;
      expect(await store.append([resourceEvent("i-2"), resourceEvent("i-3")])).toEqual({
        stored: 1,
        duplicates: 1,
      });
      const listed = await store.list();
      expect(listed.map((e) => [e.resource_id, e.received_at])).toEqual([
        ["i-1", RECEIVED],
        ["i-2", RECEIVED],
        ["i-3", RECEIVED + 30_000],
      ]);
    });

    it("stores an event repeated within one batch once", async () => {
      const store = await make(() => RECEIVED);
      const e = resourceEvent("i-twice");
      expect(
        await store.append([e, { ...e, attributes: { state: "running", instance_type: "t3.micro" } }]),
      ).toEqual({ stored: 1, duplicates: 1 });
      expect((await store.list()).map((x) => x.resource_id)).toEqual(["i-twice"]);
    });

    it("keeps other observations of the same resource: another time, other attributes, another collector", async () => {
      const store = await make(() => RECEIVED);
      const base = resourceEvent("i-x");
      const others = [
        base,
        { ...base, observed_at: base.observed_at + 1 },
        { ...base, attributes: { state: "stopped" } },
        { ...base, collector: "hierarchy_builder" },
      ];
      expect(await store.append(others)).toEqual({ stored: 4, duplicates: 0 });
      expect(new Set((await store.list()).map((e) => e.event_id)).size).toBe(4);
    });

    it("filters by account and resource, and bounds the list", async () => {
      const store = await make(() => RECEIVED);
      await store.append([
        resourceEvent("i-1"),
        resourceEvent("i-2"),
        resourceEvent("i-1", { account_id: "222222222222" }),
      ]);
      expect((await store.list({ account_id: "222222222222" })).map((e) => e.resource_id)).toEqual(["i-1"]);
      expect((await store.list({ resource_id: "i-1" })).map((e) => e.account_id)).toEqual([
        "111111111111",
        "222222222222",
      ]);
      expect(await store.list({ limit: 2 })).toHaveLength(2);
    });

    it("an empty append stores nothing", async () => {
      const store = await make(() => RECEIVED);
      expect(await store.append([])).toEqual({ stored: 0, duplicates: 0 });
      expect(await store.list()).toEqual([]);
    });

    it("refuses a batch with an invalid event, naming it, and stores none of the batch", async () => {
      const store = await make(() => RECEIVED);
      const bad = { ...resourceEvent("i-bad"), account_id: "" };
      const refused = store.append([resourceEvent("i-ok"), bad]);
      await expect(refused).rejects.toBeInstanceOf(RunStoreValidationError);
      await expect(refused).rejects.toThrow("row 1: account_id: must be a non-empty string");
      expect(await store.list()).toEqual([]);
    });
  });
}
