/**
 * What `svcmon-ingest` does with each message of the event queue: parse it as the collectors'
 * `ResourceEvent` (the same check as the embedded IngestConsumer) and hand it to the consumer's
 * store handler. That handler (writing the event through the run store's database) is being written
 * in packages/monitor; it is wired here when it lands. Until then every event is refused with a
 * message that points here: it stays on the queue, reaches the dead-letter queue after the redrive
 * policy's receives, and the "dead-letter queue non-empty" alert says so, rather than events being
 * dropped silently. (No collector of this build publishes events yet: see collectors.ts.)
 */
import type { ClickHouseRunStore, ResourceEvent } from "@svcmon/monitor";
import { parseResourceEvent } from "@svcmon/monitor";
import type { IngestDeps } from "./ingest.ts";

export const EVENT_INGEST_MODULE = "apps/monitor-lambda/src/event-ingest.ts";

export function eventIngest(_store: ClickHouseRunStore): Omit<IngestDeps<ResourceEvent>, "log"> {
  return {
    parse: parseResourceEvent,
    handle: async (event) => {
      throw new Error(
        `no store handler for ${event.kind} events is wired in this build (${EVENT_INGEST_MODULE})`,
      );
    },
  };
}
