import type { CollectorSpec } from "@svcmon/core";

/**
 * The collector registry (spec §3): the configured collectors, overridable at run time through
 * `PUT /api/system/collectors/{name}`. Overrides are persisted, so a restart keeps them.
 */
export interface CollectorRegistry {
  /** Every collector: configured ones with their overrides applied, plus collectors added by PUT. */
  list(): Promise<CollectorSpec[]>;
  get(name: string): Promise<CollectorSpec | null>;
  /** Creates or replaces one collector's intervals. */
  put(spec: CollectorSpec): Promise<void>;
}
