/**
 * Structured log lines (one JSON object per line in the embedded stack). Structural, so any logger
 * with these three methods fits: the stack's, a Lambda's, a test's recording one.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
