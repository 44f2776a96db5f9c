/**
 * One ClickHouse call with a hard deadline and one error mapping, shared by every adapter on the
 * run store's client (run store, registry, inventory, hierarchy, cost, events). The deadline is a
 * race as well as an AbortSignal, so it also holds on chDB, which cannot cancel a running query.
 */

import { ClickHouseError } from "@clickhouse/client";
import { RunStoreError, RunStoreQueryError, RunStoreUnavailable } from "@monitor/core";
import { withDeadline } from "@shared/kernel";

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ECONNABORTED",
]);

/** Any failure of `op` as a RunStoreError: the database answered (query error) or it did not (unavailable). */
export function toRunStoreError(op: string, err: unknown): RunStoreError {
  if (err instanceof RunStoreError) return err;
  // The server (or chDB) answered with an exception: ClickHouseError carries its numeric code.
  // (Duck-typed too: @clickhouse/client-common may be a second copy of the class.)
  const errCode = (err as { code?: unknown } | null)?.code;
  const answered =
    err instanceof ClickHouseError ||
    (err instanceof Error && typeof errCode === "string" && /^\d+$/.test(errCode));
  if (answered) {
    return new RunStoreQueryError(`analytics database rejected ${op}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const e = err as { code?: unknown; name?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  const detail = NETWORK_CODES.has(code)
    ? code
    : typeof e?.message === "string" && e.message
      ? e.message
      : String(e?.name ?? err);
  return new RunStoreUnavailable(`analytics database unavailable during ${op}: ${detail}`, { cause: err });
}

export async function chCall<T>(
  op: string,
  timeoutMs: number,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  try {
    return await withDeadline(
      timeoutMs,
      fn,
      () =>
        new RunStoreUnavailable(`analytics database did not answer ${op} within ${timeoutMs} ms (timeout)`),
    );
  } catch (err) {
    throw toRunStoreError(op, err);
  }
}

/** Epoch ms → DateTime64(3) text input: unix seconds with a 3-digit fraction (no timezone ambiguity). */
export function msToCh(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${s}.${String(ms - s * 1000).padStart(3, "0")}`;
}
