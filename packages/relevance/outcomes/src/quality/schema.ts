/**
 * The live-quality report, defined once: the admin route's OpenAPI answer, `relevance quality
 * --json` and the search team's page all take this shape. Every metric is either a number with
 * its sample size and 95 % interval, or `too_little_data` with the count it had and the count it
 * needs (thresholds.ts).
 */
import * as z from "zod";
import { ModelDriftSchema } from "../drift/drift-schema.ts";
import { ShadowComparisonSchema } from "./comparison-schema.ts";
import { AucSchema, CalibrationSchema, CorrelationSchema } from "./metric-schemas.ts";

export const ModelQualitySchema = z.strictObject({
  modelId: z.string(),
  searches: z.number().int().min(0).describe("Scored searches served (recorded) in the range."),
  histogram: z
    .array(
      z.strictObject({
        day: z.string().describe("UTC day, YYYY-MM-DD."),
        counts: z
          .array(z.number().int().min(0))
          .length(10)
          .describe("Searches with a score in [b, b+1), b = 0..9 (a 10 in the last)."),
      }),
    )
    .describe("Score distribution per UTC day, days ascending."),
  calibration: CalibrationSchema,
  kendallTau: CorrelationSchema.describe(
    "Kendall τ-b between a query's mean score and its click-through rate.",
  ),
  spearmanRho: CorrelationSchema.describe("Spearman ρ (with ties) between the same."),
  queries: z.strictObject({
    n: z.number().int().min(0),
    truncated: z
      .boolean()
      .describe("True when maxQueries queries were read: the ones with the most searches."),
  }),
  auc: AucSchema.describe(
    "AUC of the score for searches that got no click (a no-click search scored lower; ties half).",
  ),
});

export const QualityReportSchema = z
  .strictObject({
    account: z.string(),
    index: z.string(),
    since: z.string().describe("ISO time, inclusive."),
    until: z.string().describe("ISO time, exclusive."),
    modelId: z.string().nullable().describe("The model asked for, or null for every model."),
    minImpressions: z.number().int().min(1),
    generatedAt: z.string(),
    events: z.strictObject({
      attributed: z.number().int().min(0),
      unattributed: z.number().int().min(0),
      duplicates: z.number().int().min(0),
    }),
    models: z.array(ModelQualitySchema).describe("Per model, the one with the most searches first."),
    comparisons: z
      .array(ShadowComparisonSchema)
      .describe("Per serving and shadow model pair seen in the range, the two judged on the same searches."),
    drift: z
      .array(ModelDriftSchema)
      .describe(
        "Per model served in the range, the PSI of its score and features against its training profile, per day.",
      ),
  })
  .describe("Live quality of an index's scored searches, per model.");

export type QualityReport = z.infer<typeof QualityReportSchema>;
export type ModelQuality = z.infer<typeof ModelQualitySchema>;
export type { DriftDay, ModelDrift, PsiCell } from "../drift/drift-schema.ts";
export type { ModelOnPairs, ShadowComparison } from "./comparison-schema.ts";
