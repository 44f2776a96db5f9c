// Every JSON answer of the monitor's resource routes matches the schema its OpenAPI document
// declares for that route and status (the document is generated from the schemas the handlers are
// typed with): runs, accounts, the registry, freshness, silences, the page's failure history and
// the 422 error body. The status body has its own test (status-schema.test.ts).
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { InMemoryCollectorRegistry, InMemoryMaintenanceStore, InMemorySilenceStore } from "@monitor/core";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, openTempStore, runAt } from "./test-support.ts";

let store: ClickHouseRunStore;
let cleanup: () => Promise<void>;
const NOW = Math.floor(Date.now() / MIN) * MIN;

beforeAll(async () => {
  const t = await openTempStore("svcmon-answers-openapi-");
  store = t.store;
  cleanup = t.cleanup;
});
afterAll(async () => {
  await cleanup();
});

/** A JSON pointer segment. */
const seg = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

describe("the answers and the OpenAPI document", () => {
  it("each answer matches the schema documented for its route and status", async () => {
    const app = makeApp({
      store,
      registry: new InMemoryCollectorRegistry(undefined, { now: () => NOW }),
      silences: new InMemorySilenceStore(),
      maintenance: new InMemoryMaintenanceStore(),
      now: () => NOW,
    });
    const doc = (await call(app, "GET", "/api/system/openapi.json")).body;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(doc, "monitor");
    const check = async (
      method: string,
      path: string,
      documented: string,
      status: number,
      body?: unknown,
    ) => {
      const r = await call(app, method, path, body === undefined ? {} : { body });
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(status);
      const pointer = `monitor#/paths/${seg(documented)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      const validate = ajv.getSchema(pointer);
      if (validate === undefined) throw new Error(`no schema at ${pointer}`);
      expect(validate(r.body), `${method} ${path} ${status}: ${JSON.stringify(validate.errors)}`).toBe(true);
      return r.body;
    };

    // A collector late by its threshold, so that freshness lists it.
    await check("PUT", "/api/system/collectors/config_s3", "/api/system/collectors/{name}", 200, {
      expected_interval_minutes: 1,
      freshness_threshold_minutes: 1,
    });
    await check("POST", "/api/system/runs", "/api/system/runs", 201, [
      runAt(NOW - 10 * MIN, { collector: "config_s3" }),
      runAt(NOW - 5 * MIN),
      runAt(NOW - 20 * MIN, { collector: "config_ebs", status: "failed", error: "AccessDenied" }),
      runAt(NOW - 3 * MIN, { collector: "brand_new" }),
    ]);
    await check("POST", "/api/system/runs", "/api/system/runs", 422, { collector: "" });
    await check("GET", "/api/system/runs?collector=config_ebs", "/api/system/runs", 200);
    await check("GET", "/api/system/runs?limit=0", "/api/system/runs", 422);
    await check("PUT", "/api/system/accounts/111111111111", "/api/system/accounts/{account_id}", 200, {
      account_name: "prod",
      svc_status: "active",
    });
    await check("PUT", "/api/system/accounts/222222222222", "/api/system/accounts/{account_id}", 200, {
      account_name: "legacy",
      svc_status: "no_access",
    });
    await check("GET", "/api/system/accounts", "/api/system/accounts", 200);
    await check("GET", "/api/system/collectors", "/api/system/collectors", 200);
    await check("DELETE", "/api/system/collectors/brand_new", "/api/system/collectors/{name}", 200);
    await check("DELETE", "/api/system/collectors/nope", "/api/system/collectors/{name}", 404);
    const fresh = (await check("GET", "/api/system/freshness", "/api/system/freshness", 200)) as {
      collectors: { name: string }[];
    };
    expect(fresh.collectors.map((c) => c.name)).toContain("config_s3");
    await check("GET", "/api/system/collectors/failures", "/api/system/collectors/failures", 200);
    const silence = (await check("POST", "/api/system/silences", "/api/system/silences", 201, {
      matchers: { rule: "collector_failure", subject: { op: "prefix", value: "config_ebs/" } },
      author: "ann",
      reason: "maintenance",
      ends_at: NOW + 60 * MIN,
    })) as { id: string };
    await check("GET", "/api/system/silences?all=true", "/api/system/silences", 200);
    await check("DELETE", `/api/system/silences/${silence.id}`, "/api/system/silences/{id}", 200);
    const window = (await check("POST", "/api/system/maintenance", "/api/system/maintenance", 201, {
      scope: { collectors: ["config_ebs"] },
      author: "ann",
      reason: "upgrade",
      ends_at: NOW + 60 * MIN,
    })) as { id: string };
    await check("POST", "/api/system/maintenance", "/api/system/maintenance", 201, {
      scope: { all: true },
      author: "ann",
      reason: "patching",
      schedule: "0 2 * * 0",
      timezone: "Europe/Berlin",
      duration_minutes: 120,
    });
    // The status with a window in effect: `maintenance` and a collector's `in_maintenance`.
    await check("GET", "/api/system/status", "/api/system/status", 200);
    await check("GET", "/api/system/maintenance?all=true", "/api/system/maintenance", 200);
    await check("DELETE", `/api/system/maintenance/${window.id}`, "/api/system/maintenance/{id}", 200);
    await check("GET", "/healthz", "/healthz", 200);
  });
});
