/**
 * A simulated cloud for the embedded default (no AWS): a deterministic inventory per demo account
 * and region (seeded PRNG), the collectors config_ec2, config_ebs, config_network and
 * hierarchy_builder scanning it, and injectable faults per account/region. Real AWS collectors
 * implement the same `Collector` interface (docs/monitor-runtime.md).
 */
import {
  type CollectorAccount as Account,
  type Clock,
  type Collector,
  type CollectorContext,
  type CollectorResult,
  type EventQueue,
  RESOURCE_EVENT_KIND,
  RESOURCES_TABLE,
  type ResourceEvent,
  type RowSink,
  sleep,
  systemClock,
} from "@monitor/core";
import { hash32, prng } from "./seeded-random.ts";
import type { EbsVolume, Ec2Instance, NetworkResource, RegionInventory } from "./simulated-inventory.ts";
import { simulatedRows, withSimulatedTags } from "./simulated-tags.ts";

export type { EbsVolume, Ec2Instance, NetworkResource, RegionInventory } from "./simulated-inventory.ts";

export const DEMO_ACCOUNTS: readonly Required<Account>[] = [
  { account_id: "111111111111", account_name: "demo-production", svc_status: "active" },
  { account_id: "222222222222", account_name: "demo-staging", svc_status: "active" },
  { account_id: "333333333333", account_name: "demo-analytics", svc_status: "active" },
  { account_id: "444444444444", account_name: "demo-sandbox", svc_status: "pending_setup" },
  { account_id: "555555555555", account_name: "demo-legacy", svc_status: "no_access" },
];

export const DEMO_REGIONS: readonly string[] = ["us-east-1", "eu-west-1"];

export type Fault =
  /** Role assumption into the account fails (AccessDenied): the run throws at once. */
  | { kind: "no_access" }
  /** The API throttles: the run throws a ThrottlingException after `delayMs` (default 2000). */
  | { kind: "throttled"; delayMs?: number }
  /** Some pages cannot be read: the run reports `partial` over about half of the resources. */
  | { kind: "partial" }
  /**
   * The scan works, but each run also publishes `count` (default 1) malformed events onto the event
   * queue, alternately `{"kind":"poison"}` and text that is not JSON: the ingest consumer refuses them
   * and they end in the dead-letter queue.
   */
  | { kind: "poison"; count?: number };

/** Keeps row counts per table; enough for the demo and tests. */
export class CountingSink implements RowSink {
  readonly counts = new Map<string, number>();
  async write(table: string, rows: readonly Record<string, unknown>[]): Promise<number> {
    this.counts.set(table, (this.counts.get(table) ?? 0) + rows.length);
    return rows.length;
  }
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
  /**
   * When given, every collector run publishes one event per observed resource onto this queue
   * (`events_produced` is then the number of messages the queue accepted).
   */
  events?: EventQueue;
  /** Messages per send. Default 10 (SQS SendMessageBatch's limit). */
  eventBatchSize?: number;
}

export class SimulatedCloud {
  readonly seed: number;
  readonly sink: RowSink;
  readonly events: EventQueue | null;
  readonly #eventBatchSize: number;
  readonly #clock: Clock;
  readonly #latencyMs: number;
  readonly #faults = new Map<string, Fault>();
  readonly #cache = new Map<string, RegionInventory>();

  constructor(opts: SimulatedCloudOptions = {}) {
    this.seed = opts.seed ?? 42;
    this.#clock = opts.clock ?? systemClock;
    this.#latencyMs = opts.latencyMs ?? 0;
    this.sink = opts.sink ?? new CountingSink();
    this.events = opts.events ?? null;
    this.#eventBatchSize = Math.max(1, Math.trunc(opts.eventBatchSize ?? 10));
  }

  /** The same (account, region) always gives the same inventory. */
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
    // Tags come from a PRNG stream of their own; the service's own resources join its home region.
    const inv = withSimulatedTags(this.seed, accountId, region, { instances, volumes, network });
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

