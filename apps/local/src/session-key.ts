import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateSessionKey, parseSessionKeys } from "@monitor/api/session-keys";

/** Where npm start keeps its generated session key, inside DATA_DIR. */
export const SESSION_KEY_FILE = "session-key";

/**
 * The `/system` page's session keys of npm start: MONITOR_SESSION_KEYS when set (`configured`);
 * otherwise the key in `DATA_DIR/session-key`, generated on first start and written owner-only
 * (0600, created exclusively, so two processes starting on one folder end up with the same key).
 * A restart, or a second process on the same data folder, accepts the sessions of the first.
 */
export function sessionKeysFor(
  dataDir: string,
  configured: readonly string[] | undefined,
): readonly string[] {
  if (configured !== undefined) return configured;
  const file = join(dataDir, SESSION_KEY_FILE);
  try {
    writeFileSync(file, `${generateSessionKey()}\n`, { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const keys = parseSessionKeys(readFileSync(file, "utf8"), file);
  if (!keys.ok) {
    throw new Error(
      `${file}: ${keys.errors.map((e) => `${e.path} ${e.message}`).join("; ")} (delete it to generate a new key)`,
    );
  }
  return keys.value;
}
