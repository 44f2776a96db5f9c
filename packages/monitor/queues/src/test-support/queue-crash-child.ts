// Child process of the crash test: sends 25 messages, receives 5 (60 s visibility), prints what it
// did, and kills itself with SIGKILL: no close, no exit handlers, nothing flushed by the process.
import { SqliteQueue } from "../sqlite-queue.ts";

const path = process.argv[2];
if (path === undefined) throw new Error("usage: queue-crash-child.ts <file>");
const q = SqliteQueue.open(path, { name: "events" });
const sent = await q.send(Array.from({ length: 25 }, (_, i) => `message ${i}`));
const received = (await q.receive({ max: 5, visibilityTimeoutMs: 60_000 })).length;
// Read after the receive: its visibility deadline is at most this + 60 s, however slow the machine.
const receivedAt = Date.now();
process.stdout.write(`${JSON.stringify({ sent, received, receivedAt })}\n`, () => {
  process.kill(process.pid, "SIGKILL");
});
