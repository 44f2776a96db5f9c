// Where the demo seeding records its completed steps: table demo_steps in the data folder's
// settings.db, so the record lives and dies with the data it describes (a wiped DATA_DIR seeds anew).
import type { DatabaseSync } from "node:sqlite";
import type { StepLog } from "./demo-steps.ts";

export class SqliteStepLog implements StepLog {
  private readonly db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.db = db;
    db.exec("CREATE TABLE IF NOT EXISTS demo_steps (step TEXT PRIMARY KEY, done_at TEXT NOT NULL)");
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
