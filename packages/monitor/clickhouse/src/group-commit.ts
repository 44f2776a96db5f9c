/**
 * The run store's group commit (docs/monitor-tables.md, "Group commit"): calls of insertRuns made
 * while an insert is running are written together by the next one, so the fixed cost of an insert
 * (a part in svc.collector_runs and one per materialized view) is paid once per group, not per call.
 * It knows how groups form and overlap; what a group's duplicate check and write are is handed in.
 */
import type { CollectorRunRow, InsertRunsResult, PreparedGroup } from "@monitor/core";

/** The most rows one group commit of insertRuns writes (calls beyond wait for the next group). */
export const MAX_GROUP_ROWS = 20_000;

/**
 * The longest the next group waits for callers of the group just written to send again, when fewer
 * rows than half of those in flight are waiting (insertRuns, "Group commit" in docs/monitor-tables.md).
 */
export const GROUP_GATHER_MS = 50;

export interface GroupCommitSteps {
  /** The duplicate check of a group: `writing` holds the run_ids of the group being written. */
  prepare(
    calls: readonly (readonly CollectorRunRow[])[],
    writing: ReadonlySet<string> | null,
  ): Promise<PreparedGroup>;
  /** Writes a group's fresh rows (all or nothing). */
  write(fresh: readonly CollectorRunRow[]): Promise<void>;
  /** The longest the next group gathers (GROUP_GATHER_MS); 0 never waits. */
  gatherMs: number;
}

/** A call waiting for its group. Groups run one at a time in-process, so the duplicate check and
 * the write of one group cannot interleave with another's. */
interface PendingInsert {
  rows: readonly CollectorRunRow[];
  resolve: (r: InsertRunsResult) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  readonly #steps: GroupCommitSteps;
  readonly #pendingInserts: PendingInsert[] = [];
  #pendingRows = 0;
  #inserting = false;
  /** While the next group gathers (see #drain): the rows it waits for, and how to stop waiting. */
  #gather: { rows: number; done: () => void } | null = null;

  constructor(steps: GroupCommitSteps) {
    this.#steps = { ...steps, gatherMs: Math.max(0, steps.gatherMs) };
  }

  /**
   * Queues validated rows for the next group. Each call still gets its own answer, as if the calls
   * had run one after the other in the order they were made, and resolves only once its rows are
   * written.
   */
  submit(rows: readonly CollectorRunRow[]): Promise<InsertRunsResult> {
    return new Promise<InsertRunsResult>((resolve, reject) => {
      this.#pendingInserts.push({ rows, resolve, reject });
      this.#pendingRows += rows.length;
      if (!this.#inserting) void this.#drain();
      else if (this.#gather !== null && this.#pendingRows >= this.#gather.rows) this.#gather.done();
    });
  }

  /** Waits until `rows` calls' rows are waiting, or `until` settles, or `ms` pass (when given). */
  async #waitForRows(rows: number, until: Promise<unknown> | null, ms: number | null): Promise<void> {
    if (this.#pendingRows >= rows) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#gather = { rows, done: resolve };
      if (ms !== null) timer = setTimeout(resolve, ms);
      until?.then(
        () => resolve(),
        () => resolve(),
      );
    });
    clearTimeout(timer);
    this.#gather = null;
  }

  /**
   * After a group is written, the calls already waiting form the next group. When they hold fewer
   * rows than half of those in flight (the waiting ones and the group just answered, whose callers
   * are likely to send again), wait up to `gatherMs` (GROUP_GATHER_MS) for that half. Without
   * this, 8 callers settle into groups of 1 and 7 calls (a straggler forms a group alone while the
   * others come back), and a 1,000-row group costs nearly what a 7,000-row one does. One caller at a
   * time never waits: nothing is waiting when its group is written.
   */
  async #gatherNextGroup(answeredRows: number): Promise<void> {
    const want = Math.min(MAX_GROUP_ROWS, Math.ceil((this.#pendingRows + answeredRows) / 2));
    if (this.#pendingRows === 0 || this.#pendingRows >= want || this.#steps.gatherMs === 0) return;
    await this.#waitForRows(want, null, this.#steps.gatherMs);
  }

  /** The calls waiting, in order, up to MAX_GROUP_ROWS rows (at least one call). */
  #takeGroup(): PendingInsert[] {
    const group: PendingInsert[] = [];
    let n = 0;
    while (this.#pendingInserts.length > 0) {
      const next = this.#pendingInserts[0] as PendingInsert;
      if (group.length > 0 && n + next.rows.length > MAX_GROUP_ROWS) break;
      group.push(next);
      n += next.rows.length;
      this.#pendingInserts.shift();
    }
    this.#pendingRows -= n;
    return group;
  }

  /**
   * The pipeline: while a group is written, the next one forms as soon as as many rows wait as are
   * being written (half of those in flight), and its duplicate check runs beside the write; it is
   * written once the write before it has ended. A run_id of the group being written counts as stored
   * for the next (as it would had the groups run one after the other); should that write fail, the
   * next group is checked again. When a write ends with too few rows waiting, the next group gathers
   * (#gatherNextGroup) as before.
   */
  async #drain(): Promise<void> {
    this.#inserting = true;
    let writing: {
      rows: number;
      ids: ReadonlySet<string>;
      written: Promise<boolean>;
      ended: boolean;
    } | null = null;
    try {
      // Calls made in the same turn of the event loop join the first group.
      await Promise.resolve();
      let answered = 0;
      while (this.#pendingInserts.length > 0 || writing !== null) {
        if (writing !== null) {
          const current = writing;
          await this.#waitForRows(Math.min(MAX_GROUP_ROWS, current.rows), current.written, null);
          // A write that ended answers its calls before the next group forms (then gathered).
          await Promise.resolve();
          if (current.ended) {
            answered = current.rows;
            writing = null;
            continue;
          }
        } else if (answered > 0) {
          await this.#gatherNextGroup(answered);
        }
        if (this.#pendingInserts.length === 0) continue;
        const group = this.#takeGroup();
        const calls = group.map((g) => g.rows);
        let prepared: PreparedGroup;
        try {
          prepared = await this.#steps.prepare(calls, writing?.ids ?? null);
          if (writing !== null) {
            const ok = await writing.written;
            answered = writing.rows;
            writing = null;
            // The group before was not written: its run_ids are not stored after all.
            if (!ok) prepared = await this.#steps.prepare(calls, null);
          }
        } catch (err) {
          for (const g of group) g.reject(err);
          continue;
        }
        const next = {
          rows: prepared.fresh.length,
          ids: new Set(prepared.fresh.map((r) => r.run_id)),
          ended: false,
          written: this.#steps.write(prepared.fresh).then(
            () => {
              next.ended = true;
              for (const [k, g] of group.entries()) g.resolve(prepared.results[k] as InsertRunsResult);
              return true;
            },
            (err: unknown) => {
              next.ended = true;
              for (const g of group) g.reject(err);
              return false;
            },
          ),
        };
        writing = next;
      }
    } finally {
      this.#inserting = false;
    }
  }
}
