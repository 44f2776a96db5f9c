import { describe, expect, it } from "vitest";
import { parseResourceEvent, validateResourceEvent } from "./resource-event.ts";

const good = {
  kind: "resource_observed",
  collector: "config_ec2",
  account_id: "111111111111",
  region: "us-east-1",
  resource_type: "ec2_instance",
  resource_id: "i-0abc",
  observed_at: 1_750_000_000_000,
  attributes: { instance_type: "t3.micro" },
};

describe("resource events", () => {
  it("accepts a complete event; attributes default to {}", () => {
    expect(validateResourceEvent(good)).toEqual({ ok: true, value: good });
    const { attributes: _a, ...bare } = good;
    expect(validateResourceEvent(bare)).toEqual({ ok: true, value: { ...bare, attributes: {} } });
  });

  it("names every field at fault", () => {
    const r = validateResourceEvent({ kind: "poison" });
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual([
      "kind",
      "collector",
      "account_id",
      "region",
      "resource_type",
      "resource_id",
      "observed_at",
    ]);
    const r2 = validateResourceEvent({ ...good, resource_id: "", observed_at: 1.5, attributes: [] });
    expect(r2.ok ? [] : r2.errors).toEqual([
      { path: "resource_id", message: "must be a non-empty string" },
      { path: "observed_at", message: "must be epoch milliseconds (a non-negative integer)" },
      { path: "attributes", message: "must be an object" },
    ]);
    expect(validateResourceEvent([good]).ok).toBe(false);
  });

  it("parses a message body: not JSON is one error on the body", () => {
    expect(parseResourceEvent(JSON.stringify(good)).ok).toBe(true);
    expect(parseResourceEvent("not json: poison")).toEqual({
      ok: false,
      errors: [{ path: "", message: "the message body is not valid JSON" }],
    });
    expect(parseResourceEvent("null").ok).toBe(false);
  });
});
