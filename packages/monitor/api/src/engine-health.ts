/**
 * How the alert engine's own state weighs on the overall status (docs/monitor-alerts.md "The
 * monitor watched"): a late or failing engine means alerts may not be going out, which is worth a
 * look (amber) but is not itself a collector outage (red stays red, amber stays amber). An engine
 * that never ran changes nothing: a new deployment starts its engine after its collectors' first round.
 */
import type { Health } from "@monitor/core";

export function atLeastAmberFor(overall: Health, engine: string | undefined): Health {
  if (engine !== "late" && engine !== "failing") return overall;
  return overall === "red" ? "red" : "amber";
}
