/**
 * The memory store's shadowComparison: the same aggregation the ClickHouse store runs in SQL
 * (clickhouse-comparison.ts), over the paired searches and their outcomes, in the same order.
 */
import { compareUtf8, dayBin, scoreBin, utcDay } from "./outcome-math.ts";
import type { ShadowComparisonInputs, ShadowComparisonQuery } from "./ports.ts";
import type { ServedSearch } from "./records.ts";

type Paired = ServedSearch & { shadowModelId: string; shadowScore: number };

export function memoryShadowComparison(
  scoped: readonly ServedSearch[],
  outcomeOf: (queryUid: string) => { clicked: boolean; converted: boolean },
  q: ShadowComparisonQuery,
): ShadowComparisonInputs {
  const paired = scoped.filter(
    (s): s is Paired => s.shadowModelId !== undefined && s.shadowScore !== undefined,
  );
  const pairs = new Map<string, ShadowComparisonInputs["pairs"][number]>();
  const bins = new Map<string, ShadowComparisonInputs["bins"][number]>();
  const queries = new Map<string, ShadowComparisonInputs["queries"][number] & { s: number; h: number }>();
  const samples = new Map<string, Paired[]>();
  const daily = new Map<string, ShadowComparisonInputs["daily"][number]>();
  for (const s of paired) {
    const o = outcomeOf(s.queryUid);
    const ids = { servingModelId: s.modelId, shadowModelId: s.shadowModelId };
    const key = JSON.stringify([s.modelId, s.shadowModelId]);
    const p = pairs.get(key) ?? { ...ids, pairs: 0, withClick: 0, absDiffSum: 0, diffSum: 0 };
    p.pairs += 1;
    p.withClick += o.clicked ? 1 : 0;
    p.absDiffSum += Math.abs(s.shadowScore - s.score);
    p.diffSum += s.shadowScore - s.score;
    pairs.set(key, p);
    for (const [side, score] of [
      ["serving", s.score],
      ["shadow", s.shadowScore],
    ] as const) {
      const bin = scoreBin(score);
      const bKey = JSON.stringify([s.modelId, s.shadowModelId, side, bin]);
      const b = bins.get(bKey) ?? { ...ids, side, bin, searches: 0, clicked: 0, converted: 0 };
      b.searches += 1;
      b.clicked += o.clicked ? 1 : 0;
      b.converted += o.converted ? 1 : 0;
      bins.set(bKey, b);
    }
    const qKey = JSON.stringify([s.modelId, s.shadowModelId, s.queryKey]);
    const qq = queries.get(qKey) ?? {
      ...ids,
      queryKey: s.queryKey,
      impressions: 0,
      clicked: 0,
      servingMeanScore: 0,
      shadowMeanScore: 0,
      s: 0,
      h: 0,
    };
    qq.impressions += 1;
    qq.clicked += o.clicked ? 1 : 0;
    qq.s += s.score;
    qq.h += s.shadowScore;
    queries.set(qKey, qq);
    const day = utcDay(s.servedAt);
    const dKey = JSON.stringify([s.modelId, s.shadowModelId, day, dayBin(s.shadowScore)]);
    const d = daily.get(dKey) ?? { ...ids, day, bin: dayBin(s.shadowScore), searches: 0 };
    d.searches += 1;
    daily.set(dKey, d);
    const list = samples.get(key);
    if (list === undefined) samples.set(key, [s]);
    else list.push(s);
  }
  const byIds = <T extends { servingModelId: string; shadowModelId: string }>(a: T, b: T) =>
    compareUtf8(a.servingModelId, b.servingModelId) || compareUtf8(a.shadowModelId, b.shadowModelId);
  const newestFirst = (a: Paired, b: Paired) =>
    b.servedAt - a.servedAt || compareUtf8(a.queryUid, b.queryUid);
  return {
    pairs: [...pairs.values()].sort(byIds),
    bins: [...bins.values()].sort((a, b) => byIds(a, b) || compareUtf8(a.side, b.side) || a.bin - b.bin),
    queries: [...queries.values()]
      .filter((x) => x.impressions >= q.minImpressions)
      .sort((a, b) => b.impressions - a.impressions || compareUtf8(a.queryKey, b.queryKey) || byIds(a, b))
      .slice(0, Math.max(0, q.maxQueries))
      .map(({ s, h, ...x }) => ({
        ...x,
        servingMeanScore: s / x.impressions,
        shadowMeanScore: h / x.impressions,
      })),
    daily: [...daily.values()].sort((a, b) => byIds(a, b) || compareUtf8(a.day, b.day) || a.bin - b.bin),
    samples: [...samples.values()].flatMap((list) =>
      list
        .sort(newestFirst)
        .slice(0, Math.max(0, q.maxSamples))
        .map((s) => ({
          servingModelId: s.modelId,
          shadowModelId: s.shadowModelId,
          score: s.score,
          shadowScore: s.shadowScore,
        })),
    ),
  };
}
