/**
 * A simulated cloud for the embedded default (no AWS): a deterministic inventory per demo account
 * and region (seeded PRNG), the collectors config_ec2, config_ebs, config_network and
 * hierarchy_builder scanning it, and injectable faults per account/region. Real AWS collectors
 * implement the same `Collector` interface (docs/monitor-runtime.md).
 */
import type { CollectorAccount as Account } from "./collector.ts";
import {
  type Clock,
  type Collector,
  type CollectorContext,
  type CollectorResult,
  sleep,
  systemClock,
} from "./collector.ts";

export const DEMO_ACCOUNTS: readonly Required<Account>[] = [
  { account_id: "111111111111", account_name: "demo-production", svc_status: "active" },
  { account_id: "222222222222", account_name: "demo-staging", svc_status: "active" },
  { account_id: "333333333333", account_name: "demo-analytics", svc_status: "active" },
  { account_id: "444444444444", account_name: "demo-sandbox", svc_status: "pending_setup" },
  { account_id: "555555555555", account_name: "demo-legacy", svc_status: "no_access" },
];

export const DEMO_REGIONS: readonly string[] = ["us-east-1", "eu-west-1"];

export interface Ec2Instance {
  instance_id: string;
  instance_type: string;
  state: "running" | "stopped" | "terminated";
}
export interface EbsVolume {
  volume_id: string;
  size_gb: number;
  attached_to: string | null;
}
export interface NetworkResource {
  resource_id: string;
  kind: "vpc" | "subnet" | "security_group" | "nat_gateway";
}
export interface RegionInventory {
  instances: Ec2Instance[];
  volumes: EbsVolume[];
  network: NetworkResource[];
}

export type Fault =
  /** Role assumption into the account fails (AccessDenied): the run throws at once. */
  | { kind: "no_access" }
  /** The API throttles: the run throws a ThrottlingException after `delayMs` (default 2000). */
  | { kind: "throttled"; delayMs?: number }
  /** Some pages cannot be read: the run reports `partial` over about half of the resources. */
  | { kind: "partial" };

/** Where simulated collectors write their rows (the count becomes `rows_inserted`). */
export interface RowSink {
  write(table: string, rows: readonly Record<string, unknown>[]): Promise<number>;
}

/** Keeps row counts per table; enough for the demo and tests. */
export class CountingSink implements RowSink {
  readonly counts = new Map<string, number>();
  async write(table: string, rows: readonly Record<string, unknown>[]): Promise<number> {
    this.counts.set(table, (this.counts.get(table) ?? 0) + rows.length);
    return rows.length;
  }
}

/** FNV-1a: stable 32-bit seed from text. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INSTANCE_TYPES = ["t3.micro", "t3.large", "m6i.xlarge", "c6g.2xlarge", "r6i.large"];
const STATES: Ec2Instance["state"][] = ["running", "running", "running", "stopped", "terminated"];
const NETWORK_KINDS: NetworkResource["kind"][] = ["vpc", "subnet", "subnet", "security_group", "nat_gateway"];

export class AwsLikeError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = code;
    this.code = code;
  }
}

export interface SimulatedCloudOptions {
  seed?: number;
  /** Clock for simulated delays (throttling, latency). Default: system clock. */
  clock?: Clock;
  /** Simulated latency of every scan, ms. Default 0. */
  latencyMs?: number;
  sink?: RowSink;
}

export class SimulatedCloud {
  readonly seed: number;
  readonly sink: RowSink;
  readonly #clock: Clock;
  readonly #latencyMs: number;
  readonly #faults = new Map<string, Fault>();
  readonly #cache = new Map<string, RegionInventory>();

  constructor(opts: SimulatedCloudOptions = {}) {
    this.seed = opts.seed ?? 42;
    this.#clock = opts.clock ?? systemClock;
    this.#latencyMs = opts.latencyMs ?? 0;
    this.sink = opts.sink ?? new CountingSink();
  }

