/** The EndedSessionStore contract on DynamoDB (dynalite): a fresh transitions table per case. */
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { endedSessionStoreContract } from "@monitor/core/contract/ended-session-store";
import { afterAll, beforeAll } from "vitest";
import { DynamoDbEndedSessionStore } from "./ended-session-store-dynamodb.ts";
import { startTransitionsDynalite, type TransitionsDynalite } from "./test-support/dynalite-transitions.ts";

let dynamo: TransitionsDynalite;
let last: { client: DynamoDBClient; tableName: string } | undefined;
beforeAll(async () => {
  dynamo = await startTransitionsDynalite();
});
afterAll(async () => dynamo?.close());

endedSessionStoreContract({
  name: "DynamoDB (dynalite)",
  open: async () => {
    last = await dynamo.newTable();
    return new DynamoDbEndedSessionStore(last);
  },
  reopen: async () => new DynamoDbEndedSessionStore(last as NonNullable<typeof last>),
});
