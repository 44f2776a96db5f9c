/**
 * Tags of the simulated cloud (runtime/simulated-cloud.ts), deterministic from the seed, and the
 * monitoring service's own resources it contains, so `npm start` fills svc.resources with what the
 * hierarchy rules read: `team`, `env`, `cost-center`, `Name`, and `svc:purpose=svc-infrastructure`
 * on the service's own resources, a few of which deliberately lack it.
 */
import type { CollectorContext, ResourceRow } from "@monitor/core";
import { resourceArn } from "../arn.ts";
import { hash32, prng } from "./seeded-random.ts";
import type { EbsVolume, Ec2Instance, NetworkResource } from "./simulated-inventory.ts";

export const SERVICE_PURPOSE_TAG = "svc:purpose";
export const SERVICE_PURPOSE_VALUE = "svc-infrastructure";
/**
 * Marks every resource the monitoring service owns in the simulation, whether or not it carries
 * the purpose tag: the "lacks the tag" warning can compare the two.
 */
export const SERVICE_APP_TAG = { key: "app", value: "svcmon" } as const;
/** Where the simulated service runs: demo-analytics, us-east-1. */
export const SERVICE_HOME = { account_id: "333333333333", region: "us-east-1" } as const;

export type Tags = Record<string, string>;

export interface TaggedInventory {
  instances: Ec2Instance[];
  volumes: EbsVolume[];
  network: NetworkResource[];
  /** Tags per resource id (a resource without tags maps to {}). */
  tags: Record<string, Tags>;
}

const ENV_BY_ACCOUNT: Readonly<Record<string, string>> = {
  "111111111111": "prod",
  "222222222222": "staging",
  "333333333333": "prod",
  "444444444444": "dev",
  "555555555555": "prod",
};
const TEAMS = ["search", "ads", "data", "platform", "checkout"] as const;
const COST_CENTERS: Readonly<Record<string, string>> = {
  search: "cc-100",
  ads: "cc-200",
  data: "cc-300",
  platform: "cc-400",
  checkout: "cc-500",
};

const svc = (name: string, team = "platform"): Tags => ({
  Name: name,
  team,
  env: "prod",
  "cost-center": "cc-400",
  [SERVICE_APP_TAG.key]: SERVICE_APP_TAG.value,
  [SERVICE_PURPOSE_TAG]: SERVICE_PURPOSE_VALUE,
});
const { [SERVICE_PURPOSE_TAG]: _dropped, ...untagged } = svc("x");
/** A service-owned resource someone forgot to tag: everything but svc:purpose. */
const svcUntagged = (name: string): Tags => ({ ...untagged, Name: name });

/** The monitoring service's own resources (its analytics database hosts, disks and network). */
function serviceResources(): TaggedInventory {
  return {
    instances: [
      { instance_id: "i-0c1c4d0b5e7a90001", instance_type: "r6i.large", state: "running" },
      { instance_id: "i-0c1c4d0b5e7a90002", instance_type: "r6i.large", state: "running" },
      { instance_id: "i-0c1c4d0b5e7a90003", instance_type: "t3.micro", state: "running" },
    ],
    volumes: [
      { volume_id: "vol-0c1c4d0b5e7a90001", size_gb: 500, attached_to: "i-0c1c4d0b5e7a90001" },
      { volume_id: "vol-0c1c4d0b5e7a90002", size_gb: 500, attached_to: "i-0c1c4d0b5e7a90002" },
      { volume_id: "vol-0c1c4d0b5e7a90003", size_gb: 100, attached_to: null },
    ],
    network: [
      { resource_id: "vpc-0c1c4d0b5e7a9", kind: "vpc" },
      { resource_id: "subnet-0c1c4d0b5e7a1", kind: "subnet" },
      { resource_id: "subnet-0c1c4d0b5e7a2", kind: "subnet" },
      { resource_id: "sg-0c1c4d0b5e7a9", kind: "security_group" },
      { resource_id: "nat-0c1c4d0b5e7a9", kind: "nat_gateway" },
    ],
    tags: {
      "i-0c1c4d0b5e7a90001": svc("svcmon-clickhouse-1"),
      "i-0c1c4d0b5e7a90002": svc("svcmon-clickhouse-2"),
      "i-0c1c4d0b5e7a90003": svcUntagged("svcmon-bastion"),
      "vol-0c1c4d0b5e7a90001": svc("svcmon-clickhouse-1-data"),
      "vol-0c1c4d0b5e7a90002": svc("svcmon-clickhouse-2-data"),
      "vol-0c1c4d0b5e7a90003": svcUntagged("svcmon-clickhouse-backup"),
      "vpc-0c1c4d0b5e7a9": svc("svcmon-vpc"),
      "subnet-0c1c4d0b5e7a1": svc("svcmon-private-a"),
      "subnet-0c1c4d0b5e7a2": svc("svcmon-private-b"),
      "sg-0c1c4d0b5e7a9": svc("svcmon-collectors"),
      "nat-0c1c4d0b5e7a9": svcUntagged("svcmon-nat"),
    },
  };
}

