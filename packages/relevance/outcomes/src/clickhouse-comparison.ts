/**
 * The ClickHouse store's shadowComparison: four aggregations over the scope's searches that carry
 * a shadow score, joined to their outcomes exactly as quality() joins them. JavaScript sees only
 * the aggregates and at most maxSamples score pairs per model pair.
 */
import type { ClickHouseSql, SqlParams } from "./clickhouse-sql.ts";
import type { ShadowComparisonInputs, ShadowComparisonQuery } from "./ports.ts";

const n = (v: unknown): number => Number(v);

/** Math.round of score × 100 for scores ≥ 0 (ClickHouse's round() would round ties to even). */
const fine = (col: string) =>
  `toInt32(if(${col} * 100 - floor(${col} * 100) >= 0.5, ceil(${col} * 100), floor(${col} * 100)))`;

export async function clickhouseShadowComparison(
  sql: ClickHouseSql,
  parts: { db: string; where: string; params: SqlParams; outcomesSql: string },
  q: ShadowComparisonQuery,
): Promise<ShadowComparisonInputs> {
  const { db, where, outcomesSql } = parts;
  const params: SqlParams = {
    ...parts.params,
    min: Math.max(0, Math.floor(q.minImpressions)),
    max: Math.max(0, Math.floor(q.maxQueries)),
    samples: Math.max(0, Math.floor(q.maxSamples)),
  };
  const joined = `WITH scoped AS (
      SELECT query_uid, model_id, score, query_key, served_at,
        assumeNotNull(shadow_model_id) AS shadow_model, assumeNotNull(shadow_score) AS shadow
      FROM ${db}.served_searches
      WHERE ${where} AND shadow_model_id IS NOT NULL AND shadow_score IS NOT NULL),
    outcomes AS (${outcomesSql}),
    joined AS (SELECT s.query_uid AS query_uid, s.model_id AS model_id, s.shadow_model AS shadow_model,
        s.score AS score, s.shadow AS shadow, s.query_key AS query_key, s.served_at AS served_at,
        o.clicked AS clicked, o.converted AS converted
      FROM scoped AS s LEFT JOIN outcomes AS o ON s.query_uid = o.query_uid)`;
  const [pairs, bins, queries, samples, daily] = await Promise.all([
    sql.query(
      `${joined}
      SELECT model_id, shadow_model, count() AS pairs, sum(clicked) AS with_click,
        sum(abs(shadow - score)) AS abs_diff, sum(shadow - score) AS diff
      FROM joined GROUP BY model_id, shadow_model ORDER BY model_id, shadow_model`,
      params,
    ),
    sql.query(
      `${joined}
      SELECT model_id, shadow_model, side, bin, count() AS searches, sum(clicked) AS clicked,
        sum(converted) AS converted
      FROM (
        SELECT model_id, shadow_model, 'serving' AS side, ${fine("score")} AS bin, clicked, converted FROM joined
        UNION ALL
        SELECT model_id, shadow_model, 'shadow' AS side, ${fine("shadow")} AS bin, clicked, converted FROM joined)
      GROUP BY model_id, shadow_model, side, bin ORDER BY model_id, shadow_model, side, bin`,
      params,
    ),
    q.maxQueries <= 0
      ? Promise.resolve([])
      : sql.query(
          `${joined}
      SELECT model_id, shadow_model, query_key, count() AS impressions, sum(clicked) AS clicked,
        sum(score) / count() AS serving_mean, sum(shadow) / count() AS shadow_mean
      FROM joined GROUP BY model_id, shadow_model, query_key HAVING impressions >= {min:UInt64}
      ORDER BY impressions DESC, query_key ASC, model_id ASC, shadow_model ASC LIMIT {max:UInt64}`,
          params,
        ),
    q.maxSamples <= 0
      ? Promise.resolve([])
      : sql.query(
          `${joined}
      SELECT model_id, shadow_model, score, shadow FROM joined
      ORDER BY model_id, shadow_model, served_at DESC, query_uid ASC
      LIMIT {samples:UInt64} BY model_id, shadow_model`,
          params,
        ),
    sql.query(
      `${joined}
      SELECT model_id, shadow_model, toString(toDate(served_at)) AS day,
        toUInt8(least(9, greatest(0, floor(shadow)))) AS bin, count() AS searches
      FROM joined GROUP BY model_id, shadow_model, day, bin ORDER BY model_id, shadow_model, day, bin`,
      params,
    ),
  ]);
  return {
    pairs: pairs.map((r) => ({
      servingModelId: String(r.model_id),
      shadowModelId: String(r.shadow_model),
      pairs: n(r.pairs),
      withClick: n(r.with_click),
      absDiffSum: n(r.abs_diff),
      diffSum: n(r.diff),
    })),
    bins: bins.map((r) => ({
      servingModelId: String(r.model_id),
      shadowModelId: String(r.shadow_model),
      side: r.side === "shadow" ? "shadow" : "serving",
      bin: n(r.bin),
      searches: n(r.searches),
      clicked: n(r.clicked),
      converted: n(r.converted),
    })),
    queries: queries.map((r) => ({
      servingModelId: String(r.model_id),
      shadowModelId: String(r.shadow_model),
      queryKey: String(r.query_key),
      impressions: n(r.impressions),
      clicked: n(r.clicked),
      servingMeanScore: n(r.serving_mean),
      shadowMeanScore: n(r.shadow_mean),
    })),
    daily: daily.map((r) => ({
      servingModelId: String(r.model_id),
      shadowModelId: String(r.shadow_model),
      day: String(r.day),
      bin: n(r.bin),
      searches: n(r.searches),
    })),
    samples: samples.map((r) => ({
      servingModelId: String(r.model_id),
      shadowModelId: String(r.shadow_model),
      score: n(r.score),
      shadowScore: n(r.shadow),
    })),
  };
}
