/**
 * One ClickHouse call with a hard deadline and the run store's error mapping (the same three-way
 * guard as the run store: request_timeout, an AbortSignal, and a race that also covers chDB).
 */
import { ClickHouseError } from "@clickhouse/client";
import { RunStoreQueryError, RunStoreUnavailable } from "../run-store.ts";

export async function chCall<T>(
  op: string,
  timeoutMs: number,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ac = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort();
      reject(
        new RunStoreUnavailable(`analytics database did not answer ${op} within ${timeoutMs} ms (timeout)`),
      );
    }, timeoutMs);
  });
  const work = fn(ac.signal);
  work.catch(() => {}); // settled after the deadline: already reported
  try {
    return await Promise.race([work, deadline]);
  } catch (err) {
    if (err instanceof RunStoreUnavailable) throw err;
    const code = (err as { code?: unknown } | null)?.code;
    if (err instanceof ClickHouseError || (typeof code === "string" && /^\d+$/.test(code))) {
      throw new RunStoreQueryError(`analytics database rejected ${op}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const detail = err instanceof Error ? err.message : String(err);
    throw new RunStoreUnavailable(`analytics database unavailable during ${op}: ${detail}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/** Epoch ms → DateTime64(3) text input (unix seconds with a 3-digit fraction: no timezone involved). */
export function msToCh(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${s}.${String(ms - s * 1000).padStart(3, "0")}`;
}
