/**
 * MemoryOutcomeStore: the OutcomeStore in a process's memory, for the unit tests of what reads or
 * writes outcomes (the recorder, the events route, the quality report, the training export). It
 * keeps everything and scans it on every read, so it is no store for a running service: npm start
 * uses chDB and production a ClickHouse server (clickhouse-store.ts). It runs the same contract suite
 * (contract/outcome-store.contract.ts) as those, so a test that passes over it passes over them.
 */

import { checkDriftCountsQuery, countValue, emptyBinCounts } from "./drift/drift-counts.ts";
import { memoryShadowComparison } from "./memory-comparison.ts";
import { compareUtf8, dayBin, EVENT_LEAD_MS, scoreBin, utcDay } from "./outcome-math.ts";
import type {
  DriftCountsQuery,
  DriftDayCounts,
  OutcomeScope,
  OutcomeStore,
  QualityInputs,
  QualityQuery,
  ScoredModel,
  ScoredModelsQuery,
  ShadowComparisonInputs,
  ShadowComparisonQuery,
  ShadowPair,
  ShadowPairsQuery,
  TrainingQueryRow,
  TrainingRowsQuery,
} from "./ports.ts";
import type { OutcomeEvent, ServedSearch } from "./records.ts";

interface Outcome {
  clicked: boolean;
  converted: boolean;
}

export class MemoryOutcomeStore implements OutcomeStore {
  readonly searches: ServedSearch[] = [];
  readonly events: OutcomeEvent[] = [];

  async recordSearches(rows: readonly ServedSearch[]): Promise<void> {
    // Copies: a caller that reuses its objects must not change what was stored.
    for (const r of rows) this.searches.push(structuredClone(r));
  }

  async recordEvents(rows: readonly OutcomeEvent[]): Promise<void> {
    for (const r of rows) this.events.push(structuredClone(r));
  }

  async quality(q: QualityQuery): Promise<QualityInputs> {
    const scoped = this.scoped(q);
    const outcomes = this.outcomesOf(q, scoped);

    const daily = new Map<string, QualityInputs["daily"][number]>();
    const bins = new Map<string, QualityInputs["bins"][number]>();
    const queries = new Map<string, QualityInputs["queries"][number] & { scoreSum: number }>();
    for (const s of scoped) {
      const o = outcomes.get(s.queryUid) ?? { clicked: false, converted: false };
      const day = utcDay(s.servedAt);
      const dBin = dayBin(s.score);
      const dKey = JSON.stringify([s.modelId, day, dBin]);
      const d = daily.get(dKey) ?? { modelId: s.modelId, day, bin: dBin, searches: 0 };
      d.searches += 1;
      daily.set(dKey, d);

      const fBin = scoreBin(s.score);
      const bKey = JSON.stringify([s.modelId, fBin]);
      const b = bins.get(bKey) ?? { modelId: s.modelId, bin: fBin, searches: 0, clicked: 0, converted: 0 };
      b.searches += 1;
      b.clicked += o.clicked ? 1 : 0;
      b.converted += o.converted ? 1 : 0;
      bins.set(bKey, b);

      const qKey = JSON.stringify([s.modelId, s.queryKey]);
      const qq = queries.get(qKey) ?? {
        modelId: s.modelId,
        queryKey: s.queryKey,
        impressions: 0,
        clicked: 0,
        converted: 0,
        meanScore: 0,
        scoreSum: 0,
      };
      qq.impressions += 1;
      qq.clicked += o.clicked ? 1 : 0;
      qq.converted += o.converted ? 1 : 0;
      qq.scoreSum += s.score;
      queries.set(qKey, qq);
    }

    const byModelThen = <T extends { modelId: string }>(a: T, b: T) => compareUtf8(a.modelId, b.modelId);
    return {
      daily: [...daily.values()].sort(
        (a, b) => byModelThen(a, b) || compareUtf8(a.day, b.day) || a.bin - b.bin,
      ),
      bins: [...bins.values()].sort((a, b) => byModelThen(a, b) || a.bin - b.bin),
      queries: [...queries.values()]
        .filter((x) => x.impressions >= q.minImpressions)
        .sort(
          (a, b) => b.impressions - a.impressions || compareUtf8(a.queryKey, b.queryKey) || byModelThen(a, b),
        )
        .slice(0, Math.max(0, q.maxQueries))
        .map(({ scoreSum, ...x }) => ({ ...x, meanScore: scoreSum / x.impressions })),
      events: this.eventCounts(q, scoped),
    };
  }

