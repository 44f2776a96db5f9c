/**
 * The embedded analytics DB's disk quota, read from the environment by every program that opens a
 * chDB store (npm start, svcmon) and by `openChdbRunStore` itself. Kept apart from chdb.ts so that a
 * configuration reader can check it without loading the chDB engine.
 */

/** The environment variable of the embedded store's disk quota (docs/monitor-alerts.md, disk_high). */
export const DISK_QUOTA_ENV = "MONITOR_DISK_QUOTA_BYTES";
/** Bounds of MONITOR_DISK_QUOTA_BYTES: 1 MiB to 1 PiB. */
export const DISK_QUOTA_MIN_BYTES = 1024 * 1024;
export const DISK_QUOTA_MAX_BYTES = 1024 ** 5;

/**
 * MONITOR_DISK_QUOTA_BYTES: the bytes the embedded analytics DB may use. Set, its disk figures are the
 * data folder against that quota (for a machine whose disk is shared with other work, where the
 * filesystem's fill says little about the monitor's own); unset, the filesystem that holds the folder.
 */
export function diskQuotaFromEnv(
  env: Record<string, string | undefined>,
): { ok: true; value: number | null } | { ok: false; error: string } {
  const raw = env[DISK_QUOTA_ENV]?.trim() ?? "";
  if (raw === "") return { ok: true, value: null };
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= DISK_QUOTA_MIN_BYTES && value <= DISK_QUOTA_MAX_BYTES)) {
    return {
      ok: false,
      error: `${DISK_QUOTA_ENV} must be a whole number of bytes from ${DISK_QUOTA_MIN_BYTES} (1 MiB) to ${DISK_QUOTA_MAX_BYTES} (1 PiB), got "${raw}"`,
    };
  }
  return { ok: true, value };
}
