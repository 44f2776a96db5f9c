// The demo seeding as named steps, each run at most once per data folder. A step is recorded when it
// completes; a later start runs only the steps not recorded yet, so an interrupted first seeding is
// finished, and a completed step is never applied again over what the operator changed since
// (re-pointed alias, disabled config, pruned model version).

/** Which steps a data folder has completed; `record` must be durable before it returns (or resolves). */
export interface StepLog {
  done(): ReadonlySet<string>;
  record(step: string, at: Date): void | Promise<void>;
}

/**
 * The records a seeding still owns, by name, with the version its own last write left each at. A
 * record someone else wrote since is no longer owned, and the seeding leaves it to them: its later
 * writes are conditional on that version, so they never replace another writer's change.
 */
export interface OwnedRecords {
  /** The version the seeding's last write left `record` at; undefined when it does not own it. */
  get(record: string): number | undefined;
  set(record: string, version: number): void;
  release(record: string): void;
}

/** Owned records kept in memory: a seeding of a fresh stack of its own, which nobody else writes to. */
export function ownedInMemory(): OwnedRecords {
  const versions = new Map<string, number>();
  return {
    get: (record) => versions.get(record),
    set: (record, version) => void versions.set(record, version),
    release: (record) => void versions.delete(record),
  };
}

export interface Step<C> {
  /** Stable: it is the key of the record in the data folder (never rename a shipped step). */
  name: string;
  run(context: C): Promise<void>;
}

export interface StepsOutcome {
  /** Steps run (and recorded) by this call, in order. */
  ran: string[];
  /** Steps skipped because an earlier start had completed them. */
  skipped: string[];
}

/**
 * Runs, in order, the steps `log` has not recorded, recording each as it completes. A step that
 * throws is not recorded and stops the run (the next start begins with it). Steps are in a fixed
 * order and later ones may rely on earlier ones, so a recorded step is skipped wherever it stands.
 */
export async function runPendingSteps<C>(
  steps: readonly Step<C>[],
  log: StepLog,
  context: C,
  now: () => Date,
): Promise<StepsOutcome> {
  const done = log.done();
  const outcome: StepsOutcome = { ran: [], skipped: [] };
  for (const step of steps) {
    if (done.has(step.name)) {
      outcome.skipped.push(step.name);
      continue;
    }
    await step.run(context);
    await log.record(step.name, now());
    outcome.ran.push(step.name);
  }
  return outcome;
}
