import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "./env.ts";
import { SESSION_KEY_FILE, sessionKeysFor } from "./session-key.ts";

const KEY_1 = "1".repeat(40);
const KEY_2 = "2".repeat(40);

describe("npm start's session keys", () => {
  it("without MONITOR_SESSION_KEYS: one key generated in DATA_DIR/session-key, owner-only", () => {
    const dir = mkdtempSync(join(tmpdir(), "local-session-key-"));
    const [key] = sessionKeysFor(dir, undefined);
    expect(key?.length).toBeGreaterThanOrEqual(43);
    const file = join(dir, SESSION_KEY_FILE);
    expect(readFileSync(file, "utf8").trim()).toBe(key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("a restart, or a second process on the same data folder, gets the same key (sessions survive)", () => {
    const dir = mkdtempSync(join(tmpdir(), "local-session-key-"));
    const first = sessionKeysFor(dir, undefined);
    expect(sessionKeysFor(dir, undefined)).toEqual(first);
    const other = mkdtempSync(join(tmpdir(), "local-session-key-"));
    expect(sessionKeysFor(other, undefined)).not.toEqual(first);
  });

  it("MONITOR_SESSION_KEYS wins over the file, in its order (the first signs)", () => {
    const dir = mkdtempSync(join(tmpdir(), "local-session-key-"));
    const r = readConfig({ MONITOR_SESSION_KEYS: `${KEY_2}, ${KEY_1}` });
    if (!r.ok) throw new Error(r.error);
    expect(sessionKeysFor(dir, r.config.sessionKeys)).toEqual([KEY_2, KEY_1]);
  });

  it("a bad MONITOR_SESSION_KEYS is one line naming the key at fault", () => {
    expect(readConfig({ MONITOR_SESSION_KEYS: `${KEY_1},short` })).toEqual({
      ok: false,
      error: "MONITOR_SESSION_KEYS[1] must be at least 32 characters",
    });
    const unset = readConfig({ MONITOR_SESSION_KEYS: "" });
    expect(unset.ok && unset.config.sessionKeys).toBeUndefined();
  });
});