  async trainingRows(q: TrainingRowsQuery): Promise<TrainingQueryRow[]> {
    const scoped = this.scoped(q);
    const outcomes = this.outcomesOf(q, scoped);
    const rows = new Map<string, TrainingQueryRow & { latest: ServedSearch }>();
    for (const s of scoped) {
      const o = outcomes.get(s.queryUid) ?? { clicked: false, converted: false };
      const r = rows.get(s.queryKey);
      if (r === undefined) {
        rows.set(s.queryKey, {
          queryKey: s.queryKey,
          query: s.query,
          modelId: s.modelId,
          features: [...s.features],
          impressions: 1,
          clicked: o.clicked ? 1 : 0,
          converted: o.converted ? 1 : 0,
          lastServedAt: s.servedAt,
          latest: s,
        });
        continue;
      }
      r.impressions += 1;
      r.clicked += o.clicked ? 1 : 0;
      r.converted += o.converted ? 1 : 0;
      if (isLater(s, r.latest)) {
        r.latest = s;
        r.query = s.query;
        r.modelId = s.modelId;
        r.features = [...s.features];
        r.lastServedAt = s.servedAt;
      }
    }
    return [...rows.values()]
      .filter((r) => r.impressions >= q.minImpressions)
      .filter((r) => q.after === undefined || compareUtf8(r.queryKey, q.after) > 0)
      .sort((a, b) => compareUtf8(a.queryKey, b.queryKey))
      .slice(0, Math.max(0, q.limit))
      .map(({ latest, ...r }) => r);
  }

  async shadowPairs(q: ShadowPairsQuery): Promise<ShadowPair[]> {
    const pairs: ShadowPair[] = [];
    for (const s of this.scoped(q)) {
      if (s.shadowModelId === undefined || s.shadowScore === undefined) continue;
      pairs.push({
        queryUid: s.queryUid,
        servedAt: s.servedAt,
        modelId: s.modelId,
        score: s.score,
        shadowModelId: s.shadowModelId,
        shadowScore: s.shadowScore,
      });
    }
    return pairs
      .sort((a, b) => a.servedAt - b.servedAt || compareUtf8(a.queryUid, b.queryUid))
      .slice(0, Math.max(0, q.limit));
  }

  async shadowComparison(q: ShadowComparisonQuery): Promise<ShadowComparisonInputs> {
    const scoped = this.scoped(q);
    const outcomes = this.outcomesOf(q, scoped);
    return memoryShadowComparison(
      scoped,
      (uid) => outcomes.get(uid) ?? { clicked: false, converted: false },
      q,
    );
  }

  async driftCounts(q: DriftCountsQuery): Promise<DriftDayCounts[]> {
    checkDriftCountsQuery(q);
    const days = new Map<string, DriftDayCounts>();
    for (const s of this.scoped({ ...q, modelId: q.modelId })) {
      const day = utcDay(s.servedAt);
      let d = days.get(day);
      if (d === undefined) {
        d = {
          day,
          score: emptyBinCounts(q.scoreEdges),
          features: q.features.map((f) => emptyBinCounts(f.edges)),
        };
        days.set(day, d);
      }
      countValue(d.score, q.scoreEdges, s.score);
      for (const [i, f] of q.features.entries())
        countValue(d.features[i] as DriftDayCounts["score"], f.edges, s.features[f.index]);
    }
    return [...days.values()].sort((a, b) => compareUtf8(a.day, b.day));
  }

