/**
 * The status body's `own_cost` (docs/monitor-api.md). Never rejects and never waits longer than
 * the status route's bound: the status answers even when the cost tables do not.
 */
import type { OwnCostReport } from "@svcmon/core";

export interface OwnCostStatus {
  own_cost?: OwnCostReport | null;
  own_cost_error?: string;
}

/** No reader: nothing (the body has no `own_cost`). A read that fails or hangs: `own_cost: null` and why. */
export async function ownCostForStatus(
  read: ((now: number) => Promise<OwnCostReport>) | undefined,
  now: number,
  timeoutMs: number,
): Promise<OwnCostStatus> {
  if (read === undefined) return {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const work = read(now);
    work.catch(() => {});
    const got = await Promise.race([work, deadline]);
    if (got === "timeout")
      return { own_cost: null, own_cost_error: `own cost did not answer within ${timeoutMs} ms` };
    return { own_cost: got };
  } catch (err) {
    return {
      own_cost: null,
      own_cost_error: `own cost could not be read: ${err instanceof Error ? err.message : String(err)}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
