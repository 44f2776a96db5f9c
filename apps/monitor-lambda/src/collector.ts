/**
 * `svcmon-collector-<name>`: one scheduled tick of one collector. An EventBridge rule invokes the
 * function every expected interval; the function runs the collector over every active account ×
 * region through the collector runtime (the same Scheduler as `npm start`: timeouts, the
 * hierarchy_builder gate, exactly one run record per run) and ends when every record is written.
 */

import { ClickHouseCollectorRegistry, type ClickHouseRunStore } from "@monitor/clickhouse";
import type { Collector, RegionSource, RunStore } from "@monitor/core";
import { accountsFromStore, type RunOutcome, Scheduler, type SchedulerOptions } from "@monitor/runtime";
import type { Logger } from "@shared/kernel";
import { jsonLogger } from "@shared/kernel/json-logger";
import { awsClients, COLLECTORS_MODULE, lambdaCollectors } from "./collectors.ts";
import {
  type CollectorSettings,
  clickHouseFromEnv,
  collectorFromEnv,
  collectorWiringFromEnv,
  orThrow,
} from "./config.ts";
import { hierarchyRulesFromLambdaEnv } from "./hierarchy-rules-env.ts";
import { once, openStore } from "./store.ts";

export interface CollectorHandlerDeps {
  store: RunStore;
  /** The collector registry (the runtime's port; not read by a single tick, which runs now). */
  registry: SchedulerOptions["registry"];
  collectors: readonly Collector[];
  settings: CollectorSettings;
  /** The regions of each account; default: `settings.regions` for every account. */
  regions?: RegionSource;
  /** Awaited after the tick, before the invocation ends (work the collectors left running). */
  settled?: () => Promise<void>;
  log: Logger;
}

export interface TickSummary {
  collector: string;
  /** Runs recorded, by status. */
  succeeded: number;
  failed: number;
  partial: number;
  /** The previous run of the same subject was still going (nothing recorded). */
  skipped: number;
  /** Runs whose record could not be written. */
  lost: number;
}

export function summarize(collector: string, outcomes: readonly RunOutcome[]): TickSummary {
  const s: TickSummary = { collector, succeeded: 0, failed: 0, partial: 0, skipped: 0, lost: 0 };
  for (const o of outcomes) {
    if (o.outcome === "recorded") s[o.record.status] += 1;
    else s[o.outcome] += 1;
  }
  return s;
}

/**
 * The tick as a function. It rejects (so the invocation counts as an error) when the collector is
 * not in this build or a run record could not be written; failed runs themselves are recorded, not thrown.
 */
export function createCollectorHandler(deps: CollectorHandlerDeps): () => Promise<TickSummary> {
  const { settings, log } = deps;
  const name = settings.collector;
  const collector = deps.collectors.find((c) => c.name === name);
  return async () => {
    if (collector === undefined) {
      const available = deps.collectors.map((c) => c.name).join(", ");
      throw new Error(
        `collector ${name} is not in this build (${available === "" ? `no collectors are wired yet: ${COLLECTORS_MODULE}` : `available: ${available}`})`,
      );
    }
    const runtime = new Scheduler({
      collectors: [collector],
      registry: deps.registry,
      store: deps.store,
      accounts: accountsFromStore(deps.store),
      regions: deps.regions ?? settings.regions,
      timeoutMs: settings.runTimeoutMs,
      log: ({ level, msg, ...fields }) => {
        if (level !== "debug") log[level](msg, fields);
      },
    });
    const summary = summarize(name, await runtime.runCollector(name));
    // Lambda freezes the environment once the handler returns: background work would stall there.
    await deps.settled?.();
    log.info("collector tick done", { ...summary });
    if (summary.lost > 0) throw new Error(`${summary.lost} run record(s) of ${name} could not be written`);
    return summary;
  };
}

const deployed = once(async () => {
  const env = process.env;
  const settings = orThrow("svcmon-collector", collectorFromEnv(env));
  const wiring = orThrow("svcmon-collector", collectorWiringFromEnv(env));
  // hierarchy_builder's rules: HIERARCHY_RULES_JSON (set by the stack), else the built-in ones.
  const hierarchyRules = orThrow("svcmon-collector", hierarchyRulesFromLambdaEnv(env));
  const store: ClickHouseRunStore = openStore(orThrow("svcmon-collector", clickHouseFromEnv(env)));
  await store.migrate();
  const log = jsonLogger(`svcmon-collector-${settings.collector}`);
  const wired = lambdaCollectors({
    store,
    wiring,
    regions: settings.regions,
    hierarchyRules,
    ...awsClients(),
    log: ({ level, msg, ...fields }) => {
      if (level !== "debug") log[level](msg, fields);
    },
  });
  return createCollectorHandler({
    store,
    registry: ClickHouseCollectorRegistry.fromStore(store),
    collectors: wired.collectors,
    settings,
    regions: wired.regions,
    settled: wired.settled,
    log,
  });
});

/** The Lambda entry point (an EventBridge scheduled event; its content is not needed). */
export const handler = async (): Promise<TickSummary> => (await deployed())();
