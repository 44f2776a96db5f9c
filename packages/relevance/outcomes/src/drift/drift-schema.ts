/**
 * Drift of live traffic against a model's training profile, defined once: the quality report's
 * `drift`, `relevance quality`, the page and the drift alerts read this shape. Per model and UTC
 * day, the population stability index (psi.ts) of the score and of each feature of the served
 * feature vectors.
 */
import * as z from "zod";

export const PsiCellSchema = z.discriminatedUnion("status", [
  z.strictObject({
    status: z.literal("ok"),
    psi: z.number().min(0),
    n: z.number().int().min(1).describe("Served searches whose values were binned."),
    drifted: z.boolean().describe("psi above the report's threshold."),
  }),
  z.strictObject({
    status: z.literal("too_little_data"),
    n: z.number().int().min(0),
    needed: z.number().int().min(1),
  }),
  z.strictObject({
    status: z.literal("not_profiled"),
    reason: z.string().describe("Why there is no PSI (the profile has no distribution for this feature)."),
  }),
]);

export const DriftDaySchema = z.strictObject({
  day: z.string().describe("UTC day, YYYY-MM-DD."),
  score: PsiCellSchema.describe("PSI of the served scores against the profile's score distribution."),
  features: z
    .array(z.strictObject({ feature: z.string(), result: PsiCellSchema }))
    .describe("PSI of each feature of the served vectors, in feature-set order."),
});

export const ModelDriftSchema = z.discriminatedUnion("status", [
  z.strictObject({
    modelId: z.string(),
    status: z.literal("ok"),
    threshold: z.number().min(0).describe("PSI above which a distribution has drifted."),
    profileRows: z.number().int().min(0).describe("Training rows the profile was computed from."),
    days: z.array(DriftDaySchema).describe("Days ascending."),
  }),
  z.strictObject({
    modelId: z.string(),
    status: z.literal("no_profile"),
    reason: z
      .string()
      .describe("Why drift cannot be computed (no training profile in the artifact, or no artifact)."),
  }),
]);

export type PsiCell = z.infer<typeof PsiCellSchema>;
export type ModelDrift = z.infer<typeof ModelDriftSchema>;
export type DriftDay = z.infer<typeof DriftDaySchema>;
