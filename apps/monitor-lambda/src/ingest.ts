/**
 * `svcmon-ingest`: the consumer of the collectors' event queue on Lambda. The SQS event source
 * mapping delivers a batch; the valid events are stored in one write (svc.resource_events), and the
 * answer lists the messages that were not stored (ReportBatchItemFailures): SQS keeps only those,
 * makes them visible again after the visibility timeout and, after the redrive policy's
 * maxReceiveCount, moves them to the dead-letter queue, the same path the embedded IngestConsumer
 * takes. The store skips events it already holds, so a message delivered again is harmless.
 */

import { ClickHouseCollectorRegistry, ClickHouseResourceEventSink } from "@monitor/clickhouse";
import { RunStoreUnavailable } from "@monitor/core";
import { errorMessage } from "@shared/kernel";
import { jsonLogger } from "@shared/kernel/json-logger";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { clickHouseFromEnv, orThrow, runIntakeFromEnv } from "./config.ts";
import { messageIngest } from "./event-ingest.ts";
import type { IngestDeps, StoreOutcome } from "./ingest-deps.ts";
import { once, openStore } from "./store.ts";

export type { IngestDeps, StoreOutcome } from "./ingest-deps.ts";

export type IngestHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

const messageOf = errorMessage;

/**
 * The batch handler. The valid events go to the store in one call; when the store refuses that call
 * for a reason other than an unreachable database (one event it will not take), each event is tried
 * on its own, so only the events at fault stay on the queue. Once the database is unreachable the rest
 * of the batch is returned at once: each try would wait out the same timeout.
 */
export function createIngestHandler<E>(deps: IngestDeps<E>): IngestHandler {
  const { log } = deps;
  return async (event) => {
    const failures: { itemIdentifier: string }[] = [];
    const valid: { messageId: string; where: Record<string, unknown>; event: E }[] = [];
    for (const record of event.Records) {
      const where = {
        message_id: record.messageId,
        receive_count: Number(record.attributes?.ApproximateReceiveCount ?? 0),
      };
      const parsed = deps.parse(record.body);
      if (parsed.ok) {
        valid.push({ messageId: record.messageId, where, event: parsed.value });
        continue;
      }
      log.warn("ingest: malformed event left for retry (dead-letter queue after max receives)", {
        ...where,
        errors: parsed.errors.map((e) => `${e.path || "(body)"}: ${e.message}`),
      });
      failures.push({ itemIdentifier: record.messageId });
    }

    let handled = 0;
    let duplicates = 0;
    const count = (o: StoreOutcome, n: number) => {
      handled += n;
      duplicates += o.duplicates;
    };
    if (valid.length > 0) {
      try {
        count(await deps.store(valid.map((v) => v.event)), valid.length);
      } catch (error) {
        if (error instanceof RunStoreUnavailable) {
          log.warn("ingest: analytics database unavailable; batch left for retry", {
            events: valid.length,
            error: error.message,
          });
          for (const v of valid) failures.push({ itemIdentifier: v.messageId });
        } else {
          log.warn("ingest: batch refused; storing its events one by one", {
            events: valid.length,
            error: messageOf(error),
          });
          let unavailable = false;
          for (const v of valid) {
            if (unavailable) {
              failures.push({ itemIdentifier: v.messageId });
              continue;
            }
            try {
              count(await deps.store([v.event]), 1);
            } catch (one) {
              unavailable = one instanceof RunStoreUnavailable;
              log.warn("ingest: store refused an event; left for retry", {
                ...v.where,
                error: messageOf(one),
              });
              failures.push({ itemIdentifier: v.messageId });
            }
          }
        }
      }
    }
    log.info("ingest batch done", {
      received: event.Records.length,
      handled,
      duplicates,
      refused: failures.length,
    });
    // In the batch's order, as the log lines above.
    const order = new Map(event.Records.map((r, i) => [r.messageId, i]));
    failures.sort((a, b) => (order.get(a.itemIdentifier) ?? 0) - (order.get(b.itemIdentifier) ?? 0));
    return { batchItemFailures: failures };
  };
}

const deployed = once(async (): Promise<IngestHandler> => {
  const intake = orThrow("svcmon-ingest", runIntakeFromEnv(process.env));
  const store = openStore(orThrow("svcmon-ingest", clickHouseFromEnv(process.env)));
  await store.migrate();
  return createIngestHandler({
    ...messageIngest(
      ClickHouseResourceEventSink.fromStore(store),
      { store, registry: ClickHouseCollectorRegistry.fromStore(store), autoRegister: intake.autoRegister },
      { maxClockSkewMs: intake.maxClockSkewMs },
    ),
    log: jsonLogger("svcmon-ingest"),
  });
});

/** The Lambda entry point (SQS event source mapping with ReportBatchItemFailures). */
export const handler: IngestHandler = async (event) => (await deployed())(event);
