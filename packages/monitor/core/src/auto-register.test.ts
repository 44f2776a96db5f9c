import { describe, expect, it } from "vitest";
import {
  autoRegisterFromEnv,
  DEFAULT_AUTO_REGISTER,
  firstRunSpec,
  registerFirstRuns,
  unknownCollectors,
} from "./auto-register.ts";
import { DEFAULT_COLLECTORS } from "./records.ts";
import { InMemoryCollectorRegistry } from "./registry-memory.ts";

const NOW = Date.UTC(2025, 0, 31, 12, 0, 0);

describe("auto-registration of a collector's first run", () => {
  it("defaults: expected every 24 h, fresh for 2 × that", () => {
    expect(firstRunSpec("nightly_backup")).toEqual({
      name: "nightly_backup",
      expected_interval_minutes: 1440,
      freshness_threshold_minutes: 2880,
    });
  });

  it("unknown collectors: each once, in order of appearance, registered ones left out", () => {
    expect(
      unknownCollectors(
        [{ collector: "b_job" }, { collector: "config_ec2" }, { collector: "a_job" }, { collector: "b_job" }],
        DEFAULT_COLLECTORS,
      ),
    ).toEqual(["b_job", "a_job"]);
  });

  it("registers the unknown collectors of a batch as first_run at the registry's clock; known ones are untouched", async () => {
    const registry = new InMemoryCollectorRegistry(DEFAULT_COLLECTORS, { now: () => NOW });
    expect(
      await registerFirstRuns(registry, [{ collector: "config_ec2" }, { collector: "nightly_backup" }]),
    ).toEqual(["nightly_backup"]);
    expect(await registry.get("nightly_backup")).toEqual({
      ...firstRunSpec("nightly_backup"),
      registered_at: NOW,
      registered_by: "first_run",
    });
    expect(await registerFirstRuns(registry, [{ collector: "nightly_backup" }])).toEqual([]);
    expect((await registry.get("config_ec2"))?.registered_by).toBe("config");
  });

  it("switched off (AUTO_REGISTER=0): nothing is registered", async () => {
    const registry = new InMemoryCollectorRegistry(DEFAULT_COLLECTORS, { now: () => NOW });
    const off = { ...DEFAULT_AUTO_REGISTER, enabled: false };
    expect(await registerFirstRuns(registry, [{ collector: "nightly_backup" }], off)).toEqual([]);
    expect(await registry.get("nightly_backup")).toBeNull();
  });

  it("reads AUTO_REGISTER, AUTO_REGISTER_INTERVAL_MINUTES and AUTO_REGISTER_FRESHNESS_MINUTES, naming a bad one", () => {
    expect(autoRegisterFromEnv({})).toEqual({ ok: true, value: DEFAULT_AUTO_REGISTER });
    expect(autoRegisterFromEnv({ AUTO_REGISTER: "0", AUTO_REGISTER_INTERVAL_MINUTES: "60" })).toEqual({
      ok: true,
      value: { enabled: false, expected_interval_minutes: 60, freshness_threshold_minutes: 120 },
    });
    expect(
      autoRegisterFromEnv({ AUTO_REGISTER_INTERVAL_MINUTES: "60", AUTO_REGISTER_FRESHNESS_MINUTES: "90" }),
    ).toMatchObject({
      value: { expected_interval_minutes: 60, freshness_threshold_minutes: 90 },
    });
    expect(autoRegisterFromEnv({ AUTO_REGISTER: "yes", AUTO_REGISTER_FRESHNESS_MINUTES: "0" })).toEqual({
      ok: false,
      errors: [
        'AUTO_REGISTER must be 0 or 1 (got "yes")',
        'AUTO_REGISTER_FRESHNESS_MINUTES must be whole minutes from 1 to 525600 (got "0")',
      ],
    });
  });
});
