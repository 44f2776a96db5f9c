/**
 * The EventQueue contract over every adapter of the port: the embedded SQLite queue (real
 * node:sqlite, in a temporary file) and SQS through SqsEventPublisher (AWS SDK v3 against the local
 * SQS double: no SQS installs here).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQSClient } from "@aws-sdk/client-sqs";
import { SqsEventPublisher } from "@monitor/aws";
import { type EventQueueAdapter, eventQueueContract } from "@monitor/core/contract/event-queue";
import { SqliteQueue } from "./sqlite-queue.ts";
import { DOUBLE_REGION, SqsDouble } from "./test-support/sqs-double.ts";

const ADAPTERS: EventQueueAdapter[] = [
  {
    name: "embedded SQLite queue (node:sqlite)",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "svcmon-event-queue-"));
      const queue = SqliteQueue.open(join(dir, "events.sqlite"), {
        name: "monitor-events",
        deadLetter: null,
      });
      return {
        queue,
        // Visibility 0: reading leaves every message on the queue.
        sent: async () =>
          (await queue.receive({ max: 1000, visibilityTimeoutMs: 0 }))
            .sort((a, b) => a.sent_at - b.sent_at)
            .map((m) => m.body),
        async close() {
          queue.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "SQS via SqsEventPublisher (AWS SDK v3 against the local SQS double)",
    async open() {
      const double = await SqsDouble.start();
      const queueUrl = double.addQueue({ name: "svcmon-events", visible: 0, inFlight: 0 });
      const client = new SQSClient({
        region: DOUBLE_REGION,
        endpoint: double.endpoint,
        credentials: { accessKeyId: "AKIDLOCALDOUBLE", secretAccessKey: "local-double-secret" },
      });
      return {
        queue: new SqsEventPublisher({ client, queueUrl }),
        sent: async () => double.sentBodies("svcmon-events"),
        async close() {
          client.destroy();
          await double.close();
        },
      };
    },
  },
];

for (const adapter of ADAPTERS) eventQueueContract(adapter);
