/** In-memory doubles of the collectors' ports (sink and queue) and a context, for the AWS collector tests. */
import type { CollectorContext, EventQueue, RowSink } from "@monitor/core";

export class MemorySink implements RowSink {
  readonly rows: { table: string; row: Record<string, unknown> }[] = [];
  fail: Error | null = null;
  async write(table: string, rows: readonly Record<string, unknown>[]): Promise<number> {
    if (this.fail) throw this.fail;
    for (const row of rows) this.rows.push({ table, row });
    return rows.length;
  }
}

export class MemoryQueue implements EventQueue {
  readonly bodies: string[] = [];
  /** Accept at most this many per call (to model a queue that takes fewer). */
  acceptAtMost = Number.POSITIVE_INFINITY;
  async send(bodies: readonly string[]): Promise<number> {
    const n = Math.min(bodies.length, this.acceptAtMost);
    this.bodies.push(...bodies.slice(0, n));
    return n;
  }
}

export const RUN_ID = "0b6c3f53-2d9f-4c57-9a57-6f1d2f8f0a11";

export function context(
  accountId: string,
  region: string,
  now: number,
  signal = new AbortController().signal,
): CollectorContext {
  return {
    account: { account_id: accountId, account_name: "prod" },
    region,
    signal,
    now: () => now,
    run_id: RUN_ID,
  };
}
