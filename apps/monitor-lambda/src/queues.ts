/**
 * Queue health on AWS: the event queue (and, through its redrive policy, its dead-letter queue) read
 * with SQS GetQueueAttributes, for the status body's `queues` and the dead-letter alert. The status
 * and alerts functions get the queue URLs in MONITOR_SQS_QUEUE_URLS (infra/src/monitor-stack.ts).
 */
import { SQSClient } from "@aws-sdk/client-sqs";
import {
  type QueueHealth,
  queueHealthReader,
  SQS_SOURCE,
  SqsQueueHealth,
  sqsQueueUrlsFromEnv,
} from "@svcmon/monitor";
import { orThrow } from "./config.ts";

export type QueueHealthRead = () => Promise<QueueHealth[]>;

/** A bounded, never-rejecting read of the queues; none without URLs. */
export function sqsQueueHealth(
  urls: readonly string[],
  client: Pick<SQSClient, "send">,
): QueueHealthRead | undefined {
  if (urls.length === 0) return undefined;
  return queueHealthReader(new SqsQueueHealth({ client, queueUrls: urls }), { source: SQS_SOURCE });
}

/**
 * The queues of MONITOR_SQS_QUEUE_URLS with the function's own SQS client (maxAttempts 1: a status
 * read must stay within its time bound); throws naming the variable when a URL is not one.
 */
export function queueHealthFromEnv(
  component: string,
  env: Record<string, string | undefined>,
): QueueHealthRead | undefined {
  const urls = orThrow(component, sqsQueueUrlsFromEnv(env));
  return sqsQueueHealth(urls, new SQSClient({ maxAttempts: 1 }));
}
