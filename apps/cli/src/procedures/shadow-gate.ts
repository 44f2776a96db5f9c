// The shadow-first phase of `relevance rollout --shadow-first`: the candidate scores a sampled share
// of the index's searches in shadow (and, with --canary, serves a share of its shoppers), and the
// rollout waits until the candidate has been judged against the serving model on the same searches
// (promotionGate), or until the deadline. Every step reads the settings first and writes only what
// differs, so a re-run after Ctrl-C or a crash picks up where the last one stopped; the paired
// searches already recorded keep counting (they are the candidate's, whose id is new).
import {
  type GateDecision,
  promotionGate,
  type QualityReport,
  QualityReportSchema,
  type ShadowComparison,
} from "@relevance/outcomes";
import { UserError } from "../io.ts";
import type { AdminApi } from "./http.ts";
import type { Report } from "./report.ts";

export const SHADOW_SETTING = { segment: "relevance-shadow-config", bodyKey: "relevanceShadowConfig" };
export const CANARY_SETTING = { segment: "relevance-canary-config", bodyKey: "relevanceCanaryConfig" };

export interface GateOptions {
  /** Paired searches with a click needed before deciding. */
  minOutcomes: number;
  margin: number;
  deadlineMs: number;
  pollMs: number;
  sampleRate: number;
  /** Percent of shoppers served by the candidate while it is judged; null for none. */
  canaryPercent: number | null;
}

export interface GateDeps {
  admin: AdminApi;
  report: Report;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
}

interface Target {
  account: string;
  index: string;
  /** The model serving now, and the candidate. */
  serving: string;
  candidate: string;
}

const same = (a: unknown, b: Record<string, unknown>): boolean =>
  typeof a === "object" &&
  a !== null &&
  Object.keys(b).every((k) => (a as Record<string, unknown>)[k] === b[k]) &&
  Object.keys(a).length === Object.keys(b).length;

/** Sets a per-index setting to `value` unless it already is; retries once on a concurrent change. */
async function ensureSetting(
  deps: GateDeps,
  t: Target,
  setting: { segment: string; bodyKey: string },
  value: Record<string, unknown> | null,
  describe: string,
): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const state = await deps.admin.getSetting(t.account, t.index, setting.segment, setting.bodyKey);
    const named = (state.value as { modelId?: unknown } | null)?.modelId;
    // Another candidate's shadow or canary is another rollout's: never taken over silently.
    if (value !== null && named !== undefined && named !== t.candidate)
      throw new UserError(
        `${t.index}'s ${setting.segment} names ${String(named)}, not ${t.candidate}: another rollout may be judging it; nothing was changed. Remove it first (its admin route, PUT null) if it is stale`,
      );
    if (value === null ? state.value === null : same(state.value, value)) {
      deps.report.step(setting.segment, `${describe} (already so)`);
      return;
    }
    const put = await deps.admin.putSetting(
      t.account,
      t.index,
      setting.segment,
      setting.bodyKey,
      value,
      state.version,
    );
    if (put.ok) {
      for (const w of put.warnings) deps.report.warn(`${t.index}: ${w}`);
      deps.report.step(setting.segment, `${describe} (version ${put.version})`, { version: put.version });
      return;
    }
  }
  throw new UserError(
    `${t.index} kept changing while its ${setting.segment} was being set; nothing else was changed: retry`,
  );
}

/** Puts the candidate in shadow (and canary): step one of the gated rollout. */
export async function startShadow(deps: GateDeps, t: Target, o: GateOptions): Promise<void> {
  await ensureSetting(
    deps,
    t,
    SHADOW_SETTING,
    { modelId: t.candidate, sampleRate: o.sampleRate },
    `${t.candidate} scores ${Math.round(o.sampleRate * 100)} % of ${t.index}'s scored searches in shadow`,
  );
  if (o.canaryPercent !== null)
    await ensureSetting(
      deps,
      t,
      CANARY_SETTING,
      { modelId: t.candidate, percent: o.canaryPercent },
      `${t.candidate} serves ${o.canaryPercent} % of ${t.index}'s shoppers (canary)`,
    );
}

