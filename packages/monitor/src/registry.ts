import type { CollectorSpec } from "@svcmon/core";

/**
 * The collector registry (spec §3): the configured collectors, overridable at run time through
 * `PUT /api/system/collectors/{name}`. Overrides are persisted, so a restart keeps them.
 *
 * Every collector carries its registration (`registered_at`, `registered_by`): when the registry
 * first knew it. That starts the grace of a collector that never ran (`new`), so it is stored beside
 * the overrides and neither a restart nor a second registration moves it.
 */
export interface CollectorRegistry {
  /**
   * Every collector: configured ones with their overrides applied, plus collectors added by PUT. A
   * collector listed for the first time is registered by this call.
   */
  list(): Promise<CollectorSpec[]>;
  get(name: string): Promise<CollectorSpec | null>;
  /** Creates or replaces one collector's intervals; registers it if it was not yet. */
  put(spec: CollectorSpec): Promise<void>;
}
