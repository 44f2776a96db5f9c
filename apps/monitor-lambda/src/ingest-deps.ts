/** What the queue-batch ingest handler (ingest.ts) needs from the kind of event it stores (event-ingest.ts). */

import type { Result } from "@monitor/core";
import type { Logger } from "@shared/kernel";

export interface StoreOutcome {
  stored: number;
  /** Already stored (a redelivery): nothing written. */
  duplicates: number;
}

export interface IngestDeps<E> {
  /** A message body to an event; invalid bodies are refused with every problem. */
  parse: (body: string) => Result<E>;
  /** Stores events, all or nothing; rejecting leaves their messages on the queue. */
  store: (events: readonly E[]) => Promise<StoreOutcome>;
  log: Logger;
}
