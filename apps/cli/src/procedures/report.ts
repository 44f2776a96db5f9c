import type { Io } from "../io.ts";

/** One step of a procedure: what it did and what it verified, as printed and as in `--json`. */
export interface Step extends Record<string, unknown> {
  step: string;
  message: string;
}

/**
 * What a procedure tells the operator. Text mode prints each step as one line on stdout as it
 * happens; `--json` collects them and prints one JSON object at the end. Warnings and progress go to
 * stderr in both modes, so stdout stays parseable.
 */
export class Report {
  readonly steps: Step[] = [];
  readonly warnings: string[] = [];
  private progressOpen = false;

  private readonly io: Io;
  readonly json: boolean;

  constructor(io: Io, json: boolean) {
    this.io = io;
    this.json = json;
  }

  step(step: string, message: string, data: Record<string, unknown> = {}): void {
    this.steps.push({ step, message, ...data });
    if (!this.json) this.io.out(`${message}\n`);
  }

  warn(message: string): void {
    this.warnings.push(message);
    this.io.err(`warning: ${message}\n`);
  }

  /** Progress of a long transfer (stderr only): `start` prints the beginning, `end` completes the line. */
  progress(text: string, end = false): void {
    this.io.err(end ? `${text}\n` : text);
    this.progressOpen = !end;
  }

  /**
   * A note that work is still going on (a wait over a second): stderr, and only on a terminal, where a
   * person would otherwise stare at silence; in a log it adds nothing the result line does not say.
   */
  note(text: string): void {
    if (this.io.stderrIsTerminal === true) this.io.err(`${text}\n`);
  }

  /** Finishes an open progress line, e.g. before an error line. */
  closeProgress(): void {
    if (this.progressOpen) this.progress("failed", true);
  }
}

export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

export const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

export const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");
