/**
 * Queue health on AWS: the event queue (and, through its redrive policy, its dead-letter queue) and the
 * failure queues watched directly (svcmon-cur-ingest-dlq, the on-failure destination of the CUR
 * ingest) read with SQS GetQueueAttributes, for the status body's `queues` and the dead-letter alert.
 * The status and alerts functions get the URLs in MONITOR_SQS_QUEUE_URLS and
 * MONITOR_SQS_DEAD_LETTER_QUEUE_URLS (infra/src/monitor-stack.ts).
 */

import { SQSClient } from "@aws-sdk/client-sqs";
import type { QueueHealth } from "@monitor/core";
import { queueHealthReader, SQS_SOURCE, SqsQueueHealth, sqsQueueListsFromEnv } from "@monitor/queues";
import { orThrow } from "./config.ts";

export type QueueHealthRead = () => Promise<QueueHealth[]>;

/** A bounded, never-rejecting read of the queues and failure queues; none without any URL. */
export function sqsQueueHealth(
  urls: readonly string[],
  client: Pick<SQSClient, "send">,
  deadLetterQueueUrls: readonly string[] = [],
): QueueHealthRead | undefined {
  if (urls.length === 0 && deadLetterQueueUrls.length === 0) return undefined;
  return queueHealthReader(new SqsQueueHealth({ client, queueUrls: urls, deadLetterQueueUrls }), {
    source: SQS_SOURCE,
  });
}

/**
 * The queues of MONITOR_SQS_QUEUE_URLS and MONITOR_SQS_DEAD_LETTER_QUEUE_URLS with the function's own
 * SQS client (maxAttempts 1: a status read must stay within its time bound); throws naming the
 * variable when a URL is not one or is in both.
 */
export function queueHealthFromEnv(
  component: string,
  env: Record<string, string | undefined>,
  client: Pick<SQSClient, "send"> = new SQSClient({ maxAttempts: 1 }),
): QueueHealthRead | undefined {
  const lists = orThrow(component, sqsQueueListsFromEnv(env));
  return sqsQueueHealth(lists.queueUrls, client, lists.deadLetterQueueUrls);
}
