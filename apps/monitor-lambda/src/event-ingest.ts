/**
 * What `svcmon-ingest` does with the messages of the event queue: parse each as the collectors'
 * `ResourceEvent` (the same check as the embedded IngestConsumer, `observed_at` at most the clock-skew
 * allowance ahead of now) and append the batch to the event store (svc.resource_events through
 * ClickHouseResourceEventSink on AWS). The store skips events it already holds, so a redelivered
 * message is acknowledged without being stored twice. `messageIngest` also takes run records sent
 * through the queue (`collector_run`): stored like `POST /api/system/runs` stores them, registering
 * the collector of a first run.
 */
import {
  type AutoRegisterConfig,
  type CollectorRegistry,
  DEFAULT_AUTO_REGISTER,
  DEFAULT_MAX_CLOCK_SKEW_MS,
  type IngestMessage,
  type NewRunRecord,
  parseIngestMessage,
  parseResourceEventAt,
  type ResourceEvent,
  type ResourceEventStore,
  type RunStartRow,
  type RunStore,
  registerFirstRuns,
} from "@monitor/core";
import type { IngestDeps, StoreOutcome } from "./ingest-deps.ts";

export interface IngestClock {
  /** Epoch ms, read once per message. Default Date.now. */
  now?: () => number;
  /** MAX_CLOCK_SKEW_S in ms. Default 15 min. */
  maxClockSkewMs?: number;
}

export function eventIngest(
  events: ResourceEventStore,
  opts: IngestClock = {},
): Omit<IngestDeps<ResourceEvent>, "log"> {
  const now = opts.now ?? Date.now;
  const skew = opts.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  return {
    parse: (body) => parseResourceEventAt(body, now(), skew),
    store: (batch) => events.append(batch),
  };
}

export interface RunIntake {
  store: Pick<RunStore, "insertRuns" | "recordStarts">;
  registry: CollectorRegistry;
  autoRegister?: AutoRegisterConfig;
}

/** Resource events and run records (`collector_run`) of one queue. */
export function messageIngest(
  events: ResourceEventStore,
  runs: RunIntake,
  opts: IngestClock = {},
): Omit<IngestDeps<IngestMessage>, "log"> {
  const now = opts.now ?? Date.now;
  const skew = opts.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  return {
    parse: (body) => parseIngestMessage(body, now(), { maxSkewMs: skew }),
    store: async (batch): Promise<StoreOutcome> => {
      const evs: ResourceEvent[] = [];
      const recs: NewRunRecord[] = [];
      const starts: RunStartRow[] = [];
      for (const m of batch) {
        if (m.kind === "collector_run") recs.push(m.run);
        else if (m.kind === "collector_run_start") starts.push(m.start);
        else evs.push(m.event);
      }
      const out: StoreOutcome = { stored: 0, duplicates: 0 };
      if (evs.length > 0) {
        const r = await events.append(evs);
        out.stored += r.stored;
        out.duplicates += r.duplicates;
      }
      if (recs.length > 0) {
        const r = await runs.store.insertRuns(recs);
        out.stored += r.inserted;
        out.duplicates += r.duplicates.length;
        await registerFirstRuns(runs.registry, recs, runs.autoRegister ?? DEFAULT_AUTO_REGISTER);
      }
      if (starts.length > 0) {
        // A start sent twice keeps its first; each counts as handled.
        await runs.store.recordStarts(starts);
        out.stored += starts.length;
        await registerFirstRuns(runs.registry, starts, runs.autoRegister ?? DEFAULT_AUTO_REGISTER);
      }
      return out;
    },
  };
}
