// A counting progress line on stderr ("searched 120/500 queries") for work over a second. Only on a
// terminal: it rewrites itself with \r, which a log file or a pipe would keep as clutter, and stdout
// (what scripts parse, --json included) never carries it.
import type { Io } from "./io.ts";

/** Work that ends within this long shows no progress at all: a flash of text helps nobody. */
export const PROGRESS_DELAY_MS = 1_000;
/** At most this often the line is rewritten (a terminal cannot show faster changes usefully). */
export const PROGRESS_EVERY_MS = 200;

/** The text of the line: what is done out of how many, and the share. */
export function progressText(label: string, done: number, total: number): string {
  const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
  return `${label} ${done}/${total} (${percent}%)`;
}

export class ProgressLine {
  private readonly io: Io;
  private readonly label: string;
  private readonly total: number;
  private readonly now: () => number;
  private readonly started: number;
  private lastShown = Number.NEGATIVE_INFINITY;
  private shown = false;

  constructor(io: Io, label: string, total: number, now: () => number = Date.now) {
    this.io = io;
    this.label = label;
    this.total = total;
    this.now = now;
    this.started = now();
  }

  update(done: number): void {
    if (this.io.stderrIsTerminal !== true) return;
    const t = this.now();
    if (t - this.started < PROGRESS_DELAY_MS || t - this.lastShown < PROGRESS_EVERY_MS) return;
    this.lastShown = t;
    this.shown = true;
    this.io.err(`\r${progressText(this.label, done, this.total)}`);
  }

  /** Ends the line (if one was shown), so the next message starts on its own line. */
  end(done: number): void {
    if (!this.shown) return;
    this.io.err(`\r${progressText(this.label, done, this.total)}\n`);
    this.shown = false;
  }
}
