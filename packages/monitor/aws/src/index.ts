/**
 * `@monitor/aws`: the real AWS collectors (config_ec2, config_ebs, config_network) and
 * what they need (role assumption, the SDK retry configuration, the SQS event sender, the region source).
 * docs/monitor-runtime.md, "AWS collectors".
 */
import { type Collector, Limiter } from "@monitor/core";
import type { AwsCollectorDeps } from "./collect.ts";
import { ebsCollector } from "./ebs-collector.ts";
import { ec2Collector } from "./ec2-collector.ts";
import { networkCollector } from "./network-collector.ts";

// Re-exported: part of this package's API before it moved to @monitor/core.
export { Limiter } from "@monitor/core";
export * from "./assume-role.ts";
export * from "./aws-retry.ts";
export * from "./clients.ts";
export * from "./collect.ts";
export * from "./ebs-collector.ts";
export * from "./ec2-collector.ts";
export * from "./ended-session-store-dynamodb.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./maintenance-store-dynamodb.ts";
export * from "./network-collector.ts";
export * from "./no-access.ts";
export * from "./regions.ts";
export * from "./silence-store-dynamodb.ts";
export * from "./sqs-event-publisher.ts";
export * from "./transition-store-dynamodb.ts";

export interface AwsCollectorsDeps extends AwsCollectorDeps {
  /** Concurrent Describe calls across the three collectors (ignored when `limiter` is given). Default 16. */
  concurrency?: number;
}

/** The three collectors, sharing one concurrency limit. */
export function awsCollectors(deps: AwsCollectorsDeps): Collector[] {
  const shared: AwsCollectorDeps = { ...deps, limiter: deps.limiter ?? new Limiter(deps.concurrency ?? 16) };
  return [ec2Collector(shared), ebsCollector(shared), networkCollector(shared)];
}
export * from "./arn.ts";
