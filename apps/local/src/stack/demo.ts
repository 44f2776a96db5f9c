// The monitor's demo (DEMO=1): a simulated cloud of demo accounts and regions, its collectors run by
// the scheduler, the event queue drained into svc.resource_events, and 35 days of simulated cost
// reports, so the /system page has something to show at the first start. The demo shop of the
// search system is seeded after the start (../demo.ts).
import { join } from "node:path";
import {
  CountingSink,
  DEMO_ACCOUNTS,
  DEMO_REGIONS,
  SimulatedCloud,
  simulatedCollectors,
} from "@monitor/aws/simulation";
import {
  ClickHouseHierarchyStore,
  ClickHouseResourceEventSink,
  ClickHouseResourceSink,
} from "@monitor/clickhouse";
import { DEFAULT_AUTO_REGISTER, registerFirstRuns } from "@monitor/core";
import { writeSimulatedCurReports } from "@monitor/cost/simulation";
import { IngestConsumer } from "@monitor/queues";
import { accountsFromStore, hierarchyBuilder, Scheduler } from "@monitor/runtime";
import type { Logger } from "@relevance/settings";
import type { LocalConfig } from "../env.ts";
import type { MonitorStores } from "./monitor.ts";

export interface MonitorDemo {
  scheduler: Scheduler;
  ingest: IngestConsumer;
  /** Stops the collectors, waits for the cost reports and the re-attributions they asked for, then the ingest. */
  stop(): Promise<void>;
}

export async function startMonitorDemo(
  config: LocalConfig,
  log: Logger,
  monitor: MonitorStores,
): Promise<MonitorDemo> {
  const { runStore, registry, cost, eventQueue, hierarchyRules } = monitor;
  const known = new Set((await runStore.accountsLatest()).map((a) => a.account_id));
  for (const account of DEMO_ACCOUNTS) {
    if (!known.has(account.account_id)) await runStore.upsertAccount({ ...account, updated_at: Date.now() });
  }
  // Resource rows (with their tags) go to svc.resources; other tables of the simulated collectors
  // are only counted.
  const cloud = new SimulatedCloud({
    events: eventQueue,
    sink: ClickHouseResourceSink.fromStore(runStore, { fallback: new CountingSink() }),
  });
  // Drains the event queue into svc.resource_events (an event delivered again is stored once);
  // refused events go to the dead-letter queue.
  const resourceEvents = ClickHouseResourceEventSink.fromStore(runStore);
  const ingest = new IngestConsumer({
    queue: eventQueue,
    handle: async (event) => {
      await resourceEvents.append([event]);
    },
    // A receive's events in one append (its duplicate check and insert once, not once per event).
    handleEvents: async (events) => {
      await resourceEvents.append(events);
    },
    // A run record sent through the queue (`collector_run`) is stored as POST /api/system/runs would.
    handleRun: async (run) => {
      await runStore.insertRuns([run]);
      await registerFirstRuns(registry, [run], config.autoRegister ?? DEFAULT_AUTO_REGISTER);
    },
    // A run start sent through the queue (`collector_run_start`), as POST /api/system/runs/start.
    handleRunStart: async (start) => {
      await runStore.recordStarts([start]);
      await registerFirstRuns(registry, [start], config.autoRegister ?? DEFAULT_AUTO_REGISTER);
    },
    ...(config.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: config.maxClockSkewMs }),
    log: (level, msg, fields) => log[level](msg, { component: "ingest", ...fields }),
  });
  ingest.start();
  const scheduler = new Scheduler({
    // The real hierarchy_builder over svc.resources; each build re-attributes the open cost periods.
    collectors: simulatedCollectors(cloud, {
      hierarchyBuilder: hierarchyBuilder({
        store: ClickHouseHierarchyStore.fromStore(runStore),
        rules: hierarchyRules,
        onBuilt: () => cost.requestReattribution(),
      }),
    }),
    registry,
    store: runStore,
    accounts: accountsFromStore(runStore),
    regions: DEMO_REGIONS,
    timeoutMs: 30_000,
    log: ({ level, msg, ...fields }) => {
      if (level !== "debug") log[level](msg, { component: "monitor", ...fields });
    },
  });
  scheduler.start();
  // Simulated cost reports (the last 35 days through today) written into DATA_DIR/cur and ingested
  // at once, so the service's own cost is there at the first start; a restart replaces them.
  const costReports = (async () => {
    const deliveries = await writeSimulatedCurReports({
      client: runStore.client,
      cloud,
      accounts: DEMO_ACCOUNTS,
      regions: DEMO_REGIONS,
      dir: join(config.dataDir, "cur"),
      now: Date.now(),
    });
    for (const delivery of deliveries) {
      const r = await cost.ingest(delivery);
      log.info("cost report ingested", {
        component: "cost",
        billingPeriod: r.billing_period,
        payer: r.payer_account_id,
        lines: r.lines,
        replacedLines: r.replaced_lines,
      });
    }
  })().catch((err) =>
    log.error("simulated cost reports failed", { component: "cost", error: (err as Error).message }),
  );

  return {
    scheduler,
    ingest,
    async stop() {
      await scheduler.stop();
      await costReports;
      await cost.idle();
      await ingest.stop();
    },
  };
}
