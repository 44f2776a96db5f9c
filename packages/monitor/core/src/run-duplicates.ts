/**
 * The run store's duplicate rule, the same for every adapter: a run_id is stored once. Repeats inside
 * a call (first occurrence wins), run_ids of an earlier call of the same group, of the group being
 * written and those already stored are duplicates, as they would be had the calls run one after the
 * other. Pure but for the lookup of stored run_ids, which the adapter hands in.
 */
import type { CollectorRunRow, InsertRunsResult } from "./ports.ts";

/** A group ready to write: the rows not stored yet, and each call's answer once they are. */
export interface PreparedGroup {
  fresh: CollectorRunRow[];
  results: InsertRunsResult[];
}

/**
 * Each call's answer and the rows to write. `writing`: the run_ids of a group being written (they
 * count as stored); `storedRunIds` is asked only about the other rows, and only when there are any.
 */
export async function prepareGroup(
  calls: readonly (readonly CollectorRunRow[])[],
  writing: ReadonlySet<string> | null,
  storedRunIds: (rows: readonly CollectorRunRow[]) => Promise<ReadonlySet<string>>,
): Promise<PreparedGroup> {
  // Drop repeats inside each call (first occurrence wins). A run_id of an earlier call of the
  // group counts as already stored, as it would be had the calls run one after the other.
  const perCall = calls.map((rows) => {
    const seen = new Set<string>();
    const duplicates: string[] = [];
    const unique: CollectorRunRow[] = [];
    for (const r of rows) {
      if (seen.has(r.run_id)) duplicates.push(r.run_id);
      else {
        seen.add(r.run_id);
        unique.push(r);
      }
    }
    return { duplicates, unique };
  });
  const unique = [...new Map(perCall.flatMap((c) => c.unique.map((r) => [r.run_id, r] as const))).values()];
  const toCheck = writing === null ? unique : unique.filter((r) => !writing.has(r.run_id));
  const stored = toCheck.length === 0 ? new Set<string>() : await storedRunIds(toCheck);
  const fresh: CollectorRunRow[] = [];
  const written = new Set<string>();
  const results = perCall.map((c) => {
    let inserted = 0;
    for (const r of c.unique) {
      if (stored.has(r.run_id) || written.has(r.run_id) || writing?.has(r.run_id) === true)
        c.duplicates.push(r.run_id);
      else {
        written.add(r.run_id);
        fresh.push(r);
        inserted += 1;
      }
    }
    return { inserted, duplicates: c.duplicates };
  });
  return { fresh, results };
}