  /**
   * Publishes one `resource_observed` event per resource (plus the malformed events of a `poison`
   * fault) in batches; resolves to the number of messages the queue accepted. Without a queue, to
   * the number of resources (what `events_produced` meant before queues).
   */
  async publish(
    ctx: CollectorContext,
    collector: string,
    resources: readonly { type: string; id: string; attributes: Record<string, unknown> }[],
  ): Promise<number> {
    const queue = this.events;
    if (queue === null) return resources.length;
    const observedAt = ctx.now();
    const bodies = resources.map((r) => {
      const event: ResourceEvent = {
        kind: RESOURCE_EVENT_KIND,
        collector,
        account_id: ctx.account.account_id,
        region: ctx.region,
        resource_type: r.type,
        resource_id: r.id,
        observed_at: observedAt,
        attributes: r.attributes,
      };
      return JSON.stringify(event);
    });
    const fault = this.faultFor(ctx.account.account_id, ctx.region);
    if (fault?.kind === "poison") {
      const n = Math.max(0, Math.trunc(fault.count ?? 1));
      for (let i = 0; i < n; i++) {
        bodies.push(i % 2 === 0 ? JSON.stringify({ kind: "poison" }) : `not json: ${collector} poison ${i}`);
      }
    }
    let accepted = 0;
    for (let i = 0; i < bodies.length; i += this.#eventBatchSize) {
      accepted += await queue.send(bodies.slice(i, i + this.#eventBatchSize), ctx.signal);
    }
    return accepted;
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

/**
 * The four default collectors over a simulated cloud. With `hierarchyBuilder` (the real one over the
 * resource store, hierarchy/builder.ts), that replaces the simulated hierarchy_builder.
 */
export function simulatedCollectors(
  cloud: SimulatedCloud,
  opts: { hierarchyBuilder?: Collector } = {},
): Collector[] {
  const collectors: Collector[] = [
    {
      name: "config_ec2",
      async run(ctx) {
        const { items, partialError } = await cloud.scan(ctx, "DescribeInstances", (i) => i.instances);
        // Terminated instances are seen (events) but not stored (rows).
        const row = simulatedRows(ctx, "config_ec2");
        const { tags } = cloud.inventory(ctx.account.account_id, ctx.region);
        const rows = items
          .filter((x) => x.state !== "terminated")
          .map(({ instance_id, ...attrs }) => row("ec2_instance", instance_id, attrs, tags[instance_id]));
        const written = await cloud.sink.write(RESOURCES_TABLE, rows);
        const events = await cloud.publish(
          ctx,
          "config_ec2",
          items.map(({ instance_id, ...attributes }) => ({
            type: "ec2_instance",
            id: instance_id,
            attributes,
          })),
        );
        return result(events, written, partialError);
      },
    },
    {
      name: "config_ebs",
      async run(ctx) {
        const { items, partialError } = await cloud.scan(ctx, "DescribeVolumes", (i) => i.volumes);
        const row = simulatedRows(ctx, "config_ebs");
        const { tags } = cloud.inventory(ctx.account.account_id, ctx.region);
        const rows = items.map(({ volume_id, ...attrs }) =>
          row("ebs_volume", volume_id, attrs, tags[volume_id]),
        );
        const written = await cloud.sink.write(RESOURCES_TABLE, rows);
        const events = await cloud.publish(
          ctx,
          "config_ebs",
          items.map(({ volume_id, ...attributes }) => ({ type: "ebs_volume", id: volume_id, attributes })),
        );
        return result(events, written, partialError);
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
        const row = simulatedRows(ctx, "config_network");
        const { tags } = cloud.inventory(ctx.account.account_id, ctx.region);
        const rows = items.map((x) => row(x.kind, x.resource_id, {}, tags[x.resource_id]));
        const written = await cloud.sink.write(RESOURCES_TABLE, rows);
        const events = await cloud.publish(
          ctx,
          "config_network",
          items.map((x) => ({ type: x.kind, id: x.resource_id, attributes: {} })),
        );
        return result(events, written, partialError);
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
        const written = await cloud.sink.write("hierarchy_nodes", nodes);
        const events = await cloud.publish(
          ctx,
          "hierarchy_builder",
          items.map((id) => ({
            type: "hierarchy_node",
            id,
            attributes: { node: `account/${ctx.account.account_id}/${ctx.region}/${id}` },
          })),
        );
        return result(events, written, partialError);
      },
    },
  ];
  const builder = opts.hierarchyBuilder;
  return builder === undefined ? collectors : collectors.map((c) => (c.name === builder.name ? builder : c));
}
