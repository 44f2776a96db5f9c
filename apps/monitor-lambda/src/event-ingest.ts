/**
 * What `svcmon-ingest` does with the messages of the event queue: parse each as the collectors'
 * `ResourceEvent` (the same check as the embedded IngestConsumer) and append the batch to the event
 * store (svc.resource_events through ClickHouseResourceEventSink on AWS). The store skips events it
 * already holds, so a redelivered message is acknowledged without being stored twice.
 */
import { parseResourceEvent, type ResourceEvent, type ResourceEventStore } from "@svcmon/core";
import type { IngestDeps } from "./ingest-deps.ts";

export function eventIngest(events: ResourceEventStore): Omit<IngestDeps<ResourceEvent>, "log"> {
  return { parse: parseResourceEvent, store: (batch) => events.append(batch) };
}
