import { describe, expect, it } from "vitest";
import { channelConfigsFromEnv, driftCheckDepsFromEnv } from "./drift-check.ts";

const BASE = { ENV: "prod", CLOUDFLARE_ACCOUNT_ID: "a", KV_NAMESPACE_ID: "n", CLOUDFLARE_API_TOKEN: "t" };

describe("the scheduled drift check's environment", () => {
  it("has nothing to check without CLICKHOUSE_URL, and names what is missing or wrong", () => {
    expect(driftCheckDepsFromEnv(BASE, "c")).toBeNull();
    expect(() => driftCheckDepsFromEnv({ ...BASE, ENV: undefined }, "c")).toThrow(
      "RelevanceDriftCheck: missing environment ENV",
    );
    expect(() => driftCheckDepsFromEnv({ ...BASE, DRIFT_PSI_THRESHOLD: "-1" }, "c")).toThrow(
      /^RelevanceDriftCheck: DRIFT_PSI_THRESHOLD must be/,
    );
  });

  it("builds the check with the threshold and the channels of ALERT_CONFIG_JSON and ALERT_WEBHOOK_URL", () => {
    const env = {
      ...BASE,
      CLICKHOUSE_URL: "https://ch.example.com",
      DRIFT_PSI_THRESHOLD: "0.25",
      ALERT_WEBHOOK_URL: "https://hooks.example.com/drift",
      ALERT_CONFIG_JSON: JSON.stringify({
        channels: [{ type: "slack", name: "team", webhookUrl: "https://hooks.slack.com/services/x" }],
      }),
    };
    const deps = driftCheckDepsFromEnv(env, "c");
    expect(deps?.threshold).toBe(0.25);
    expect(deps?.channels.map((c) => c.name)).toEqual(["team", "alert-webhook-url"]);
    expect(() => channelConfigsFromEnv({ ALERT_CONFIG_JSON: "{" })).toThrow(/ALERT_CONFIG_JSON/);
  });
});
