/**
 * The event each observed resource produces, in the queue's `ResourceEvent` format
 * (../queues/resource-event.ts, which the ingest consumer validates), sent through the queue's
 * `EventQueue` port (the embedded SQLite queue, or SqsEventPublisher on AWS).
 */
import { type EventQueue, RESOURCE_EVENT_KIND, type ResourceEvent, type ResourceRow } from "@monitor/core";

export type { EventQueue };

/**
 * A `ResourceEvent` plus what the AWS collectors know beyond it (extra fields, which the queue's
 * validation allows): the ARN, the tags, the run, and whether a svc.resources row was written.
 */
export interface AwsResourceEvent extends ResourceEvent {
  arn: string;
  tags: Record<string, string>;
  run_id: string;
  /** False for resources seen on their way out (terminated, deleted): no svc.resources row. */
  stored: boolean;
}

export function resourceObservedEvent(row: ResourceRow, stored: boolean): AwsResourceEvent {
  return {
    kind: RESOURCE_EVENT_KIND,
    collector: row.collector,
    account_id: row.cloud_account_id,
    region: row.cloud_region,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    observed_at: row.observed_at,
    attributes: row.attributes,
    arn: row.arn,
    tags: row.tags,
    run_id: row.run_id,
    stored,
  };
}
