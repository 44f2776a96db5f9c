import { describe, expect, it } from "vitest";
import { clickHouseFromEnv, collectorFromEnv, orThrow, statusFromEnv } from "./config.ts";

describe("clickHouseFromEnv", () => {
  it("reads the URL, credentials and defaults", () => {
    expect(
      clickHouseFromEnv({
        CLICKHOUSE_URL: "https://ch.example:8443",
        CLICKHOUSE_USERNAME: "svcmon",
        CLICKHOUSE_PASSWORD: "pw",
      }),
    ).toEqual({
      ok: true,
      value: {
        url: "https://ch.example:8443",
        username: "svcmon",
        password: "pw",
        database: "default",
        timeoutMs: 5000,
      },
    });
  });

  it("names every variable at fault", () => {
    expect(clickHouseFromEnv({ CLICKHOUSE_URL: "ftp://x", CLICKHOUSE_TIMEOUT_MS: "soon" })).toEqual({
      ok: false,
      errors: [
        { path: "CLICKHOUSE_URL", message: "must be an http(s) URL" },
        { path: "CLICKHOUSE_USERNAME", message: "is not set" },
        { path: "CLICKHOUSE_PASSWORD", message: "is not set" },
        { path: "CLICKHOUSE_TIMEOUT_MS", message: "must be a positive integer" },
      ],
    });
  });
});

describe("collectorFromEnv", () => {
  it("reads the collector, its regions (commas or spaces, deduplicated) and the run timeout", () => {
    expect(
      collectorFromEnv({
        COLLECTOR: "config_ec2",
        COLLECTOR_REGIONS: "us-east-1, eu-west-1,us-east-1",
        RUN_TIMEOUT_MS: "780000",
      }),
    ).toEqual({
      ok: true,
      value: { collector: "config_ec2", regions: ["us-east-1", "eu-west-1"], runTimeoutMs: 780_000 },
    });
  });

  it("refuses a region that is not one", () => {
    expect(collectorFromEnv({ COLLECTOR: "config_ec2", COLLECTOR_REGIONS: "us-east-1,Ireland" })).toEqual({
      ok: false,
      errors: [{ path: "COLLECTOR_REGIONS", message: '"Ireland" is not an AWS region' }],
    });
  });
});

describe("statusFromEnv and orThrow", () => {
  it("wants a token of at least 16 characters, and says so with the component's name", () => {
    expect(statusFromEnv({ MONITOR_TOKEN: "0123456789abcdef" })).toEqual({
      ok: true,
      value: { token: "0123456789abcdef" },
    });
    expect(() => orThrow("svcmon-status", statusFromEnv({ MONITOR_TOKEN: "short" }))).toThrow(
      "svcmon-status: MONITOR_TOKEN must be at least 16 characters",
    );
  });
});
