/**
 * Auto-registration (healthchecks' auto-provisioning): the first run of a collector
 * the registry does not know registers it with the deployment's defaults, marked
 * `registered_by: "first_run"`. From then on it is a collector like any other: `new` until its first
 * grace ends (its registration starts it), then stale, failing and alerted by the usual rules.
 */
import { MAX_REGISTRY_MINUTES } from "./limits.ts";
import type { CollectorRegistry } from "./ports.ts";
import { type CollectorSpec, STALE_INTERVAL_FACTOR } from "./records.ts";

export interface AutoRegisterConfig {
  /** Off (`AUTO_REGISTER=0`): runs of unknown collectors are stored, not registered (a status warning). */
  enabled: boolean;
  /** Expected interval of an auto-registered collector. Default 1440 (24 h). */
  expected_interval_minutes: number;
  /** Its freshness threshold. Default 2 × the interval. */
  freshness_threshold_minutes: number;
}

export const DEFAULT_AUTO_REGISTER_INTERVAL_MINUTES = 24 * 60;

export const DEFAULT_AUTO_REGISTER: AutoRegisterConfig = {
  enabled: true,
  expected_interval_minutes: DEFAULT_AUTO_REGISTER_INTERVAL_MINUTES,
  freshness_threshold_minutes: STALE_INTERVAL_FACTOR * DEFAULT_AUTO_REGISTER_INTERVAL_MINUTES,
};

/**
 * The deployment's auto-registration from the environment: `AUTO_REGISTER` (`1` default, `0` off),
 * `AUTO_REGISTER_INTERVAL_MINUTES` (default 1440) and `AUTO_REGISTER_FRESHNESS_MINUTES` (default 2 ×
 * the interval), each 1 to 525,600. Every error names its variable.
 */
export function autoRegisterFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; value: AutoRegisterConfig } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const flag = env.AUTO_REGISTER?.trim() ?? "";
  if (flag !== "" && flag !== "0" && flag !== "1")
    errors.push(`AUTO_REGISTER must be 0 or 1 (got ${JSON.stringify(flag)})`);
  const minutes = (name: string): number | undefined => {
    const raw = env[name]?.trim() ?? "";
    if (raw === "") return undefined;
    const n = /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(n >= 1 && n <= MAX_REGISTRY_MINUTES)) {
      errors.push(
        `${name} must be whole minutes from 1 to ${MAX_REGISTRY_MINUTES} (got ${JSON.stringify(raw)})`,
      );
      return undefined;
    }
    return n;
  };
  const interval = minutes("AUTO_REGISTER_INTERVAL_MINUTES") ?? DEFAULT_AUTO_REGISTER_INTERVAL_MINUTES;
  const freshness =
    minutes("AUTO_REGISTER_FRESHNESS_MINUTES") ??
    Math.min(MAX_REGISTRY_MINUTES, STALE_INTERVAL_FACTOR * interval);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      enabled: flag !== "0",
      expected_interval_minutes: interval,
      freshness_threshold_minutes: freshness,
    },
  };
}

/** The collectors named by `records` that are not in `known`, each once, in order of first appearance. Pure. */
export function unknownCollectors(
  records: readonly { collector: string }[],
  known: readonly Pick<CollectorSpec, "name">[],
): string[] {
  const seen = new Set(known.map((s) => s.name));
  const out: string[] = [];
  for (const r of records) {
    if (seen.has(r.collector)) continue;
    seen.add(r.collector);
    out.push(r.collector);
  }
  return out;
}

/** The registry entry an unknown collector gets on its first run. Pure. */
export function firstRunSpec(
  name: string,
  config: AutoRegisterConfig = DEFAULT_AUTO_REGISTER,
): CollectorSpec {
  return {
    name,
    expected_interval_minutes: config.expected_interval_minutes,
    freshness_threshold_minutes: config.freshness_threshold_minutes,
  };
}

/**
 * Registers the collectors of `records` that the registry does not know (`registerIfAbsent`, marked
 * `first_run`), after their runs were stored. Resolves to the names it registered; none when
 * auto-registration is off. A collector registered meanwhile by someone else is left as it is.
 */
export async function registerFirstRuns(
  registry: CollectorRegistry,
  records: readonly { collector: string }[],
  config: AutoRegisterConfig = DEFAULT_AUTO_REGISTER,
): Promise<string[]> {
  if (!config.enabled || records.length === 0) return [];
  const unknown = unknownCollectors(records, await registry.list());
  const registered: string[] = [];
  for (const name of unknown) {
    if (await registry.registerIfAbsent(firstRunSpec(name, config), "first_run")) registered.push(name);
  }
  return registered;
}
