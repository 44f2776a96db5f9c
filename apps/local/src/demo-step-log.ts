// Where the demo seeding records its completed steps (table demo_steps) and the records it still owns
// (demo_records) in the data folder's settings.db, so they live and die with the data they describe
// (a wiped DATA_DIR seeds anew).
import type { DatabaseSync } from "node:sqlite";
import type { OwnedRecords, StepLog } from "./demo-steps.ts";

export class SqliteStepLog implements StepLog {
  private readonly db: DatabaseSync;
  /** demo_records did not exist: the folder was (partly) seeded by a version that kept no versions. */
  readonly ownedRecordsAreNew: boolean;

  constructor(db: DatabaseSync) {
    this.db = db;
    db.exec("CREATE TABLE IF NOT EXISTS demo_steps (step TEXT PRIMARY KEY, done_at TEXT NOT NULL)");
    this.ownedRecordsAreNew =
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'demo_records'").get() ===
      undefined;
    db.exec("CREATE TABLE IF NOT EXISTS demo_records (record TEXT PRIMARY KEY, version INTEGER NOT NULL)");
  }

  /** The records the seeding owns (table demo_records), beside its steps. */
  owned(): OwnedRecords {
    const get = this.db.prepare("SELECT version FROM demo_records WHERE record = ?");
    const set = this.db.prepare(
      "INSERT INTO demo_records (record, version) VALUES (?, ?) ON CONFLICT(record) DO UPDATE SET version = excluded.version",
    );
    const release = this.db.prepare("DELETE FROM demo_records WHERE record = ?");
    return {
      get: (record) => (get.get(record) as { version: number } | undefined)?.version,
      set: (record, version) => void set.run(record, version),
      release: (record) => void release.run(record),
    };
  }

  done(): ReadonlySet<string> {
    const rows = this.db.prepare("SELECT step FROM demo_steps").all() as { step: string }[];
    return new Set(rows.map((r) => r.step));
  }

  /** Each step is recorded once: the first completion's time is kept. */
  record(step: string, at: Date): void {
    this.db
      .prepare("INSERT INTO demo_steps (step, done_at) VALUES (?, ?) ON CONFLICT(step) DO NOTHING")
      .run(step, at.toISOString());
  }

  /** Every recorded step with its time, oldest first (for tests and support). */
  entries(): { step: string; doneAt: string }[] {
    return (
      this.db.prepare("SELECT step, done_at FROM demo_steps ORDER BY done_at, rowid").all() as {
        step: string;
        done_at: string;
      }[]
    ).map((r) => ({ step: r.step, doneAt: r.done_at }));
  }
}
