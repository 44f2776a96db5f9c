// A full disk is an answer, not an internal error: every write route answers it with 507 and the
// code Meilisearch uses for it, so a client knows its write was not stored and that retrying later
// (once space is freed) is the fix. docs/operations.md, "A full disk".

/** Meilisearch's error code for a full disk (its type is `system`). */
export const STORAGE_FULL_CODE = "no_space_left_on_device";

/** How deep `cause` chains are followed (a store's error wrapping the engine's wrapping the OS's). */
const MAX_CAUSE_DEPTH = 8;

/** SQLite's primary result code SQLITE_FULL: the disk is full, or the database hit its max_page_count. */
const SQLITE_FULL = 13;
/** ClickHouse's NOT_ENOUGH_SPACE: a part could not reserve room on any disk. */
const CLICKHOUSE_NOT_ENOUGH_SPACE = "243";
const NO_SPACE_TEXT = /No space left on device|errno:? 28\b|\(NOT_ENOUGH_SPACE\)/i;

/**
 * Why `error` is a full disk, in a few words for the log and the answer, or null when it is not one:
 * SQLite's SQLITE_FULL (node:sqlite's `errcode`), a file system's ENOSPC or EDQUOT, ClickHouse's and
 * chDB's NOT_ENOUGH_SPACE (code 243) or an errno 28 in its message, or an error already carrying
 * Meilisearch's `no_space_left_on_device` (a failed task's, an IndexManagerError's). Followed through
 * `cause`, as the run store and the index manager wrap the engine's error.
 */
export function storageFullCause(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === "object" && current !== null; depth++) {
    const e = current as {
      code?: unknown;
      errcode?: unknown;
      type?: unknown;
      message?: unknown;
      error?: { code?: unknown; message?: unknown };
      cause?: unknown;
    };
    const message = typeof e.message === "string" ? e.message : "";
    if (
      e.code === "ERR_SQLITE_ERROR" &&
      typeof e.errcode === "number" &&
      (e.errcode & 0xff) === SQLITE_FULL
    ) {
      return `SQLite: ${message || "database or disk is full"}`;
    }
    if (e.code === "ENOSPC" || e.code === "EDQUOT")
      return `${e.code}: ${message || "no space left on device"}`;
    if (e.code === CLICKHOUSE_NOT_ENOUGH_SPACE || e.type === "NOT_ENOUGH_SPACE") {
      return `ClickHouse NOT_ENOUGH_SPACE: ${message}`.trim();
    }
    if (e.code === STORAGE_FULL_CODE) return message || "no space left on device";
    if (e.error?.code === STORAGE_FULL_CODE) {
      return typeof e.error.message === "string" ? e.error.message : "no space left on device";
    }
    if (NO_SPACE_TEXT.test(message)) return message;
    current = e.cause;
  }
  return null;
}