  /** The same (seed, account, region) always gives the same inventory. */
  inventory(accountId: string, region: string): RegionInventory {
    const key = `${accountId}/${region}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const rnd = prng(hash32(`${this.seed}/${key}`));
    const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
    const hex = () =>
      Math.floor(rnd() * 0xffffffff)
        .toString(16)
        .padStart(8, "0");
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const instances: Ec2Instance[] = Array.from({ length: int(3, 40) }, () => ({
      instance_id: `i-${hex()}${hex().slice(0, 9)}`,
      instance_type: pick(INSTANCE_TYPES),
      state: pick(STATES),
    }));
    const volumes: EbsVolume[] = Array.from({ length: int(2, 60) }, () => ({
      volume_id: `vol-${hex()}${hex().slice(0, 9)}`,
      size_gb: pick([8, 20, 50, 100, 500]),
      attached_to: rnd() < 0.75 && instances.length > 0 ? pick(instances).instance_id : null,
    }));
    const network: NetworkResource[] = Array.from({ length: int(4, 25) }, () => {
      const kind = pick(NETWORK_KINDS);
      const prefix = { vpc: "vpc", subnet: "subnet", security_group: "sg", nat_gateway: "nat" }[kind];
      return { resource_id: `${prefix}-${hex()}`, kind };
    });
    const inv = { instances, volumes, network };
    this.#cache.set(key, inv);
    return inv;
  }

  /** Sets (or with null clears) a fault; region "*" covers every region of the account. */
  setFault(accountId: string, region: string, fault: Fault | null): void {
    const key = `${accountId}/${region}`;
    if (fault === null) this.#faults.delete(key);
    else this.#faults.set(key, fault);
  }

  faultFor(accountId: string, region: string): Fault | null {
    return this.#faults.get(`${accountId}/${region}`) ?? this.#faults.get(`${accountId}/*`) ?? null;
  }

  /**
   * Stands for "assume the role, then list": applies the account/region fault, then returns the
   * resources seen (all of them, or about half for `partial`).
   */
  async scan<T>(
    ctx: CollectorContext,
    what: string,
    list: (inv: RegionInventory) => T[],
  ): Promise<{ items: T[]; partialError?: string }> {
    const { account_id } = ctx.account;
    const fault = this.faultFor(account_id, ctx.region);
    if (fault?.kind === "no_access") {
      throw new AwsLikeError(
        "AccessDenied",
        `User: arn:aws:sts::000000000000:assumed-role/svcmon-runtime is not authorized to perform: ` +
          `sts:AssumeRole on resource: arn:aws:iam::${account_id}:role/svcmon-collector`,
      );
    }
    if (this.#latencyMs > 0) await sleep(this.#clock, this.#latencyMs, ctx.signal);
    if (fault?.kind === "throttled") {
      await sleep(this.#clock, fault.delayMs ?? 2000, ctx.signal);
      throw new AwsLikeError("ThrottlingException", `Rate exceeded (${what} in ${ctx.region})`);
    }
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const all = list(this.inventory(account_id, ctx.region));
    if (fault?.kind === "partial") {
      const seen = all.slice(0, Math.ceil(all.length / 2));
      return {
        items: seen,
        partialError: `partial: ${what}: read ${seen.length} of ${all.length} resources; next page failed with InternalError`,
      };
    }
    return { items: all };
  }
}

function result(events: number, rows: number, partialError?: string): CollectorResult {
  return partialError === undefined
    ? { status: "succeeded", events_produced: events, rows_inserted: rows }
    : { status: "partial", events_produced: events, rows_inserted: rows, error: partialError };
}

function base(ctx: CollectorContext): Record<string, unknown> {
  return { account_id: ctx.account.account_id, region: ctx.region, observed_at: ctx.now() };
}

/** The four default collectors over a simulated cloud. */
export function simulatedCollectors(cloud: SimulatedCloud): Collector[] {
  return [
    {
      name: "config_ec2",
      async run(ctx) {
        const { items, partialError } = await cloud.scan(ctx, "DescribeInstances", (i) => i.instances);
        // Terminated instances are seen (events) but not stored (rows).
        const rows = items.filter((x) => x.state !== "terminated").map((x) => ({ ...base(ctx), ...x }));
        return result(items.length, await cloud.sink.write("ec2_instances", rows), partialError);
      },
    },
    {
      name: "config_ebs",
      async run(ctx) {
        const { items, partialError } = await cloud.scan(ctx, "DescribeVolumes", (i) => i.volumes);
        const rows = items.map((x) => ({ ...base(ctx), ...x }));
        return result(items.length, await cloud.sink.write("ebs_volumes", rows), partialError);
      },
    },
    {
      name: "config_network",
      async run(ctx) {
        const { items, partialError } = await cloud.scan(
          ctx,
          "DescribeVpcs/Subnets/SecurityGroups",
          (i) => i.network,
        );
        const rows = items.map((x) => ({ ...base(ctx), ...x }));
        return result(items.length, await cloud.sink.write("network_resources", rows), partialError);
      },
    },
    {
      name: "hierarchy_builder",
      async run(ctx) {
        // One node per resource plus the account and region nodes.
        const { items, partialError } = await cloud.scan(ctx, "hierarchy", (i) => [
          ...i.instances.map((x) => x.instance_id),
          ...i.volumes.map((x) => x.volume_id),
          ...i.network.map((x) => x.resource_id),
        ]);
        const nodes = [
          { ...base(ctx), node: `account/${ctx.account.account_id}` },
          { ...base(ctx), node: `account/${ctx.account.account_id}/${ctx.region}` },
          ...items.map((id) => ({
            ...base(ctx),
            node: `account/${ctx.account.account_id}/${ctx.region}/${id}`,
          })),
        ];
        return result(items.length, await cloud.sink.write("hierarchy_nodes", nodes), partialError);
      },
    },
  ];
}
