import type { Logger } from "@relevance/settings";

type Write = (line: string) => void;

/** One JSON object per line for CloudWatch Logs Insights: info and warn on stdout, error on stderr. */
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