  async scoredModels(q: ScoredModelsQuery): Promise<ScoredModel[]> {
    const out = new Map<string, ScoredModel>();
    for (const s of this.searches) {
      if (s.servedAt < q.since || s.servedAt >= q.until) continue;
      const key = JSON.stringify([s.account, s.index, s.modelId]);
      const m = out.get(key) ?? { account: s.account, index: s.index, modelId: s.modelId, searches: 0 };
      m.searches += 1;
      out.set(key, m);
    }
    return [...out.values()]
      .sort(
        (a, b) =>
          compareUtf8(a.account, b.account) ||
          compareUtf8(a.index, b.index) ||
          compareUtf8(a.modelId, b.modelId),
      )
      .slice(0, Math.max(0, q.limit));
  }

  async purge(before: number): Promise<void> {
    keep(this.searches, (s) => s.servedAt >= before);
    keep(this.events, (e) => e.receivedAt >= before);
  }

  private scoped(q: OutcomeScope): ServedSearch[] {
    return this.searches.filter(
      (s) =>
        s.account === q.account &&
        s.index === q.index &&
        s.servedAt >= q.since &&
        s.servedAt < q.until &&
        (q.modelId === undefined || s.modelId === q.modelId),
    );
  }

  /**
   * Whether each scoped search had a click and a conversion: events of its account and queryUid
   * only, received at most EVENT_LEAD_MS before the range.
   */
  private outcomesOf(q: OutcomeScope, scoped: readonly ServedSearch[]): Map<string, Outcome> {
    const uids = new Set(scoped.map((s) => s.queryUid));
    const out = new Map<string, Outcome>();
    const from = q.since - EVENT_LEAD_MS;
    for (const e of this.events) {
      if (e.account !== q.account || e.queryUid === null || !uids.has(e.queryUid) || e.receivedAt < from)
        continue;
      const o = out.get(e.queryUid) ?? { clicked: false, converted: false };
      if (e.eventType === "click") o.clicked = true;
      else o.converted = true;
      out.set(e.queryUid, o);
    }
    return out;
  }

  private eventCounts(q: QualityQuery, scoped: readonly ServedSearch[]): QualityInputs["events"] {
    const scopedUids = new Set(scoped.map((s) => s.queryUid));
    const accountUids = new Set(this.searches.filter((s) => s.account === q.account).map((s) => s.queryUid));
    const seen = new Map<string, "attributed" | "unattributed">();
    const counts = { attributed: 0, unattributed: 0, duplicates: 0 };
    for (const e of this.events) {
      if (e.account !== q.account || e.receivedAt < q.since || e.receivedAt >= q.until) continue;
      let kind: "attributed" | "unattributed" | null = null;
      if (e.queryUid !== null && scopedUids.has(e.queryUid)) kind = "attributed";
      else if (e.index === q.index && (e.queryUid === null || !accountUids.has(e.queryUid)))
        kind = "unattributed";
      if (kind === null) continue;
      const key = JSON.stringify([e.userHash, e.queryUid, e.objectId, e.eventType]);
      if (seen.has(key)) {
        counts.duplicates += 1;
        continue;
      }
      seen.set(key, kind);
      counts[kind] += 1;
    }
    return counts;
  }
}

/** The most recent search of a query: the latest servedAt, then the greatest queryUid. */
function isLater(a: ServedSearch, b: ServedSearch): boolean {
  return a.servedAt > b.servedAt || (a.servedAt === b.servedAt && compareUtf8(a.queryUid, b.queryUid) > 0);
}

function keep<T>(rows: T[], pred: (r: T) => boolean): void {
  let w = 0;
  for (const r of rows) if (pred(r)) rows[w++] = r;
  rows.length = w;
}
