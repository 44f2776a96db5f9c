/**
 * The collectors this Lambda build can run. The real AWS collectors (packages/monitor/src/aws/, an
 * `awsCollectors(...)` factory) are being written; they are wired here when they land. Until then
 * the list is empty: a collector function then fails with a message that points here, nothing is
 * recorded, and the collector shows as stale on /system, which is the truth.
 */
import type { Collector } from "@svcmon/monitor";

export interface CollectorFactoryConfig {
  /** Role the collectors assume in each monitored account (docs/deploy.md, svcmon-CollectorRole). */
  roleName: string;
  /** External id of that role's trust policy. */
  externalId: string;
  /** The event queue (SQS URL) collectors publish resource events to. */
  eventQueueUrl: string;
}

export const COLLECTORS_MODULE = "apps/monitor-lambda/src/collectors.ts";

export function lambdaCollectors(_config: CollectorFactoryConfig): readonly Collector[] {
  return [];
}
