// Test helper: a dynalite DynamoDB API server inside the test process, on 127.0.0.1 with an
// ephemeral port, and an AWS SDK v3 client with dummy credentials pointed at it. Each system
// creates its own tables on it (the settings table, the monitor's transitions table).
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
} from "@aws-sdk/client-dynamodb";

// dynalite is CommonJS without type declarations.
type Dynalite = (options: {
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}) => Server;
const dynalite = createRequire(import.meta.url)("dynalite") as Dynalite;

export interface DynaliteApi {
  endpoint: string;
  client: DynamoDBClient;
  /** Creates the table `input` describes and waits until it is ACTIVE. */
  createTable(input: CreateTableCommandInput): Promise<string>;
  close(): Promise<void>;
}

export async function startDynaliteApi(): Promise<DynaliteApi> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "dummy", secretAccessKey: "dummy" },
  });
  return {
    endpoint,
    client,
    async createTable(input) {
      const tableName = input.TableName as string;
      await client.send(new CreateTableCommand(input));
      // dynalite answers ResourceNotFound until the table leaves CREATING (a timer, even at 0 ms).
      for (;;) {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
        if (Table?.TableStatus === "ACTIVE") return tableName;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    },
    async close() {
      client.destroy();
      server.closeAllConnections?.();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
