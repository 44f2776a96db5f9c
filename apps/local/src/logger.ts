import type { Logger } from "@relevance/settings";
import { jsonLogger } from "@relevance/settings/json-logger";

/** The local stack prints every JSON log line on stdout, errors included (one stream to tail). */
export function stdoutLogger(component: string): Logger {
  const out = (line: string) => process.stdout.write(line);
  return jsonLogger(component, out, out);
}
