/**
 * The field rules of the monitor's input, as zod schemas: one definition that validates, gives the
 * TypeScript types and, through @monitor/api, the OpenAPI document. Each field answers with the same
 * words in every place ("is required", "must be at most 64 characters"...): docs/monitor-api.md.
 * A field reports its first problem only (later checks stop), every field is checked.
 */
import { type ZodError, z } from "zod";
import { charCount } from "../chars.ts";
import { UINT32_MAX } from "../records.ts";
import { at, type Issue } from "../result.ts";
import { parseTimestamp } from "../timestamp.ts";

/**
 * A field's later checks run only while it has no problem, so each field lists its first. Not zod's
 * `abort`, which would also stop the record's own checks (the times' order) that list every field.
 */
export const unfailed = (payload: { issues: readonly unknown[] }): boolean => payload.issues.length === 0;

/** An absent or null field is "required"; any other value of the wrong type gets `wrongType`. */
export const requiredOr =
  (wrongType: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined || issue.input === null ? "is required" : wrongType;

/** At most `max` characters (code points, not UTF-16 units), checked while the field has no other problem. */
export const maxChars = <T extends z.ZodString>(schema: T, max: number): T =>
  schema
    .refine((v) => charCount(v, max) <= max, { error: `must be at most ${max} characters`, when: unfailed })
    .meta({ maxLength: max }) as T;

/** Required, non-blank text of at most `max` characters. */
export function requiredText(max: number) {
  return maxChars(
    z
      .string({ error: requiredOr("must be a string") })
      .refine((v) => v.trim() !== "", { error: "must not be empty", when: unfailed }),
    max,
  );
}

/** A required identifier: non-blank text within `max` characters of the charset `re`. */
export function identifier(max: number, re: RegExp, charset: string) {
  return requiredText(max)
    .refine((v) => re.test(v), { error: `must be ${charset}`, when: unfailed })
    .meta({ pattern: re.source });
}

/** One of `values`, required. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: requiredOr(`must be one of ${values.join(", ")}`) });
}

/** A counter of ClickHouse's UInt32: an integer from 0 to 2^32 − 1 (`-0` is read as 0). */
export function uint32() {
  return z
    .number({
      error: (issue) =>
        issue.input === undefined || issue.input === null
          ? "is required"
          : typeof issue.input === "number"
            ? "must be an integer" // NaN, ±Infinity
            : "must be a number",
    })
    .refine(Number.isInteger, { error: "must be an integer", when: unfailed })
    .refine((v) => v >= 0, { error: "must not be negative", when: unfailed })
    .refine((v) => v <= UINT32_MAX, { error: `must be below 2^32 (at most ${UINT32_MAX})`, when: unfailed })
    .transform((v) => (v === 0 ? 0 : v))
    .meta({ type: "integer", minimum: 0, maximum: UINT32_MAX });
}

/**
 * A time: ISO 8601 with a zone (`T` or a space; seconds and up to 9 fractional digits optional) or
 * integer epoch milliseconds, within 1970-2299 UTC; read into epoch ms (`parseTimestamp`).
 */
export function timestamp() {
  return z
    .union([z.string().meta({ format: "date-time" }), z.number().meta({ type: "integer" })], {
      error: requiredOr("must be an ISO 8601 string or epoch milliseconds"),
    })
    .transform((value, ctx) => {
      const parsed = parseTimestamp(value);
      if (parsed.ok) return parsed.ms;
      ctx.addIssue({ code: "custom", message: parsed.message, input: value });
      return z.NEVER;
    });
}

/**
 * A zod error as the monitor's issues: paths under `prefix` (`[3].completed_at`), zod's order. Of a
 * union (a subject given as a string or as `{op, value}`), the problems of the one branch the
 * value's type selects are listed; when no branch fits its type, the union's own message.
 */
export function issuesOf(error: ZodError, prefix = ""): Issue[] {
  return flatten(error.issues, prefix);
}

function flatten(issues: readonly z.core.$ZodIssue[], prefix: string): Issue[] {
  const out: Issue[] = [];
  for (const i of issues) {
    const path = i.path.reduce<string>((p, k) => at(p, typeof k === "number" ? k : String(k)), prefix);
    if (i.code === "invalid_union") {
      const fitting = i.errors.filter(
        (branch) => !branch.some((b) => b.code === "invalid_type" && b.path.length === 0),
      );
      if (fitting.length === 1) {
        out.push(...flatten(fitting[0] as z.core.$ZodIssue[], path));
        continue;
      }
    }
    out.push({ path, message: i.message });
  }
  return out;
}
