import type { Logger } from "./logger.ts";

type Write = (line: string) => void;

/**
 * One JSON object per line, as CloudWatch Logs Insights reads it: info and warn on stdout, error on
 * stderr (the Lambda runtime ships both to the function's log group).
 */
export function jsonLogger(
  component: string,
  out: Write = (line) => process.stdout.write(line),
  err: Write = (line) => process.stderr.write(line),
): Logger {
  const emit = (write: Write, level: string, message: string, fields?: Record<string, unknown>) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level, component, message, ...fields })}\n`);
  return {
    info: (message, fields) => emit(out, "info", message, fields),
    warn: (message, fields) => emit(out, "warn", message, fields),
    error: (message, fields) => emit(err, "error", message, fields),
  };
}