/**
 * Tags for a simulated region's resources, and, in SERVICE_HOME, the service's own resources
 * appended. Per resource: `env` from the account; `team` (missing on about 1 in 8); `cost-center`
 * from the team (missing on about 1 in 5 of the teamed); `Name`; about 1 in 12 has no tags at all.
 */
export function withSimulatedTags(
  seed: number,
  accountId: string,
  region: string,
  inv: Omit<TaggedInventory, "tags">,
): TaggedInventory {
  const rnd = prng(hash32(`${seed}/${accountId}/${region}/tags`));
  const env = ENV_BY_ACCOUNT[accountId] ?? "dev";
  const tags: Record<string, Tags> = {};
  const tag = (id: string, kind: string, n: number) => {
    if (rnd() < 1 / 12) {
      tags[id] = {};
      return;
    }
    const t: Tags = { env };
    const team = rnd() < 1 / 8 ? null : (TEAMS[Math.floor(rnd() * TEAMS.length)] as string);
    if (team !== null) {
      t.team = team;
      if (rnd() >= 1 / 5) t["cost-center"] = COST_CENTERS[team] as string;
    }
    t.Name = `${team ?? "shared"}-${kind}-${n}`;
    tags[id] = t;
  };
  for (const [n, x] of inv.instances.entries()) tag(x.instance_id, "instance", n);
  for (const [n, x] of inv.volumes.entries()) tag(x.volume_id, "volume", n);
  for (const [n, x] of inv.network.entries()) tag(x.resource_id, x.kind, n);
  if (accountId !== SERVICE_HOME.account_id || region !== SERVICE_HOME.region) return { ...inv, tags };
  const own = serviceResources();
  return {
    instances: [...inv.instances, ...own.instances],
    volumes: [...inv.volumes, ...own.volumes],
    network: [...inv.network, ...own.network],
    tags: { ...tags, ...own.tags },
  };
}

/**
 * Makes the svc.resources rows of one simulated run (what ClickHouseResourceSink stores): every row
 * carries the run's id (the scheduler's, or one made here for a call outside a scheduler).
 */
export function simulatedRows(
  ctx: CollectorContext,
  collector: string,
): (type: string, id: string, attributes: Record<string, unknown>, tags: Tags | undefined) => ResourceRow {
  const runId = ctx.run_id ?? globalThis.crypto.randomUUID();
  const observedAt = ctx.now();
  return (type, id, attributes, tags) => ({
    resource_id: id,
    resource_type: type,
    arn: resourceArn(type, ctx.region, ctx.account.account_id, id),
    cloud_account_id: ctx.account.account_id,
    cloud_region: ctx.region,
    tags: { ...tags },
    attributes,
    observed_at: observedAt,
    run_id: runId,
    collector,
  });
}
