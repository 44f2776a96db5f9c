import type { Logger } from "@relevance/settings";

/** One JSON object per line on stdout: what log shippers and `jq` expect. */
export function jsonLogger(
  component: string,
  write: (line: string) => void = (l) => process.stdout.write(l),
): Logger {
  const emit = (level: string, message: string, fields?: Record<string, unknown>) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level, component, message, ...fields })}\n`);
  return {
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
  };
}
