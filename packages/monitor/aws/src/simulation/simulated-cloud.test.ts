import type { CollectorContext } from "@monitor/core";
import { FakeClock } from "@monitor/core/fake-clock";
import { describe, expect, it } from "vitest";
import {
  CountingSink,
  DEMO_ACCOUNTS,
  DEMO_REGIONS,
  SimulatedCloud,
  simulatedCollectors,
} from "./simulated-cloud.ts";

const ACCT = DEMO_ACCOUNTS[0]?.account_id as string;
const REGION = DEMO_REGIONS[0] as string;

function ctx(clock: FakeClock, signal = new AbortController().signal, account = ACCT): CollectorContext {
  return {
    account: { account_id: account, account_name: "x" },
    region: REGION,
    signal,
    now: () => clock.now(),
  };
}

describe("SimulatedCloud", () => {
  it("inventory is deterministic per (seed, account, region) and differs between them", () => {
    const a = new SimulatedCloud({ seed: 7 });
    const b = new SimulatedCloud({ seed: 7 });
    expect(b.inventory(ACCT, REGION)).toEqual(a.inventory(ACCT, REGION));
    expect(a.inventory(ACCT, "eu-west-1")).not.toEqual(a.inventory(ACCT, REGION));
    expect(new SimulatedCloud({ seed: 8 }).inventory(ACCT, REGION)).not.toEqual(a.inventory(ACCT, REGION));
    const inv = a.inventory(ACCT, REGION);
    expect(inv.instances.length).toBeGreaterThanOrEqual(3);
    expect(
      inv.volumes.every(
        (v) => v.attached_to === null || inv.instances.some((i) => i.instance_id === v.attached_to),
      ),
    ).toBe(true);
  });

  it("collectors report resources seen and rows written", async () => {
    const clock = new FakeClock(1_700_000_000_000);
    const sink = new CountingSink();
    const cloud = new SimulatedCloud({ clock, sink });
    const inv = cloud.inventory(ACCT, REGION);
    const byName = Object.fromEntries(simulatedCollectors(cloud).map((c) => [c.name, c]));
    expect(Object.keys(byName)).toEqual(["config_ec2", "config_ebs", "config_network", "hierarchy_builder"]);
    expect(await byName.config_ebs?.run(ctx(clock))).toEqual({
      status: "succeeded",
      events_produced: inv.volumes.length,
      rows_inserted: inv.volumes.length,
    });
    const total = inv.instances.length + inv.volumes.length + inv.network.length;
    expect(await byName.hierarchy_builder?.run(ctx(clock))).toEqual({
      status: "succeeded",
      events_produced: total,
      rows_inserted: total + 2,
    });
    expect(sink.counts.get("hierarchy_nodes")).toBe(total + 2);
  });

  it("faults: no_access throws AccessDenied, throttled throws after the delay, partial reports half", async () => {
    const clock = new FakeClock(1_700_000_000_000);
    const cloud = new SimulatedCloud({ clock });
    const [ec2] = simulatedCollectors(cloud);
    cloud.setFault(ACCT, "*", { kind: "no_access" });
    await expect(ec2?.run(ctx(clock))).rejects.toMatchObject({ name: "AccessDenied", code: "AccessDenied" });

    cloud.setFault(ACCT, "*", { kind: "throttled", delayMs: 3000 });
    let settled = false;
    const p = ec2?.run(ctx(clock)).finally(() => {
      settled = true;
    });
    p?.catch(() => {});
    await clock.waitForTimers(1);
    await clock.advance(2999);
    expect(settled).toBe(false);
    await clock.advance(1);
    await expect(p).rejects.toMatchObject({ name: "ThrottlingException" });

    cloud.setFault(ACCT, "*", null);
    cloud.setFault(ACCT, REGION, { kind: "partial" });
    const r = await ec2?.run(ctx(clock));
    const n = cloud.inventory(ACCT, REGION).instances.length;
    expect(r).toMatchObject({ status: "partial", events_produced: Math.ceil(n / 2) });
    expect(r?.error).toMatch(/^partial: DescribeInstances: read \d+ of \d+ resources/);
  });

  it("an aborted signal stops a throttled wait", async () => {
    const clock = new FakeClock(0);
    const cloud = new SimulatedCloud({ clock });
    cloud.setFault(ACCT, REGION, { kind: "throttled" });
    const [ec2] = simulatedCollectors(cloud);
    const ac = new AbortController();
    const p = ec2?.run(ctx(clock, ac.signal));
    ac.abort(new Error("timed out after 1 ms"));
    await expect(p).rejects.toThrow("timed out after 1 ms");
    expect(clock.pending).toBe(0);
  });
});
