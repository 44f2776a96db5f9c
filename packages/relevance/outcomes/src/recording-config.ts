/**
 * `relevance_recording_config`: an internal index setting beside `relevance_trigger_config` (which
 * keeps its three fields exactly), saying which share of the index's scored searches is recorded.
 * Absent or null: every scored search (1). Defined once here; the admin API's camelCase body
 * (`relevanceRecordingConfig: {sampleRate}`) maps onto it.
 */
import * as z from "zod";

export const DEFAULT_SAMPLE_RATE = 1;

/** The stored shape (snake_case, as in the settings table and its KV copy). */
export const RecordingConfigSchema = z.strictObject({
  sample_rate: z.number().min(0).max(1),
});
export type RecordingConfig = z.infer<typeof RecordingConfigSchema>;

/** The admin API's shape (camelCase). */
export const RecordingConfigBodySchema = z
  .strictObject({
    sampleRate: z
      .number()
      .min(0)
      .max(1)
      .meta({
        description: `Share of the index's scored searches that are recorded, 0 to 1 (default ${DEFAULT_SAMPLE_RATE}: every one).`,
      }),
  })
  .meta({ id: "RelevanceRecordingConfig" });

/**
 * The sample rate of a stored config as the search reads it from the KV copy. A malformed copy must
 * never cost the search (nor stop the recording): it records everything, and `valid` says so, for a
 * rate-limited log line.
 */
export function recordingSampleRate(stored: unknown): { rate: number; valid: boolean } {
  if (stored === undefined || stored === null) return { rate: DEFAULT_SAMPLE_RATE, valid: true };
  const parsed = RecordingConfigSchema.safeParse(stored);
  return parsed.success
    ? { rate: parsed.data.sample_rate, valid: true }
    : { rate: DEFAULT_SAMPLE_RATE, valid: false };
}
