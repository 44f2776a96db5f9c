/**
 * Serving against shadow on the same searches, defined once: the quality report's `comparisons`,
 * what `relevance quality` prints, what the page draws and what the gated rollout decides on
 * (promotion-gate.ts). Only searches that both models scored count, so the two models are judged
 * on exactly the same traffic and the same outcomes.
 */
import * as z from "zod";
import {
  AucSchema,
  CalibrationSchema,
  CorrelationSchema,
  IntervalSchema,
  TooLittleDataSchema,
} from "./metric-schemas.ts";

/** One model's live quality measured on the paired searches only. */
export const ModelOnPairsSchema = z.strictObject({
  modelId: z.string(),
  calibration: CalibrationSchema.describe(
    "Click-through by this model's score decile over the paired searches.",
  ),
  kendallTau: CorrelationSchema.describe(
    "Kendall τ-b between a query's mean score under this model and its click-through rate, paired searches only.",
  ),
  auc: AucSchema.describe("AUC of this model's score for paired searches that got no click."),
});

export const ScoreAgreementSchema = z.discriminatedUnion("status", [
  z.strictObject({
    status: z.literal("ok"),
    n: z.number().int().min(1).describe("Paired searches compared."),
    meanAbsoluteDifference: z.number().min(0).describe("Mean of |shadow score − serving score|."),
    meanDifference: z
      .number()
      .describe("Mean of (shadow score − serving score): positive when the shadow scores higher."),
    spearmanRho: z
      .number()
      .min(-1)
      .max(1)
      .describe("Spearman ρ between the two models' scores of the same searches."),
    interval: IntervalSchema.describe("Fisher z 95 % interval of ρ."),
  }),
  TooLittleDataSchema,
]);

export const ShadowComparisonSchema = z
  .strictObject({
    servingModelId: z.string(),
    shadowModelId: z.string(),
    pairs: z.number().int().min(0).describe("Searches in the range that both models scored."),
    withClick: z
      .number()
      .int()
      .min(0)
      .describe(
        "Of those, searches with at least one click: the outcome-bearing searches a gated rollout waits for.",
      ),
    agreement: ScoreAgreementSchema,
    serving: ModelOnPairsSchema,
    shadow: ModelOnPairsSchema,
    shadowHistogram: z
      .array(
        z.strictObject({
          day: z.string().describe("UTC day, YYYY-MM-DD."),
          counts: z
            .array(z.number().int().min(0))
            .length(10)
            .describe("Paired searches the shadow scored in [b, b+1), b = 0..9 (a 10 in the last)."),
        }),
      )
      .describe(
        "The shadow model's score distribution per UTC day over the paired searches, days ascending.",
      ),
  })
  .describe("The serving model and a shadow model judged on the same searches and outcomes.");

export type ShadowComparison = z.infer<typeof ShadowComparisonSchema>;
export type ModelOnPairs = z.infer<typeof ModelOnPairsSchema>;
