/**
 * An internal index setting as the search reads it from the KV copy: null when absent, null too
 * when malformed (a direct table edit must never cost the search), with `valid` false so the search
 * can say so in a rate-limited log line.
 */
import type * as z from "zod";

export function storedSetting<S extends z.ZodType>(
  schema: S,
  stored: unknown,
): { config: z.output<S> | null; valid: boolean } {
  if (stored === undefined || stored === null) return { config: null, valid: true };
  const parsed = schema.safeParse(stored);
  return parsed.success ? { config: parsed.data, valid: true } : { config: null, valid: false };
}
