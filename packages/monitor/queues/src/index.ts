export * from "./dead-letter-alerts.ts";
export * from "./ingest-consumer.ts";
export {
  combineQueueHealth,
  DEFAULT_QUEUE_READ_TIMEOUT_MS,
  type QueueHealthReaderOptions,
  type QueueStatus,
  type QueueStatusJson,
  type QueuesStatus,
  queueHealthReader,
  queueStatus,
  queueStatusJson,
  queuesForStatus,
  unreadableQueue,
} from "./queue-health.ts";
export * from "./sqlite-queue.ts";
export * from "./sqs.ts";
