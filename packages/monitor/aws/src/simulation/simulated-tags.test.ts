import { describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, DEMO_REGIONS, SimulatedCloud } from "./simulated-cloud.ts";
import {
  SERVICE_APP_TAG,
  SERVICE_HOME,
  SERVICE_PURPOSE_TAG,
  SERVICE_PURPOSE_VALUE,
} from "./simulated-tags.ts";

const allIds = (inv: ReturnType<SimulatedCloud["inventory"]>) => [
  ...inv.instances.map((x) => x.instance_id),
  ...inv.volumes.map((x) => x.volume_id),
  ...inv.network.map((x) => x.resource_id),
];

describe("simulated cloud tags", () => {
  it("are deterministic per seed, and every resource has an entry", () => {
    const a = new SimulatedCloud({ seed: 7 }).inventory("111111111111", "us-east-1");
    const b = new SimulatedCloud({ seed: 7 }).inventory("111111111111", "us-east-1");
    expect(b.tags).toEqual(a.tags);
    expect(Object.keys(a.tags).sort()).toEqual(allIds(a).sort());
    expect(new SimulatedCloud({ seed: 8 }).inventory("111111111111", "us-east-1").tags).not.toEqual(a.tags);
  });

  it("carry team/env/cost-center for the hierarchy rules, with some resources untagged or without a team", () => {
    const cloud = new SimulatedCloud();
    const tags = DEMO_ACCOUNTS.flatMap((a) =>
      DEMO_REGIONS.flatMap((r) => Object.values(cloud.inventory(a.account_id, r).tags)),
    );
    const count = (f: (t: Record<string, string>) => boolean) => tags.filter(f).length;
    expect(
      count((t) => t.env !== undefined && t.team !== undefined && t["cost-center"] !== undefined),
    ).toBeGreaterThan(tags.length / 2);
    expect(count((t) => Object.keys(t).length === 0)).toBeGreaterThan(0);
    expect(count((t) => t.env !== undefined && t.team === undefined)).toBeGreaterThan(0);
    expect(new Set(tags.flatMap((t) => t.env ?? []))).toEqual(new Set(["prod", "staging", "dev"]));
  });

  it("put the service's own resources in its home region: most with svc:purpose, a few deliberately without", () => {
    const cloud = new SimulatedCloud();
    const home = cloud.inventory(SERVICE_HOME.account_id, SERVICE_HOME.region);
    const own = Object.entries(home.tags).filter(([, t]) => t[SERVICE_APP_TAG.key] === SERVICE_APP_TAG.value);
    const tagged = own.filter(([, t]) => t[SERVICE_PURPOSE_TAG] === SERVICE_PURPOSE_VALUE).map(([id]) => id);
    const lacking = own.filter(([, t]) => t[SERVICE_PURPOSE_TAG] === undefined).map(([id]) => id);
    expect(tagged.length).toBeGreaterThanOrEqual(5);
    expect(lacking.sort()).toEqual(["i-0c1c4d0b5e7a90003", "nat-0c1c4d0b5e7a9", "vol-0c1c4d0b5e7a90003"]);
    expect(allIds(home)).toEqual(expect.arrayContaining([...tagged, ...lacking]));
    // Nowhere else.
    for (const a of DEMO_ACCOUNTS) {
      for (const r of DEMO_REGIONS) {
        if (a.account_id === SERVICE_HOME.account_id && r === SERVICE_HOME.region) continue;
        const inv = cloud.inventory(a.account_id, r);
        expect(Object.values(inv.tags).some((t) => t[SERVICE_APP_TAG.key] !== undefined)).toBe(false);
      }
    }
  });
});
