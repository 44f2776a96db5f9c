/**
 * The production `TransitionStore` (docs/monitor-alerts.md "Transitions"): one DynamoDB table, every
 * write a `ConditionExpression`, so two alert Lambdas never both win a claim or both save the state
 * from the same version. Items:
 *   - a transition: `id` (hash key), `kind`, `rule`, `subject`, `at`, `at_id` (the index's sort key),
 *     `data` (JSON), `claimed_by`, `lease_until`, `sent_at`, `retired_at`, `expires_at` (TTL, epoch s);
 *   - the alert state: `id = state|<key>`, `version`, `state_gz` (gzipped JSON: an item holds 400 KB).
 * The `by-kind` index (hash `kind`, sort `at_id`) serves `list`; the sparse `unsent` index (hash
 * `unsent`, set on a new notification and removed when it is sent or retired) serves `unsent`, so a
 * tick reads only what is still owed. Indexes are eventually consistent, which only delays a retry:
 * the claims themselves read and write the table.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type CreateTableCommandInput,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import {
  type AlertState,
  byAtThenId,
  type ClaimResult,
  emptyState,
  type PutStateResult,
  type Transition,
  type TransitionRow,
  type TransitionStore,
} from "@monitor/core";

export const TRANSITIONS_TABLE = {
  partitionKey: "id",
  index: { name: "by-kind", partitionKey: "kind", sortKey: "at_id" },
  unsentIndex: { name: "unsent", partitionKey: "unsent", sortKey: "at_id" },
  ttlAttribute: "expires_at",
} as const;

/** Rows are kept this long (the TTL), then DynamoDB deletes them. */
export const TRANSITION_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** The table as the SDK creates it (tests on dynalite; the stack builds the same in CDK). */
export function createTransitionTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "id", AttributeType: "S" },
      { AttributeName: "kind", AttributeType: "S" },
      { AttributeName: "at_id", AttributeType: "S" },
      { AttributeName: "unsent", AttributeType: "S" },
    ],
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    GlobalSecondaryIndexes: [
      {
        IndexName: TRANSITIONS_TABLE.index.name,
        KeySchema: [
          { AttributeName: "kind", KeyType: "HASH" },
          { AttributeName: "at_id", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
      {
        IndexName: TRANSITIONS_TABLE.unsentIndex.name,
        KeySchema: [
          { AttributeName: "unsent", KeyType: "HASH" },
          { AttributeName: "at_id", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
    ],
  };
}

/** The value of `unsent` on a notification not yet sent nor retired (the sparse index's one key). */
const UNSENT = "owed";

const isConditionFailure = (e: unknown): boolean =>
  e instanceof ConditionalCheckFailedException ||
  (e instanceof Error && e.name === "ConditionalCheckFailedException");

/** Sorts as the number: `at` zero-padded, then the id. */
const atId = (at: number, id: string) => `${String(Math.max(0, Math.floor(at))).padStart(15, "0")}#${id}`;
const S = (v: string): AttributeValue => ({ S: v });
const N = (v: number): AttributeValue => ({ N: String(v) });
const num = (v: AttributeValue | undefined): number | null => (v?.N === undefined ? null : Number(v.N));

function toRow(item: Record<string, AttributeValue>): TransitionRow {
  return {
    id: item.id?.S as string,
    kind: item.kind?.S as Transition["kind"],
    rule: item.rule?.S ?? "",
    subject: item.subject?.S ?? "",
    at: num(item.at) ?? 0,
    data: JSON.parse(item.data?.S ?? "null") as unknown,
    claimedBy: item.claimed_by?.S ?? null,
    leaseUntil: num(item.lease_until),
    sentAt: num(item.sent_at),
    retiredAt: num(item.retired_at),
  };
}

export interface DynamoDbTransitionStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** The state item's key (`state|<key>`). Default `monitor`. */
  stateKey?: string;
  /** For the TTL of new rows. Default `Date.now`. */
  now?: () => number;
}

export class DynamoDbTransitionStore implements TransitionStore {
  readonly #c: DynamoDBClient;
  readonly #table: string;
  readonly #stateId: string;
  readonly #now: () => number;

  constructor(opts: DynamoDbTransitionStoreOptions) {
    this.#c = opts.client;
    this.#table = opts.tableName;
    this.#stateId = `state|${opts.stateKey ?? "monitor"}`;
    this.#now = opts.now ?? Date.now;
  }

  /** A conditional write: true when it was applied, false when its condition failed. */
  async #conditional(p: Promise<unknown>): Promise<boolean> {
    try {
      await p;
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async record(t: Transition): Promise<boolean> {
    const item: Record<string, AttributeValue> = {
      id: S(t.id),
      kind: S(t.kind),
      rule: S(t.rule),
      subject: S(t.subject),
      at: N(t.at),
      at_id: S(atId(t.at, t.id)),
      data: S(JSON.stringify(t.data ?? null)),
      expires_at: N(Math.floor((this.#now() + TRANSITION_RETENTION_MS) / 1000)),
      ...(t.kind === "notification" ? { unsent: S(UNSENT) } : {}),
    };
    return this.#conditional(
      this.#c.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: item,
          ConditionExpression: "attribute_not_exists(id)",
        }),
      ),
    );
  }

  async get(id: string): Promise<TransitionRow | null> {
    const r = await this.#c.send(
      new GetItemCommand({ TableName: this.#table, Key: { id: S(id) }, ConsistentRead: true }),
    );
    return r.Item === undefined || r.Item.kind === undefined ? null : toRow(r.Item);
  }

  async claim(id: string, claimant: string, now: number, leaseMs: number): Promise<ClaimResult> {
    const won = await this.#conditional(
      this.#c.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: { id: S(id) },
          UpdateExpression: "SET claimed_by = :who, lease_until = :until",
          ConditionExpression:
            "attribute_exists(id) AND attribute_not_exists(sent_at) AND (attribute_not_exists(claimed_by) " +
            "OR claimed_by = :who OR attribute_not_exists(lease_until) OR lease_until <= :now)",
          ExpressionAttributeValues: { ":who": S(claimant), ":until": N(now + leaseMs), ":now": N(now) },
        }),
      ),
    );
    if (won) return { ok: true };
    const row = await this.get(id);
    if (row === null) return { ok: false, sent: false, heldBy: null };
    return { ok: false, sent: row.sentAt !== null, heldBy: row.claimedBy };
  }

  async markSent(id: string, claimant: string, now: number): Promise<boolean> {
    return this.#conditional(
      this.#c.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: { id: S(id) },
          UpdateExpression: "SET sent_at = :now REMOVE unsent",
          ConditionExpression: "claimed_by = :who AND attribute_not_exists(sent_at)",
          ExpressionAttributeValues: { ":who": S(claimant), ":now": N(now) },
        }),
      ),
    );
  }

  async release(id: string, claimant: string): Promise<boolean> {
    return this.#conditional(
      this.#c.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: { id: S(id) },
          UpdateExpression: "REMOVE lease_until",
          ConditionExpression: "claimed_by = :who AND attribute_not_exists(sent_at)",
          ExpressionAttributeValues: { ":who": S(claimant) },
        }),
      ),
    );
  }

  async retire(id: string, now: number): Promise<boolean> {
    return this.#conditional(
      this.#c.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: { id: S(id) },
          UpdateExpression: "SET retired_at = :now REMOVE unsent",
          ConditionExpression:
            "attribute_exists(id) AND attribute_not_exists(sent_at) AND attribute_not_exists(retired_at)",
          ExpressionAttributeValues: { ":now": N(now) },
        }),
      ),
    );
  }

  async #query(
    kind: Transition["kind"] | typeof UNSENT,
    since: number | undefined,
  ): Promise<TransitionRow[]> {
    const index = kind === UNSENT ? TRANSITIONS_TABLE.unsentIndex : TRANSITIONS_TABLE.index;
    const rows: TransitionRow[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const r = await this.#c.send(
        new QueryCommand({
          TableName: this.#table,
          IndexName: index.name,
          KeyConditionExpression: `#k = :k${since === undefined ? "" : " AND at_id >= :from"}`,
          ExpressionAttributeNames: { "#k": index.partitionKey },
          ExpressionAttributeValues: {
            ":k": S(kind),
            ...(since === undefined ? {} : { ":from": S(atId(since, "")) }),
          },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of r.Items ?? []) rows.push(toRow(item));
      start = r.LastEvaluatedKey;
    } while (start !== undefined);
    return rows;
  }

  async unsent(now: number): Promise<TransitionRow[]> {
    const rows = await this.#query(UNSENT, undefined);
    return rows
      .filter(
        (r) => r.sentAt === null && r.retiredAt === null && (r.leaseUntil === null || r.leaseUntil <= now),
      )
      .sort(byAtThenId);
  }

  async list(
    opts: { since?: number; kind?: Transition["kind"]; limit?: number } = {},
  ): Promise<TransitionRow[]> {
    const kinds: Transition["kind"][] =
      opts.kind === undefined ? ["flip", "notification", "delivery"] : [opts.kind];
    const rows = (await Promise.all(kinds.map((k) => this.#query(k, opts.since)))).flat().sort(byAtThenId);
    return opts.limit === undefined ? rows : rows.slice(0, opts.limit);
  }

  async readState(): Promise<{ state: AlertState; version: number }> {
    const r = await this.#c.send(
      new GetItemCommand({ TableName: this.#table, Key: { id: S(this.#stateId) }, ConsistentRead: true }),
    );
    const gz = r.Item?.state_gz?.B;
    if (r.Item === undefined || gz === undefined) return { state: emptyState(), version: 0 };
    return {
      state: JSON.parse(gunzipSync(gz).toString("utf8")) as AlertState,
      version: num(r.Item.version) ?? 0,
    };
  }

  async putState(state: AlertState, expectedVersion: number): Promise<PutStateResult> {
    const ok = await this.#conditional(
      this.#c.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: {
            id: S(this.#stateId),
            version: N(expectedVersion + 1),
            state_gz: { B: gzipSync(JSON.stringify(state)) },
            updated_at: N(this.#now()),
          },
          ...(expectedVersion === 0
            ? { ConditionExpression: "attribute_not_exists(id)" }
            : {
                ConditionExpression: "version = :expected",
                ExpressionAttributeValues: { ":expected": N(expectedVersion) },
              }),
        }),
      ),
    );
    if (ok) return { ok: true, version: expectedVersion + 1 };
    return { ok: false, conflict: true, version: (await this.readState()).version };
  }
}
