/**
 * The group commit's rules on steps held by the test (no database): how groups form, what each call
 * is answered, and what a failed write does to the group checked beside it. The same pipeline on
 * chDB is in clickhouse-run-store.test.ts.
 */
import { type CollectorRunRow, prepareGroup } from "@monitor/core";
import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit.ts";

const row = (n: number): CollectorRunRow => ({
  run_id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
  collector: "config_ec2",
  cloud_account_id: "111111111111",
  cloud_region: "us-east-1",
  started_at: 1_000,
  completed_at: 2_000,
  status: "succeeded",
  events_produced: 1,
  rows_inserted: 1,
  error: "",
  duration_ms: 1_000,
});

/** Steps over a set of stored ids whose writes wait until the test releases (or fails) them. */
function heldSteps() {
  const stored = new Set<string>();
  const writes: string[][] = [];
  const held: ((failure?: Error) => void)[] = [];
  let checks = 0;
  const commit = new GroupCommit({
    gatherMs: 0,
    prepare: (calls, writing) =>
      prepareGroup(calls, writing, async (rows) => {
        checks += 1;
        return new Set(rows.filter((r) => stored.has(r.run_id)).map((r) => r.run_id));
      }),
    write: async (fresh) => {
      writes.push(fresh.map((r) => r.run_id));
      const failure = await new Promise<Error | undefined>((release) => held.push(release));
      if (failure !== undefined) throw failure;
      for (const r of fresh) stored.add(r.run_id);
    },
  });
  const until = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setImmediate(r));
  };
  return { commit, writes, held, checks: () => checks, until };
}

describe("GroupCommit", () => {
  it("calls made in the same turn form one group, one check and one write, each answered on its own", async () => {
    const s = heldSteps();
    const calls = [s.commit.submit([row(1)]), s.commit.submit([row(2), row(1)]), s.commit.submit([row(3)])];
    await s.until(() => s.held.length === 1);
    expect(s.checks()).toBe(1);
    expect(s.writes).toEqual([[row(1).run_id, row(2).run_id, row(3).run_id]]);
    s.held.shift()?.();
    expect(await Promise.all(calls)).toEqual([
      { inserted: 1, duplicates: [] },
      { inserted: 1, duplicates: [row(1).run_id] },
      { inserted: 1, duplicates: [] },
    ]);
  });

  it("checks the next group while one is written; a failed write has it checked again and written whole", async () => {
    const s = heldSteps();
    const first = s.commit.submit([row(1)]);
    await s.until(() => s.held.length === 1);
    const second = s.commit.submit([row(1), row(2)]);
    await s.until(() => s.checks() === 2);
    s.held.shift()?.(new Error("disk full"));
    await expect(first).rejects.toThrow(/disk full/);
    await s.until(() => s.held.length === 1);
    expect(s.checks()).toBe(3);
    s.held.shift()?.();
    expect(await second).toEqual({ inserted: 2, duplicates: [] });
    expect(s.writes).toEqual([[row(1).run_id], [row(1).run_id, row(2).run_id]]);
  });

  it("a failed check rejects its group's calls and the next calls still go through", async () => {
    let fail = true;
    const commit = new GroupCommit({
      gatherMs: 0,
      prepare: async (calls) => {
        if (fail) throw new Error("unreachable");
        return { fresh: calls.flat(), results: calls.map((c) => ({ inserted: c.length, duplicates: [] })) };
      },
      write: async () => {},
    });
    await expect(commit.submit([row(1)])).rejects.toThrow("unreachable");
    fail = false;
    expect(await commit.submit([row(1)])).toEqual({ inserted: 1, duplicates: [] });
  });
});