/** Takes the candidate out of shadow and canary (only if they still name it). */
export async function endShadow(deps: GateDeps, t: Target): Promise<void> {
  for (const setting of [SHADOW_SETTING, CANARY_SETTING]) {
    const state = await deps.admin.getSetting(t.account, t.index, setting.segment, setting.bodyKey);
    const named = (state.value as { modelId?: unknown } | null)?.modelId;
    if (named !== t.candidate) continue;
    const put = await deps.admin.putSetting(
      t.account,
      t.index,
      setting.segment,
      setting.bodyKey,
      null,
      state.version,
    );
    if (put.ok) deps.report.step(setting.segment, `${t.candidate} removed from ${setting.segment}`);
    else deps.report.warn(`${t.index}: ${setting.segment} changed meanwhile (${put.conflict}); left as is`);
  }
}

/** The comparison of this serving model and this candidate in a report, or an empty one. */
export function comparisonOf(report: QualityReport, t: Target): ShadowComparison {
  const found = report.comparisons.find(
    (c) => c.servingModelId === t.serving && c.shadowModelId === t.candidate,
  );
  if (found !== undefined) return found;
  const none = { status: "too_little_data" as const, n: 0, needed: 1, reason: "no paired searches yet" };
  const empty = (modelId: string) => ({ modelId, calibration: none, kendallTau: none, auc: none });
  return {
    servingModelId: t.serving,
    shadowModelId: t.candidate,
    pairs: 0,
    withClick: 0,
    agreement: none,
    serving: empty(t.serving),
    shadow: empty(t.candidate),
    shadowHistogram: [],
  };
}

/** The quality range read while waiting: the deadline and a day, at most the report's 90 days. */
function sinceParam(o: GateOptions): string {
  const hours = Math.min(90 * 24, Math.ceil(o.deadlineMs / 3_600_000) + 24);
  return `${hours}h`;
}

/**
 * Polls the live comparison until the gate decides or the deadline passes. Returns a promote
 * decision; a refusal or the deadline is a UserError carrying the numbers (after the shadow and
 * canary are taken off, so the serving model stays alone).
 */
export async function awaitGate(deps: GateDeps, t: Target, o: GateOptions): Promise<GateDecision> {
  const started = deps.now().getTime();
  let last: GateDecision | null = null;
  for (;;) {
    const body = await deps.admin.quality(t.account, t.index, { since: sinceParam(o) });
    const parsed = QualityReportSchema.safeParse(body);
    if (!parsed.success)
      throw new UserError("the admin API answered a quality report this version of relevance cannot read");
    const decision = promotionGate(comparisonOf(parsed.data, t), {
      minWithClick: o.minOutcomes,
      margin: o.margin,
    });
    const waited = Math.round((deps.now().getTime() - started) / 1000);
    if (decision.decision !== "wait") {
      deps.report.step("gate", `${decision.decision}: ${decision.reason}`, { gate: decision });
      if (decision.decision === "promote") return decision;
      await endShadow(deps, t);
      throw new UserError(
        `refused: ${decision.reason}. ${t.serving} keeps serving ${t.index}; ${t.candidate} stays uploaded`,
      );
    }
    if (last?.numbers.withClick !== decision.numbers.withClick || last.reason !== decision.reason)
      deps.report.step("wait", `waiting (${waited} s): ${decision.reason}`, { gate: decision });
    last = decision;
    if (deps.now().getTime() - started + o.pollMs > o.deadlineMs) {
      await endShadow(deps, t);
      throw new UserError(
        `deadline: after ${waited} s, ${decision.reason}. Nothing was switched: ${t.serving} keeps serving ${t.index}; rerun with a later --deadline or a smaller --min-outcomes`,
      );
    }
    await deps.sleep(o.pollMs);
  }
}
