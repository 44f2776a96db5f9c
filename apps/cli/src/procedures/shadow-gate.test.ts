import type { QualityReport, ShadowComparison } from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import { UserError } from "../io.ts";
import type { AdminApi } from "./http.ts";
import { Report } from "./report.ts";
import { awaitGate, endShadow, type GateOptions, startShadow } from "./shadow-gate.ts";
import { gateOptions } from "./shadow-gate-flags.ts";

const T = { account: "acct", index: "products", serving: "acct:products:v1", candidate: "acct:products:v2" };

/** The admin API as the gate uses it: two settings with versions, and a queue of quality answers. */
class FakeAdmin {
  settings = new Map<string, unknown>();
  version = 1;
  puts: { segment: string; value: unknown }[] = [];
  reports: QualityReport[] = [];
  qualityCalls = 0;

  async getSetting(_a: string, _i: string, segment: string) {
    return { value: this.settings.get(segment) ?? null, version: this.version };
  }
  async putSetting(_a: string, _i: string, segment: string, _k: string, value: unknown, version: number) {
    if (version !== this.version) return { ok: false as const, conflict: "changed" };
    this.version++;
    this.settings.set(segment, value);
    this.puts.push({ segment, value });
    return { ok: true as const, version: this.version, warnings: [] };
  }
  async quality() {
    const r = this.reports[Math.min(this.qualityCalls, this.reports.length - 1)];
    this.qualityCalls++;
    return r;
  }
}

const few = { status: "too_little_data" as const, n: 0, needed: 10, reason: "few" };
const auc = (value: number) => ({
  status: "ok" as const,
  value,
  clicked: 300,
  notClicked: 300,
  interval: [value - 0.03, value + 0.03] as [number, number],
});

function report(withClick: number, servingAuc: number, candidateAuc: number): QualityReport {
  const c: ShadowComparison = {
    servingModelId: T.serving,
    shadowModelId: T.candidate,
    pairs: withClick * 2,
    withClick,
    agreement: few,
    serving: { modelId: T.serving, calibration: few, kendallTau: few, auc: auc(servingAuc) },
    shadow: { modelId: T.candidate, calibration: few, kendallTau: few, auc: auc(candidateAuc) },
    shadowHistogram: [],
  };
  return {
    account: T.account,
    index: T.index,
    since: "2026-11-27T00:00:00.000Z",
    until: "2026-11-28T00:00:00.000Z",
    modelId: null,
    minImpressions: 5,
    generatedAt: "2026-11-28T00:00:00.000Z",
    events: { attributed: 0, unattributed: 0, duplicates: 0 },
    models: [],
    comparisons: [c],
    drift: [],
  };
}

function deps(admin: FakeAdmin) {
  let now = Date.parse("2026-11-28T00:00:00Z");
  const slept: number[] = [];
  const out: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) } as never;
  return {
    deps: {
      admin: admin as unknown as AdminApi,
      report: new Report(io, false),
      now: () => new Date(now),
      sleep: async (ms: number) => {
        slept.push(ms);
        now += ms;
      },
    },
    slept,
    out,
  };
}

const options: GateOptions = {
  minOutcomes: 200,
  margin: 0.02,
  deadlineMs: 3_600_000,
  pollMs: 60_000,
  sampleRate: 1,
  canaryPercent: 10,
};

describe("the shadow-first gate of relevance rollout", () => {
  it("puts the candidate in shadow and canary once; a re-run finds them set and writes nothing", async () => {
    const admin = new FakeAdmin();
    await startShadow(deps(admin).deps, T, options);
    expect(admin.puts).toEqual([
      { segment: "relevance-shadow-config", value: { modelId: T.candidate, sampleRate: 1 } },
      { segment: "relevance-canary-config", value: { modelId: T.candidate, percent: 10 } },
    ]);
    const again = deps(admin);
    await startShadow(again.deps, T, options);
    expect(admin.puts).toHaveLength(2);
    expect(again.out.join("")).toContain("already so");
  });

  it("waits, polling on the injected clock, until enough paired searches have a click, then promotes", async () => {
    const admin = new FakeAdmin();
    admin.reports = [report(50, 0.8, 0.82), report(150, 0.8, 0.82), report(240, 0.8, 0.81)];
    const d = deps(admin);
    const decision = await awaitGate(d.deps, T, options);
    expect(decision.decision).toBe("promote");
    expect(d.slept).toEqual([60_000, 60_000]);
    expect(d.out.join("")).toContain("50 paired searches with a click of the 200 needed");
  });

  it("refuses a worse candidate with the numbers, and takes it off shadow and canary", async () => {
    const admin = new FakeAdmin();
    await startShadow(deps(admin).deps, T, options);
    admin.reports = [report(400, 0.82, 0.7)];
    const error = await awaitGate(deps(admin).deps, T, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toMatch(/refused: candidate AUC 0\.700 .* serving model's 0\.820/);
    expect((error as Error).message).toContain(`${T.serving} keeps serving products`);
    expect(admin.settings.get("relevance-shadow-config")).toBeNull();
    expect(admin.settings.get("relevance-canary-config")).toBeNull();
  });

  it("stops at the deadline without switching, the shadow taken off", async () => {
    const admin = new FakeAdmin();
    await startShadow(deps(admin).deps, T, options);
    admin.reports = [report(10, 0.8, 0.9)];
    const d = deps(admin);
    const error = await awaitGate(d.deps, T, { ...options, deadlineMs: 300_000 }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^deadline: after \d+ s, 10 paired searches with a click/);
    expect(d.slept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(300_000);
    expect(admin.settings.get("relevance-shadow-config")).toBeNull();
  });

  it("never takes over another candidate's shadow: it stops and writes nothing", async () => {
    const admin = new FakeAdmin();
    admin.settings.set("relevance-shadow-config", { modelId: "acct:products:v9", sampleRate: 0.5 });
    const error = await startShadow(deps(admin).deps, T, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toContain("names acct:products:v9, not acct:products:v2");
    expect(admin.puts).toEqual([]);
  });

  it("takes off only settings that still name the candidate", async () => {
    const admin = new FakeAdmin();
    admin.settings.set("relevance-shadow-config", { modelId: "acct:products:v9", sampleRate: 1 });
    admin.settings.set("relevance-canary-config", { modelId: T.candidate, percent: 5 });
    await endShadow(deps(admin).deps, T);
    expect(admin.settings.get("relevance-shadow-config")).toEqual({
      modelId: "acct:products:v9",
      sampleRate: 1,
    });
    expect(admin.settings.get("relevance-canary-config")).toBeNull();
  });
});

describe("the --shadow-first flags", () => {
  it("are refused without --shadow-first, and checked for their forms", () => {
    expect(gateOptions({})).toBeNull();
    expect(() => gateOptions({ canary: "5" })).toThrow("--canary needs --shadow-first");
    expect(() => gateOptions({ "shadow-first": true, deadline: "soon" })).toThrow(
      /--deadline must be a duration/,
    );
    expect(() => gateOptions({ "shadow-first": true, canary: "150" })).toThrow(
      /--canary must be a number from 0 to 100/,
    );
    expect(() => gateOptions({ "shadow-first": true, "min-outcomes": "2.5" })).toThrow(/whole number/);
    expect(gateOptions({ "shadow-first": true, deadline: "2d", "min-outcomes": "50", poll: "5" })).toEqual({
      minOutcomes: 50,
      margin: 0.02,
      deadlineMs: 2 * 86_400_000,
      pollMs: 5_000,
      sampleRate: 1,
      canaryPercent: null,
    });
  });
});
