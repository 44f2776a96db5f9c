/**
 * The production `MaintenanceStore`: one item of the alerts' transitions table (beside the silences'
 * item, `DynamoDbSilenceStore`), `id = maintenance|<key>`, holding every kept window as JSON with a
 * `version`; each change is a read and a conditional put on that version, retried on a conflict. At
 * most 50 windows are not over and those over are pruned after 7 days, so the item stays far below
 * DynamoDB's 400 KB. The item has no `kind`, so the table's indexes never list it.
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import {
  byWindowCreated,
  endWindow,
  keptWindows,
  type MaintenanceStore,
  type MaintenanceWindow,
} from "@monitor/core";

export interface DynamoDbMaintenanceStoreOptions {
  client: DynamoDBClient;
  /** The transitions table (`ALERT_TRANSITIONS_TABLE`). */
  tableName: string;
  /** Default `monitor`. */
  key?: string;
  now?: () => number;
}

/** Conditional writes retried after a conflict before a change gives up. */
const MAX_CONFLICTS = 8;

const isConditionFailure = (e: unknown): boolean =>
  e instanceof ConditionalCheckFailedException ||
  (e instanceof Error && e.name === "ConditionalCheckFailedException");

export class DynamoDbMaintenanceStore implements MaintenanceStore {
  readonly #c: DynamoDBClient;
  readonly #table: string;
  readonly #id: string;
  readonly #now: () => number;

  constructor(opts: DynamoDbMaintenanceStoreOptions) {
    this.#c = opts.client;
    this.#table = opts.tableName;
    this.#id = `maintenance|${opts.key ?? "monitor"}`;
    this.#now = opts.now ?? Date.now;
  }

  async #read(): Promise<{ windows: MaintenanceWindow[]; version: number }> {
    const r = await this.#c.send(
      new GetItemCommand({ TableName: this.#table, Key: { id: { S: this.#id } }, ConsistentRead: true }),
    );
    const json = r.Item?.windows?.S;
    if (r.Item === undefined || json === undefined) return { windows: [], version: 0 };
    return { windows: JSON.parse(json) as MaintenanceWindow[], version: Number(r.Item.version?.N ?? "0") };
  }

  /** Applies `change` to the stored list under optimistic concurrency; returns its result. */
  async #update<T>(
    change: (list: MaintenanceWindow[]) => { list: MaintenanceWindow[] | null; result: T },
  ): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const { windows, version } = await this.#read();
      const { list, result } = change(windows);
      if (list === null) return result;
      try {
        await this.#c.send(
          new PutItemCommand({
            TableName: this.#table,
            Item: {
              id: { S: this.#id },
              version: { N: String(version + 1) },
              windows: { S: JSON.stringify(list.sort(byWindowCreated)) },
              updated_at: { N: String(this.#now()) },
            },
            ...(version === 0
              ? { ConditionExpression: "attribute_not_exists(id)" }
              : {
                  ConditionExpression: "version = :expected",
                  ExpressionAttributeValues: { ":expected": { N: String(version) } },
                }),
          }),
        );
        return result;
      } catch (e) {
        if (!isConditionFailure(e) || attempt + 1 >= MAX_CONFLICTS) throw e;
      }
    }
  }

  async create(window: MaintenanceWindow): Promise<boolean> {
    return this.#update((list) =>
      list.some((w) => w.id === window.id)
        ? { list: null, result: false }
        : { list: [...list, structuredClone(window)], result: true },
    );
  }

  async list(): Promise<MaintenanceWindow[]> {
    return (await this.#read()).windows.sort(byWindowCreated);
  }

  async end(id: string, at: number): Promise<MaintenanceWindow | null> {
    return this.#update((list) => {
      const { window, changed } = endWindow(list, id, at);
      return { list: changed ? list : null, result: window };
    });
  }

  async prune(before: number): Promise<number> {
    return this.#update((list) => {
      const kept = keptWindows(list, before);
      const n = list.length - kept.length;
      return { list: n === 0 ? null : kept, result: n };
    });
  }
}
