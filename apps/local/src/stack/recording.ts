// npm start's recording: the search's Recorder writes served searches to the stack's OutcomeStore in
// batches, off the response path; events go to the same store and are answered once stored. Without
// a store nothing is recorded and POST /api/v1/events answers 404.
import { type OutcomeStore, Recorder } from "@relevance/outcomes";
import type { SearchAppDeps } from "@relevance/search";
import type { Logger } from "@relevance/settings";
import type { LocalConfig } from "../env.ts";

export interface StackRecording {
  deps: Pick<SearchAppDeps, "recorder" | "recordEvents" | "eventsPerKeyPerSecond">;
  recorder: Recorder | null;
  /** Sends what is queued (on stop, before the store closes). */
  drain(): Promise<void>;
}

export function stackRecording(
  store: OutcomeStore | undefined,
  config: Pick<LocalConfig, "recording">,
  log: Logger,
  now: () => number = Date.now,
): StackRecording {
  if (store === undefined) return { deps: {}, recorder: null, drain: async () => {} };
  const recorder = new Recorder({
    sink: (rows) => store.recordSearches(rows),
    now,
    log,
    ...(config.recording === undefined
      ? {}
      : { maxPerSecond: config.recording.maxPerSecond, queueMax: config.recording.queueMax }),
  });
  return {
    deps: {
      recorder,
      recordEvents: (events) => store.recordEvents(events),
      ...(config.recording === undefined
        ? {}
        : { eventsPerKeyPerSecond: config.recording.eventsPerKeyPerSecond }),
    },
    recorder,
    drain: () => recorder.flush(),
  };
}
