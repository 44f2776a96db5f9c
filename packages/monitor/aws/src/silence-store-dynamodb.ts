/**
 * The production `SilenceStore`: one item of the alerts' transitions table (where the
 * alert state lives, `DynamoDbTransitionStore`), `id = silences|<key>`, holding every kept silence as
 * JSON with a `version`; each change is a read and a conditional put on that version, retried on a
 * conflict. At most 100 silences are live and ended ones are pruned after 5 days, so the item stays
 * far below DynamoDB's 400 KB. The item has no `kind`, so the table's indexes never list it.
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { Silence, SilenceStore } from "@monitor/core";

export interface DynamoDbSilenceStoreOptions {
  client: DynamoDBClient;
  /** The transitions table (`ALERT_TRANSITIONS_TABLE`). */
  tableName: string;
  /** Default `monitor`. */
  key?: string;
  now?: () => number;
}

/** Conditional writes retried after a conflict before a change gives up. */
const MAX_CONFLICTS = 8;

const byCreated = (a: Silence, b: Silence): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const isConditionFailure = (e: unknown): boolean =>
  e instanceof ConditionalCheckFailedException ||
  (e instanceof Error && e.name === "ConditionalCheckFailedException");

export class DynamoDbSilenceStore implements SilenceStore {
  readonly #c: DynamoDBClient;
  readonly #table: string;
  readonly #id: string;
  readonly #now: () => number;

  constructor(opts: DynamoDbSilenceStoreOptions) {
    this.#c = opts.client;
    this.#table = opts.tableName;
    this.#id = `silences|${opts.key ?? "monitor"}`;
    this.#now = opts.now ?? Date.now;
  }

  async #read(): Promise<{ silences: Silence[]; version: number }> {
    const r = await this.#c.send(
      new GetItemCommand({ TableName: this.#table, Key: { id: { S: this.#id } }, ConsistentRead: true }),
    );
    const json = r.Item?.silences?.S;
    if (r.Item === undefined || json === undefined) return { silences: [], version: 0 };
    return { silences: JSON.parse(json) as Silence[], version: Number(r.Item.version?.N ?? "0") };
  }

  /** Applies `change` to the stored list under optimistic concurrency; returns its result. */
  async #update<T>(change: (list: Silence[]) => { list: Silence[] | null; result: T }): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const { silences, version } = await this.#read();
      const { list, result } = change(silences);
      if (list === null) return result;
      try {
        await this.#c.send(
          new PutItemCommand({
            TableName: this.#table,
            Item: {
              id: { S: this.#id },
              version: { N: String(version + 1) },
              silences: { S: JSON.stringify(list.sort(byCreated)) },
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

  async create(silence: Silence): Promise<boolean> {
    return this.#update((list) =>
      list.some((s) => s.id === silence.id)
        ? { list: null, result: false }
        : { list: [...list, structuredClone(silence)], result: true },
    );
  }

  async list(): Promise<Silence[]> {
    return (await this.#read()).silences.sort(byCreated);
  }

  async expire(id: string, at: number): Promise<Silence | null> {
    return this.#update((list) => {
      const s = list.find((x) => x.id === id);
      if (s === undefined) return { list: null, result: null };
      if (s.endsAt <= at) return { list: null, result: structuredClone(s) };
      s.endsAt = at;
      if (s.startsAt > at) s.startsAt = at;
      return { list, result: structuredClone(s) };
    });
  }

  async prune(before: number): Promise<number> {
    return this.#update((list) => {
      const kept = list.filter((s) => s.endsAt >= before);
      const n = list.length - kept.length;
      return { list: n === 0 ? null : kept, result: n };
    });
  }
}
