/**
 * The metric shapes every part of the quality report shares: a number with its sample size and
 * 95 % interval, or `too_little_data` with the count it had and the count it needs (thresholds.ts).
 */
import * as z from "zod";

export const IntervalSchema = z
  .tuple([z.number(), z.number()])
  .describe("95 % interval [low, high] of the value.");

export const TooLittleDataSchema = z.strictObject({
  status: z.literal("too_little_data"),
  n: z.number().int().min(0).describe("What the metric had (searches or queries, as the metric counts)."),
  needed: z.number().int().min(1).describe("What it needs before it is shown."),
  reason: z.string().describe("Why, in words (a count below the threshold, or no variation to rank)."),
});

const Rate = z.strictObject({ rate: z.number().min(0).max(1), interval: IntervalSchema });

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

export const CalibrationSchema = z.discriminatedUnion("status", [
  z.strictObject({ status: z.literal("ok"), groups: z.array(CalibrationGroupSchema) }),
  TooLittleDataSchema,
]);

export const CorrelationSchema = z.discriminatedUnion("status", [
  z.strictObject({
    status: z.literal("ok"),
    value: z.number().min(-1).max(1),
    n: z.number().int().describe("Queries (each with at least minImpressions searches)."),
    interval: IntervalSchema,
  }),
  TooLittleDataSchema,
]);

export const AucSchema = z.discriminatedUnion("status", [
  z.strictObject({
    status: z.literal("ok"),
    value: z.number().min(0).max(1),
    clicked: z.number().int().describe("Searches with at least one click."),
    notClicked: z.number().int().describe("Searches with none."),
    interval: IntervalSchema.describe("Hanley–McNeil 95 % interval."),
  }),
  TooLittleDataSchema,
]);
