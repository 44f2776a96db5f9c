/**
 * The status body's `own_cost` (docs/monitor-api.md). Never rejects and never waits longer than
 * the status route's bound: the status answers even when the cost tables do not.
 */
import { type OwnCostReport, settleWithin } from "@monitor/core";
import { errorMessage } from "@shared/kernel";

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
  const r = await settleWithin(timeoutMs, () => read(now));
  if (r.status === "ok") return { own_cost: r.value };
  if (r.status === "timeout")
    return { own_cost: null, own_cost_error: `own cost did not answer within ${timeoutMs} ms` };
  const err = r.error;
  return {
    own_cost: null,
    own_cost_error: `own cost could not be read: ${errorMessage(err)}`,
  };
}
