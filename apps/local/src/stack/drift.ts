// npm start's drift check: runDriftCheck (@relevance/outcomes) every DRIFT_CHECK_INTERVAL_MS
// (default hourly) over the stack's outcome store (chDB), the settings table (the alert rows and
// their claims) and the KV (the models' training profiles), notifying through the same channels as
// the monitor's alerts (ALERT_CONFIG, ALERT_WEBHOOK_URL). One run at a time; a failed run is logged
// and the next one tries again. docs/quality.md "Drift alerts".
import { hostname } from "node:os";
import { modelKey } from "@relevance/core";
import { type OutcomeStore, TableDriftAlertStore } from "@relevance/outcomes";
import { type DriftCheckResult, runDriftCheck } from "@relevance/outcomes/drift-check";
import type { Kv, Logger, SettingsTable } from "@relevance/settings";
import { type Channel, createChannels, InMemoryDeliveryLog } from "@shared/notify";
import type { LocalConfig } from "../env.ts";

export interface DriftLoop {
  /** One check now (after the one running, if any): what the interval does. */
  runOnce(): Promise<DriftCheckResult | null>;
  stop(): Promise<void>;
}

export function startDriftLoop(
  config: Pick<LocalConfig, "drift" | "alertChannels">,
  deps: { outcomes: OutcomeStore; table: SettingsTable; kv: Kv; log: Logger; now: () => number },
  options: { channels?: readonly Channel[] } = {},
): DriftLoop {
  const { outcomes, table, kv, log, now } = deps;
  const channels = options.channels ?? createChannels(config.alertChannels);
  const alerts = new TableDriftAlertStore(table);
  const deliveryLog = new InMemoryDeliveryLog();
  const claimant = `${hostname()}:${process.pid}:drift`;
  let running: Promise<DriftCheckResult | null> = Promise.resolve(null);
  const runOnce = () => {
    running = running.then(() =>
      runDriftCheck({
        outcomes,
        alerts,
        artifactText: (id) => kv.get(modelKey(id)),
        channels,
        deliveryLog,
        now: () => new Date(now()),
        threshold: config.drift.threshold,
        claimant,
        log,
      }).catch((err: unknown) => {
        log.warn("drift check failed; the next one tries again", { error: (err as Error).message });
        return null;
      }),
    );
    return running;
  };
  const timer = setInterval(() => void runOnce(), config.drift.intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
