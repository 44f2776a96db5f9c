/**
 * The live-quality report, defined once: the admin route's OpenAPI answer, `relevance quality
 * --json` and the search team's page all take this shape. Every metric is either a number with
 * its sample size and 95 % interval, or `too_little_data` with the count it had and the count it
 * needs (thresholds.ts).
 */
import * as z from "zod";

const Interval = z.tuple([z.number(), z.number()]).describe("95 % interval [low, high] of the value.");

const TooLittleData = z.strictObject({
  status: z.literal("too_little_data"),
  n: z.number().int().min(0).describe("What the metric had (searches or queries, as the metric counts)."),
  needed: z.number().int().min(1).describe("What it needs before it is shown."),
  reason: z.string().describe("Why, in words (a count below the threshold, or no variation to rank)."),
});

const Rate = z.strictObject({ rate: z.number().min(0).max(1), interval: Interval });

export const CalibrationGroupSchema = z.strictObject({
  decile: z
    .number()
    .int()
    .min(1)
    .max(10)
    .describe("The tenth of the searches, by score, this group ends in."),
  minScore: z.number(),
  maxScore: z.number(),
  n: z.number().int().min(1).describe("Searches in the group."),
  meanScore: z.number(),
  clickThrough: Rate.describe("Share of the group's searches with at least one click (Wilson interval)."),
  conversion: Rate.describe("Share with at least one conversion (Wilson interval)."),
});

const Calibration = z.discriminatedUnion("status", [
  z.strictObject({ status: z.literal("ok"), groups: z.array(CalibrationGroupSchema) }),
  TooLittleData,
]);

const Correlation = z.discriminatedUnion("status", [
  z.strictObject({
    status: z.literal("ok"),
    value: z.number().min(-1).max(1),
    n: z.number().int().describe("Queries (each with at least minImpressions searches)."),
    interval: Interval,
  }),
  TooLittleData,
]);

const Auc = z.discriminatedUnion("status", [
  z.strictObject({
    status: z.literal("ok"),
    value: z.number().min(0).max(1),
    clicked: z.number().int().describe("Searches with at least one click."),
    notClicked: z.number().int().describe("Searches with none."),
    interval: Interval.describe("Hanley–McNeil 95 % interval."),
  }),
  TooLittleData,
]);

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
  calibration: Calibration,
  kendallTau: Correlation.describe("Kendall τ-b between a query's mean score and its click-through rate."),
  spearmanRho: Correlation.describe("Spearman ρ (with ties) between the same."),
  queries: z.strictObject({
    n: z.number().int().min(0),
    truncated: z
      .boolean()
      .describe("True when maxQueries queries were read: the ones with the most searches."),
  }),
  auc: Auc.describe(
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
  })
  .describe("Live quality of an index's scored searches, per model.");

export type QualityReport = z.infer<typeof QualityReportSchema>;
export type ModelQuality = z.infer<typeof ModelQualitySchema>;
