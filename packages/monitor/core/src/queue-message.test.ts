import { describe, expect, it } from "vitest";
import { parseIngestMessage, parseResourceEventAt, RUN_RECORD_KIND } from "./queue-message.ts";

const NOW = Date.UTC(2025, 0, 31, 12);
const MIN = 60_000;
const event = (observed_at: number) =>
  JSON.stringify({
    kind: "resource_observed",
    collector: "config_ec2",
    account_id: "111111111111",
    region: "eu-west-1",
    resource_type: "ec2_instance",
    resource_id: "i-1",
    observed_at,
  });
const run = (p: Record<string, unknown> = {}) =>
  JSON.stringify({
    kind: RUN_RECORD_KIND,
    collector: "nightly_backup",
    cloud_account_id: "111111111111",
    cloud_region: "eu-west-1",
    started_at: NOW - MIN,
    completed_at: NOW,
    status: "succeeded",
    events_produced: 0,
    rows_inserted: 0,
    ...p,
  });

describe("queue messages checked against the clock", () => {
  it("a resource event observed more than the allowance ahead is refused naming observed_at and the skew", () => {
    expect(parseResourceEventAt(event(NOW + 15 * MIN), NOW).ok).toBe(true);
    expect(parseResourceEventAt(event(NOW + 15 * MIN + 1), NOW)).toEqual({
      ok: false,
      errors: [
        {
          path: "observed_at",
          message: "is 15 min ahead of the server clock; at most 15 min (900 s) ahead is accepted",
        },
      ],
    });
  });

  it("a collector_run message is a run record: validated as the API's, its times checked", () => {
    const ok = parseIngestMessage(run(), NOW);
    expect(ok).toMatchObject({
      ok: true,
      value: { kind: "collector_run", run: { collector: "nightly_backup", completed_at: NOW } },
    });
    expect(parseIngestMessage(run({ completed_at: NOW + 20 * MIN }), NOW)).toEqual({
      ok: false,
      errors: [
        {
          path: "completed_at",
          message: "is 20 min ahead of the server clock; at most 15 min (900 s) ahead is accepted",
        },
      ],
    });
    expect(parseIngestMessage(run({ status: "maybe" }), NOW)).toMatchObject({
      ok: false,
      errors: [{ path: "status" }],
    });
    // Without run records, it is refused as before: not a resource event.
    expect(parseIngestMessage(run(), NOW, { runs: false })).toMatchObject({
      ok: false,
      errors: expect.arrayContaining([{ path: "kind", message: 'must be "resource_observed"' }]),
    });
    expect(parseIngestMessage("{", NOW)).toEqual({
      ok: false,
      errors: [{ path: "", message: "the message body is not valid JSON" }],
    });
    expect(parseIngestMessage(event(NOW), NOW)).toMatchObject({
      ok: true,
      value: { kind: "resource_observed" },
    });
  });
});
