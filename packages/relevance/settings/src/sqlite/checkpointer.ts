import type { DatabaseSync } from "node:sqlite";
import { Worker } from "node:worker_threads";

/**
 * The worker: its own connection to the file, a PASSIVE checkpoint every `intervalMs` (it neither
 * waits for nor blocks the writers and readers of other connections), and one more when told to
 * stop. Plain JavaScript, run with `eval`, so it needs no file of its own next to a bundle.
 */
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { DatabaseSync } = require("node:sqlite");
const db = new DatabaseSync(workerData.path);
db.exec("PRAGMA busy_timeout = 0");
const checkpoint = () => {
  try {
    db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  /** Ends the worker after a last checkpoint; the connection checkpoints itself again from then on. */
  stop(): Promise<void>;
}

export interface CheckpointOptions {
  /** How often the worker checkpoints (default 1000 ms). */
  intervalMs?: number;
  /** A checkpoint that failed, or the worker that stopped (the connection then checkpoints itself). */
  onError?: (message: string) => void;
}

/**
 * Moves `db`'s WAL checkpoints (the file at `path`) off the event loop. SQLite checkpoints in the
 * COMMIT that takes the WAL past 1,000 pages: copying 4 MB into the database file and syncing it
 * held the event loop 40–50 ms every fourth batch of 1,000 documents (docs/limits.md: no request
 * holds it more than about 50 ms). Here the connection's own checkpoints are off and a worker
 * thread checkpoints the file every `intervalMs` through its own connection. If the worker stops,
 * the connection checkpoints itself again, so the WAL never grows unchecked; `journal_size_limit`
 * trims a WAL a burst of writes made large once it is reset.
 */
export function checkpointInBackground(
  db: DatabaseSync,
  path: string,
  options: CheckpointOptions = {},
): WalCheckpointer {
  db.exec("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864");
  const selfCheckpoint = () => {
    if (db.isOpen) db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
  };
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { path, intervalMs: options.intervalMs ?? 1000 },
  });
  // It must not keep a process alive that has nothing else to do.
  worker.unref();
  let stopping = false;
  worker.on("message", (message: { error?: string }) => {
    if (message.error !== undefined) options.onError?.(`WAL checkpoint failed: ${message.error}`);
  });
  worker.on("error", (error) => options.onError?.(`WAL checkpointer stopped: ${String(error)}`));
  const exited = new Promise<void>((resolve) => {
    worker.on("exit", () => {
      if (!stopping) selfCheckpoint();
      resolve();
    });
  });
  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      // Kept alive until it has exited: a process with nothing else left would end mid-stop.
      worker.ref();
      worker.postMessage("stop");
      await exited;
      selfCheckpoint();
    },
  };
}

/** SQLite's wal_autocheckpoint default, in pages. */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;
