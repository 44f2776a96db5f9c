/**
 * The production `EndedSessionStore`: one item per ended `/system` session in the alerts'
 * transitions table (`id = session-ended|<session id>`), read by every svcmon-status instance.
 * `expires_at` (epoch seconds) is the table's TTL attribute, so DynamoDB deletes each item once the
 * session's cookie has expired anyway; `prune` has nothing to do. The item has no `kind`, so the
 * table's indexes never list it; svcmon-status needs only `GetItem` and `PutItem`.
 */
import { type DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import type { EndedSessionStore } from "@monitor/core";

export interface DynamoDbEndedSessionStoreOptions {
  client: DynamoDBClient;
  /** The transitions table (`MONITOR_TRANSITIONS_TABLE`). */
  tableName: string;
}

const itemId = (id: string) => `session-ended|${id}`;

export class DynamoDbEndedSessionStore implements EndedSessionStore {
  readonly #c: DynamoDBClient;
  readonly #table: string;

  constructor(opts: DynamoDbEndedSessionStoreOptions) {
    this.#c = opts.client;
    this.#table = opts.tableName;
  }

  async end(id: string, expiresAt: number): Promise<void> {
    await this.#c.send(
      new PutItemCommand({
        TableName: this.#table,
        Item: {
          id: { S: itemId(id) },
          // A minute past the cookie's own expiry, so TTL never deletes it while it could be used.
          expires_at: { N: String(Math.ceil(expiresAt / 1000) + 60) },
        },
      }),
    );
  }

  async ended(id: string): Promise<boolean> {
    const r = await this.#c.send(
      new GetItemCommand({ TableName: this.#table, Key: { id: { S: itemId(id) } }, ConsistentRead: true }),
    );
    return r.Item !== undefined;
  }

  async prune(_before: number): Promise<number> {
    return 0;
  }
}
