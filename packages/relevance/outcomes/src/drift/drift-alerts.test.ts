import { describe, expect, it } from "vitest";
import {
  alertKeyText,
  checkedDay,
  DRIFT_RULE,
  type DriftAlertState,
  driftFingerprint,
  driftNotification,
  driftTransitions,
} from "./drift-alerts.ts";
import type { ModelDrift, PsiCell } from "./drift-schema.ts";

const KEY = { account: "acct", index: "products", modelId: "acct:products:v1" };
const NOW = new Date("2026-03-11T06:00:00.000Z");

const ok = (psi: number, threshold = 0.2): PsiCell => ({
  status: "ok",
  psi,
  n: 500,
  drifted: psi > threshold,
});

function drift(day: string, score: PsiCell, hit: PsiCell): ModelDrift {
  return {
    modelId: KEY.modelId,
    status: "ok",
    threshold: 0.2,
    profileRows: 1000,
    days: [{ day, score, features: [{ feature: "hit_count", result: hit }] }],
  };
}

describe("the drift alert rule", () => {
  it("checks the latest complete UTC day", () => {
    expect(checkedDay(NOW)).toEqual({
      day: "2026-03-10",
      since: Date.UTC(2026, 2, 10),
      until: Date.UTC(2026, 2, 11),
    });
    expect(checkedDay(new Date("2026-03-11T00:00:00.000Z")).day).toBe("2026-03-10");
    expect(checkedDay(new Date("2026-03-10T23:59:59.999Z")).day).toBe("2026-03-09");
  });

  it("fires for each distribution above the threshold and only once while it stays there", () => {
    const d = drift("2026-03-10", ok(0.05), ok(0.9));
    const [t, ...rest] = driftTransitions(KEY, d, "2026-03-10", new Map(), NOW);
    expect(rest).toEqual([]);
    expect(t).toMatchObject({
      ...KEY,
      subject: "hit_count",
      status: "firing",
      psi: 0.9,
      n: 500,
      threshold: 0.2,
      day: "2026-03-10",
      startsAt: NOW.toISOString(),
    });
    if (t === undefined) throw new Error("no transition");
    expect(t.id).toBe(`${DRIFT_RULE}:${t.fingerprint}:2026-03-10:firing`);
    const states = new Map<string, DriftAlertState>([[alertKeyText(t), t]]);
    expect(driftTransitions(KEY, drift("2026-03-11", ok(0.05), ok(0.7)), "2026-03-11", states, NOW)).toEqual(
      [],
    );
  });

  it("resolves a firing alert when its PSI is back at or under the threshold, keeping its start", () => {
    const [fired] = driftTransitions(
      KEY,
      drift("2026-03-10", ok(0.05), ok(0.9)),
      "2026-03-10",
      new Map(),
      NOW,
    );
    if (fired === undefined) throw new Error("no transition");
    const states = new Map([[alertKeyText(fired), fired]]);
    const later = new Date("2026-03-12T06:00:00.000Z");
    const [resolved] = driftTransitions(
      KEY,
      drift("2026-03-11", ok(0.05), ok(0.2)),
      "2026-03-11",
      states,
      later,
    );
    expect(resolved).toMatchObject({
      subject: "hit_count",
      status: "resolved",
      psi: 0.2,
      startsAt: NOW.toISOString(),
      at: later.toISOString(),
      fingerprint: fired.fingerprint,
    });
  });

  it("leaves every alert as it is on a day without a PSI, and for a model without a profile", () => {
    const [fired] = driftTransitions(
      KEY,
      drift("2026-03-10", ok(0.9), ok(0.9)),
      "2026-03-10",
      new Map(),
      NOW,
    );
    if (fired === undefined) throw new Error("no transition");
    const states = new Map([[alertKeyText(fired), fired]]);
    const few: PsiCell = { status: "too_little_data", n: 3, needed: 100 };
    expect(driftTransitions(KEY, drift("2026-03-11", few, few), "2026-03-11", states, NOW)).toEqual([]);
    // The day checked has no row at all (no searches that day).
    expect(driftTransitions(KEY, drift("2026-03-10", ok(0), ok(0)), "2026-03-11", states, NOW)).toEqual([]);
    const none: ModelDrift = { modelId: KEY.modelId, status: "no_profile", reason: "none" };
    expect(driftTransitions(KEY, none, "2026-03-10", new Map(), NOW)).toEqual([]);
  });

  it("keys an alert by account, index, model and subject", () => {
    const a = driftFingerprint({ ...KEY, subject: "score" });
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(driftFingerprint({ ...KEY, subject: "score" })).toBe(a);
    expect(driftFingerprint({ ...KEY, subject: "hit_count" })).not.toBe(a);
    expect(driftFingerprint({ ...KEY, index: "other", subject: "score" })).not.toBe(a);
  });

  it("names the index, model, feature and PSI in the notification, its alert and its details", () => {
    const [t] = driftTransitions(
      KEY,
      drift("2026-03-10", ok(0.05), ok(0.4567)),
      "2026-03-10",
      new Map(),
      NOW,
    );
    if (t === undefined) throw new Error("no transition");
    const n = driftNotification(t);
    expect(n).toMatchObject({
      id: t.id,
      source: "relevance",
      rule: DRIFT_RULE,
      subject: "acct/products",
      kind: "firing",
      status: "firing",
      details: {
        index: "products",
        modelId: KEY.modelId,
        feature: "hit_count",
        psi: 0.4567,
        day: "2026-03-10",
      },
    });
    expect(n.title).toContain("hit_count");
    expect(n.title).toContain("0.457");
    expect(n.alerts?.[0]?.labels).toMatchObject({
      alertname: DRIFT_RULE,
      index: "products",
      model: KEY.modelId,
      feature: "hit_count",
    });
    expect(n.alerts?.[0]?.annotations.psi).toBe("0.457");
  });
});
