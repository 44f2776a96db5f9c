// prune measures the 24 h grace period against the store's own record: the SQLite KV's row time of
// each version, besides the records' history (the cloud test covers Workers KV metadata).
import { modelKey } from "@relevance/core";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import type { Environment } from "../environments.ts";
import type { Io } from "../io.ts";
import type { ProcedureContext } from "./procedure.ts";
import { prune } from "./prune.ts";
import { Report } from "./report.ts";

const ACCOUNT = "acct_0123456789ab";
const id = (v: number) => `${ACCOUNT}:products:v${v}`;
const HOUR = 3_600_000;

async function setup(options: { now?: Date; overridden?: boolean } = {}) {
  const db = openDatabase(":memory:");
  const kv = new SqliteKv(db);
  const table = new SqliteSettingsTable(db);
  const now = options.now ?? new Date();
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  // products names v2 and stopped naming v1 a day and an hour ago (by the records' history).
  await table.put(
    ACCOUNT,
    "INDEX#products",
    {
      type: "index",
      relevance_trigger_config: { model_id: id(2), title_field: null, tags_field: null },
      relevance_model_history: { [id(1)]: ago(25 * HOUR) },
    },
    { mustNotExist: true },
  );
  for (const v of [1, 2]) await kv.put(modelKey(id(v)), `artifact v${v}`);
  /** Sets the row time the store keeps for v1. */
  const v1WrittenAgo = (ms: number) =>
    db.prepare("UPDATE kv SET updated_at = ? WHERE key = ?").run(ago(ms), modelKey(id(1)));
  const out: string[] = [];
  const io: Io = {
    out: (t) => out.push(t),
    err: () => {},
    readText: async () => "",
    writeTextAtomic: async () => {},
  };
  const env: Environment = {
    name: "local",
    kv,
    table,
    adminBaseUrl: "",
    adminToken: undefined,
    adminSigning: null,
    searchBaseUrl: "",
    close: () => {},
  };
  const ctx: ProcedureContext = {
    env,
    io,
    report: new Report(io, false),
    now: () => now,
    clockOverridden: options.overridden ?? false,
    admin: () => {
      throw new Error("no admin API here");
    },
    defaultTimeoutS: 10,
  };
  const run = (yes: boolean) => prune.run(ctx, { account: ACCOUNT, index: "products", yes });
  return { kv, out, run, v1WrittenAgo };
}

describe("prune and the store's write times", () => {
  it("keeps a version the store wrote less than 24 h ago, though the history's grace period is over", async () => {
    const s = await setup();
    s.v1WrittenAgo(2 * HOUR);
    const result = await s.run(true);
    expect(result.deleted).toEqual([]);
    expect(s.out[0]).toMatch(
      new RegExp(
        `^keep relevance_model:${id(1)}: written \\S+ \\(the store's record\\), less than 24 h ago; old after `,
      ),
    );
    expect(await s.kv.get(modelKey(id(1)))).toBe("artifact v1");
  });

  it("deletes it once both the history and the store's write time are more than 24 h old", async () => {
    const s = await setup();
    s.v1WrittenAgo(30 * HOUR);
    const result = await s.run(true);
    expect(result.deleted).toEqual([id(1)]);
    expect(await s.kv.get(modelKey(id(1)))).toBeNull();
  });

  it("measures both at RELEVANCE_NOW on local: a rehearsal of tomorrow sees today's upload as old", async () => {
    const tomorrow = new Date(Date.now() + 25 * HOUR);
    const s = await setup({ now: tomorrow, overridden: true });
    // v1's row keeps its real write time (now): 25 h before the rehearsed time.
    await s.kv.put(modelKey(id(1)), "artifact v1");
    const result = await s.run(false);
    expect(result.wouldDelete).toEqual([id(1)]);
  });

  it("deletes nothing with --yes while RELEVANCE_NOW is set: a rehearsed tomorrow never ends today's grace period", async () => {
    const tomorrow = new Date(Date.now() + 25 * HOUR);
    const s = await setup({ now: tomorrow, overridden: true });
    await s.kv.put(modelKey(id(1)), "artifact v1");
    await expect(s.run(true)).rejects.toThrow(
      /^RELEVANCE_NOW is set: it only rehearses what prune would delete at that time \(prune without --yes\); nothing is deleted while it is set: unset RELEVANCE_NOW to delete$/,
    );
    expect(await s.kv.get(modelKey(id(1)))).toBe("artifact v1");
  });
});
