/** The exit code of a command-line mistake (a flag missing or malformed), as sysexits' EX_USAGE family does. */
export const USAGE_EXIT = 2;

/**
 * A failure the person at the command line can fix: printed as one line, never with a stack trace,
 * and the process exits with `exitCode` (1, or USAGE_EXIT for a mistake in the command itself).
 */
export class UserError extends Error {
  override name = "UserError";
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}
