import type { InMemoryRunStore } from "@monitor/core";
// The status body, as served, matches the Status schema of /api/system/openapi.json: the schema is
// checked against real answers (a fresh monitor whose collectors are new, and one with runs).

import { emptyState, evaluateConditions, InMemoryCollectorRegistry, step } from "@monitor/core";
import { firingAlerts } from "@monitor/runtime";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, openMemoryStore, runAt } from "./test-support.ts";

let store: InMemoryRunStore;
let cleanup: () => Promise<void>;
const NOW = Math.floor(Date.now() / MIN) * MIN;

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-status-schema-");
  store = t.store;
  cleanup = t.cleanup;
});
afterAll(async () => {
  await cleanup();
});

async function validator() {
  const app = makeApp({ store });
  const doc = (await call(app, "GET", "/api/system/openapi.json")).body;
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema(doc, "monitor-openapi");
  const validate = ajv.getSchema("monitor-openapi#/components/schemas/Status");
  if (validate === undefined) throw new Error("no Status schema");
  return validate;
}

describe("the status body and its OpenAPI schema", () => {
  it("a fresh monitor: every collector new, overall new; the body matches the schema", async () => {
    const registry = new InMemoryCollectorRegistry(undefined, { now: () => NOW });
    const body = (await call(makeApp({ store, registry, now: () => NOW }), "GET", "/api/system/status")).body;
    expect(body.collectors.map((c: { health: string }) => c.health)).toEqual(["new", "new", "new", "new"]);
    expect(body.overall_health).toBe("new");
    const validate = await validator();
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    // The schema would refuse a health it does not list.
    expect(validate({ ...body, collectors: [{ ...body.collectors[0], health: "waiting" }] })).toBe(false);
  });

  it("after runs: green, amber and red entries match too", async () => {
    const app = makeApp({ store, now: () => NOW });
    await call(app, "POST", "/api/system/runs", {
      body: [runAt(NOW - 5 * MIN), runAt(NOW - 20 * MIN, { collector: "config_ebs", status: "failed" })],
    });
    const body = (await call(app, "GET", "/api/system/status")).body;
    const validate = await validator();
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  });

  it("alerts, a muted one included, match the Alert schema: muted, what mutes it and why", async () => {
    // An account in no_access mutes the collector failures in it (the state the alert engine stores).
    const conditions = evaluateConditions(
      {
        collectors: [],
        streaks: [
          {
            collector: "config_ec2",
            cloud_account_id: "111111111111",
            cloud_region: "us-east-1",
            consecutive_failures: 3,
            last_success_at: null,
            last_error: "AssumeRole denied",
          },
        ],
        accounts: [
          { account_id: "111111111111", account_name: "legacy", svc_status: "no_access", updated_at: NOW },
        ],
        unscanned: [],
        dead_letter_queues: [],
        disk_used_ratio: null,
      },
      NOW,
    );
    const { state } = step(emptyState(), conditions, NOW);
    const app = makeApp({ store, now: () => NOW, alerts: async () => firingAlerts(state) });
    const body = (await call(app, "GET", "/api/system/status")).body;
    const validate = await validator();
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    const muted = body.alerts.find((a: { rule: string }) => a.rule === "collector_failure");
    expect(muted).toMatchObject({
      subject: "config_ec2/111111111111/us-east-1",
      muted: true,
      muted_by: { kind: "alert", rule: "account_no_access", subject: "111111111111" },
      last_error: "AssumeRole denied",
    });
    expect(muted.reason).toMatch(/^account legacy is no_access/);
    // The schema requires the muting fields.
    const { reason: _drop, ...withoutReason } = muted;
    expect(validate({ ...body, alerts: [withoutReason] })).toBe(false);
  });
});
