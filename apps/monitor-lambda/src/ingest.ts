/**
 * `svcmon-ingest`: the consumer of the collectors' event queue on Lambda. The SQS event source
 * mapping delivers a batch; each message is parsed and handed to the consumer's handler, which
 * writes it to the analytics database. The answer lists the messages that were not handled
 * (ReportBatchItemFailures): SQS keeps only those, makes them visible again after the visibility
 * timeout and, after the redrive policy's maxReceiveCount, moves them to the dead-letter queue,
 * the same path the embedded IngestConsumer takes.
 */
import type { Result } from "@svcmon/core";
import { RunStoreUnavailable } from "@svcmon/monitor";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { clickHouseFromEnv, orThrow } from "./config.ts";
import { eventIngest } from "./event-ingest.ts";
import { jsonLogger, type Logger } from "./log.ts";
import { once, openStore } from "./store.ts";

export interface IngestDeps<E> {
  /** A message body to an event; invalid bodies are refused with every problem. */
  parse: (body: string) => Result<E>;
  /** Stores one event; rejecting leaves the message on the queue. */
  handle: (event: E) => Promise<void>;
  log: Logger;
}

export type IngestHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

export function createIngestHandler<E>(deps: IngestDeps<E>): IngestHandler {
  const { log } = deps;
  return async (event) => {
    const failures: { itemIdentifier: string }[] = [];
    let unavailable: string | null = null;
    let handled = 0;
    for (const record of event.Records) {
      const where = {
        message_id: record.messageId,
        receive_count: Number(record.attributes?.ApproximateReceiveCount ?? 0),
      };
      // Once the database is unreachable the rest of the batch would wait out the same timeout.
      if (unavailable !== null) {
        failures.push({ itemIdentifier: record.messageId });
        continue;
      }
      const parsed = deps.parse(record.body);
      if (!parsed.ok) {
        log.warn("ingest: malformed event left for retry (dead-letter queue after max receives)", {
          ...where,
          errors: parsed.errors.map((e) => `${e.path || "(body)"}: ${e.message}`),
        });
        failures.push({ itemIdentifier: record.messageId });
        continue;
      }
      try {
        await deps.handle(parsed.value);
        handled += 1;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof RunStoreUnavailable) unavailable = message;
        log.warn("ingest: handler refused an event; left for retry", { ...where, error: message });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    log.info("ingest batch done", { received: event.Records.length, handled, refused: failures.length });
    return { batchItemFailures: failures };
  };
}

const deployed = once(async (): Promise<IngestHandler> => {
  const store = openStore(orThrow("svcmon-ingest", clickHouseFromEnv(process.env)));
  await store.migrate();
  return createIngestHandler({ ...eventIngest(store), log: jsonLogger("svcmon-ingest") });
});

/** The Lambda entry point (SQS event source mapping with ReportBatchItemFailures). */
export const handler: IngestHandler = async (event) => (await deployed())(event);
