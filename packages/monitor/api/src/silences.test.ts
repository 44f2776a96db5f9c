// Silences through the API (create, list, expire), token-protected, with errors
// naming the field. The store is in memory; the engine's side is alert-engine-silences.test.ts.
import { InMemorySilenceStore, type RunStore } from "@monitor/core";
import { describe, expect, it } from "vitest";
import { call, MIN, makeApp } from "./test-support.ts";

const T0 = Date.parse("2026-11-25T12:00:00Z");

function setup() {
  const clock = { now: T0 };
  const silences = new InMemorySilenceStore();
  const app = makeApp({ store: {} as RunStore, silences, now: () => clock.now });
  return { clock, silences, app };
}

const body = {
  matchers: { rule: "collector_failure", subject: { op: "prefix", value: "config_ec2/" } },
  author: "ann",
  reason: "account migration",
  ends_at: new Date(T0 + 60 * MIN).toISOString(),
};

describe("silences API", () => {
  it("creates, lists and expires a silence", async () => {
    const { clock, silences, app } = setup();
    const created = await call(app, "POST", "/api/system/silences", { body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      matchers: body.matchers,
      author: "ann",
      reason: "account migration",
      starts_at: new Date(T0).toISOString(),
      ends_at: body.ends_at,
      state: "active",
    });
    expect((await silences.list()).map((s) => s.id)).toEqual([created.body.id]);

    const listed = await call(app, "GET", "/api/system/silences");
    expect(listed.status).toBe(200);
    expect(listed.body.silences.map((s: { id: string }) => s.id)).toEqual([created.body.id]);

    clock.now = T0 + 5 * MIN;
    const expired = await call(app, "DELETE", `/api/system/silences/${created.body.id}`);
    expect(expired.status).toBe(200);
    expect(expired.body).toMatchObject({ state: "expired", ends_at: new Date(T0 + 5 * MIN).toISOString() });
    expect((await call(app, "GET", "/api/system/silences")).body.silences).toEqual([]);
    expect((await call(app, "GET", "/api/system/silences?all=true")).body.silences).toHaveLength(1);
    expect((await call(app, "DELETE", "/api/system/silences/nope")).status).toBe(404);
  });

  it("refuses an invalid silence naming the field, and calls without the token", async () => {
    const { app } = setup();
    const bad = await call(app, "POST", "/api/system/silences", {
      body: { ...body, reason: "x".repeat(501), ends_at: new Date(T0 + 31 * 24 * 60 * MIN).toISOString() },
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain("reason");
    expect(JSON.stringify(bad.body)).toContain("ends_at");
    expect((await call(app, "POST", "/api/system/silences", { body, token: null })).status).toBe(401);
    expect((await call(app, "GET", "/api/system/silences", { token: null })).status).toBe(401);
    expect(
      (await call(app, "DELETE", "/api/system/silences/x", { token: "wrong-token-0123456789" })).status,
    ).toBe(401);
  });
});
