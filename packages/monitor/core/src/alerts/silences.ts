/**
 * Silences: a person holds back the alerts matching a rule and/or a
 * subject until an end time, with an author and a reason. A silenced alert keeps its state and shows
 * as muted (`mutedBy.kind === "silence"`); when the silence ends (its end time, or expired early) and
 * the alert still fires, the state machine notifies it (an unmuted firing alert owes its start).
 * Pure: validation returns every problem found, matching takes `now`.
 */
import { z } from "zod";
import type { EpochMs } from "../records.ts";
import { type Issue, isPlainObject, type Result } from "../result.ts";
import { issuesOf, unfailed } from "../schemas/fields.ts";
import { ALERT_RULES, type AlertRule, type Condition, type MutedBySilence } from "./types.ts";

/** How a silence matches an alert's subject: equal, starts with, or a whole-subject regex. */
export type SubjectMatcher = { op: "eq" | "prefix" | "regex"; value: string };

export interface SilenceMatchers {
  /** The alert's rule; null: any rule. */
  rule: AlertRule | null;
  /** The alert's subject; null: any subject. At least one of `rule` and `subject` is set. */
  subject: SubjectMatcher | null;
}

export interface Silence {
  id: string;
  matchers: SilenceMatchers;
  author: string;
  reason: string;
  startsAt: EpochMs;
  endsAt: EpochMs;
  createdAt: EpochMs;
}

/** What a client sends to create one (the id, `createdAt` and a default `startsAt` are the server's). */
export interface SilenceInput {
  matchers: SilenceMatchers;
  author: string;
  reason: string;
  startsAt: EpochMs;
  endsAt: EpochMs;
}

export const SILENCE_REASON_MAX = 500;
export const SILENCE_AUTHOR_MAX = 100;
export const SILENCE_SUBJECT_MAX = 300;
/** A silence ends at most 30 days after it is created. */
export const SILENCE_MAX_DURATION_MS = 30 * 24 * 3600 * 1000;
/** Ended silences are kept this long (listed with their end), then pruned. */
export const SILENCE_RETENTION_MS = 5 * 24 * 3600 * 1000;
/** Active or pending silences at once, at most. */
export const SILENCE_MAX_ACTIVE = 100;

/** In effect at `now`: started and not yet ended. */
export function silenceActive(s: Silence, now: EpochMs): boolean {
  return s.startsAt <= now && now < s.endsAt;
}

/** Not ended at `now` (active, or starting later): what counts towards `SILENCE_MAX_ACTIVE`. */
export function silenceLive(s: Silence, now: EpochMs): boolean {
  return now < s.endsAt;
}

/** Whether `subject` satisfies one subject matcher (a regex matches the whole subject). */
export function subjectMatches(m: SubjectMatcher, subject: string): boolean {
  switch (m.op) {
    case "eq":
      return subject === m.value;
    case "prefix":
      return subject.startsWith(m.value);
    case "regex":
      try {
        return new RegExp(`^(?:${m.value})$`).test(subject);
      } catch {
        return false;
      }
  }
}

/** Whether a silence matches an alert (`silenceMatches`, or a caller's memo of it). */
export type SilenceMatchFn = (s: Silence, alert: { rule: AlertRule; subject: string }) => boolean;

export function silenceMatches(s: Silence, alert: { rule: AlertRule; subject: string }): boolean {
  if (s.matchers.rule !== null && s.matchers.rule !== alert.rule) return false;
  if (s.matchers.subject !== null && !subjectMatches(s.matchers.subject, alert.subject)) return false;
  return s.matchers.rule !== null || s.matchers.subject !== null;
}

/**
 * The silence holding `alert` back at `now`, or null. Of several, the one ending last (then the
 * smallest id), so the shown end is when the alert is notified again.
 */
export function silencedBy(
  alert: { rule: AlertRule; subject: string },
  silences: readonly Silence[],
  now: EpochMs,
  matches: SilenceMatchFn = silenceMatches,
): Silence | null {
  let best: Silence | null = null;
  for (const s of silences) {
    if (!silenceActive(s, now) || !matches(s, alert)) continue;
    if (best === null || s.endsAt > best.endsAt || (s.endsAt === best.endsAt && s.id < best.id)) best = s;
  }
  return best;
}

/**
 * Conditions with the active silences applied: an unmuted condition that a silence matches becomes
 * muted by it. A condition muted by another alert stays so (that cause is shown; the silence would
 * add nothing). Returns new objects; `conditions` is not modified. `matches`: a memo of
 * `silenceMatches` (the alert engine's, filled in slices so a tick never holds the event loop long).
 */
export function applySilences(
  conditions: readonly Condition[],
  silences: readonly Silence[],
  now: EpochMs,
  matches: SilenceMatchFn = silenceMatches,
): Condition[] {
  if (silences.length === 0) return [...conditions];
  return conditions.map((c) => {
    if (c.muted) return c;
    const s = silencedBy(c, silences, now, matches);
    if (s === null) return c;
    const mutedBy: MutedBySilence = {
      kind: "silence",
      id: s.id,
      author: s.author,
      reason: s.reason,
      endsAt: s.endsAt,
    };
    return {
      ...c,
      muted: true,
      mutedBy,
      mutedReason: `silenced by ${s.author} until ${new Date(s.endsAt).toISOString()}: ${s.reason}`,
    };
  });
}

const TIME_RULE = "must be an ISO 8601 time or epoch milliseconds";
const NON_EMPTY = "must be a non-empty string";

/** A time as ISO 8601 (anything `Date.parse` reads) or epoch milliseconds, read into epoch ms. */
const silenceTime = z
  .union([z.number(), z.string().meta({ format: "date-time" })], { error: TIME_RULE })
  .transform((raw, ctx) => {
    if (typeof raw === "number") return Math.trunc(raw);
    const t = raw.trim() === "" ? Number.NaN : Date.parse(raw);
    if (Number.isFinite(t)) return t;
    ctx.addIssue({ code: "custom", message: TIME_RULE, input: raw });
    return z.NEVER;
  });

/** Non-blank text, trimmed, of at most `max` characters once trimmed. */
const trimmedText = (max: number) =>
  z
    .string({ error: NON_EMPTY })
    .refine((v) => v.trim() !== "", { error: NON_EMPTY })
    .refine((v) => v.trim().length <= max, {
      error: (issue) => `must be at most ${max} characters (got ${String(issue.input).trim().length})`,
      when: unfailed,
    })
    .transform((v) => v.trim())
    .meta({ maxLength: max });

/** A subject regex must compile and be cheap to match (`unsafeRegex`). */
function checkRegex(m: { op?: string | undefined; value: string }, ctx: z.RefinementCtx): void {
  if (m.op !== "regex") return;
  const unsafe = unsafeRegex(m.value);
  if (unsafe !== null) {
    ctx.addIssue({ code: "custom", path: ["value"], message: unsafe });
    return;
  }
  try {
    new RegExp(m.value);
  } catch (err) {
    ctx.addIssue({ code: "custom", path: ["value"], message: `invalid regex: ${(err as Error).message}` });
  }
}

const subjectMatcher = z
  .union(
    [
      // A plain subject is an equality; its problems are named as the value's.
      z
        .string()
        .superRefine((v, ctx) => {
          const r = trimmedText(SILENCE_SUBJECT_MAX).safeParse(v);
          if (!r.success) for (const i of r.error.issues) ctx.addIssue({ ...i, path: ["value"] } as never);
        })
        .transform((v): SubjectMatcher => ({ op: "eq", value: v.trim() })),
      z
        .object({
          op: z
            .enum(["eq", "prefix", "regex"], { error: "must be eq, prefix or regex" })
            .optional()
            .meta({ description: "Default eq. regex matches the whole subject." }),
          value: trimmedText(SILENCE_SUBJECT_MAX),
        })
        .superRefine(checkRegex, { when: unfailed })
        .transform((m): SubjectMatcher => ({ op: m.op ?? "eq", value: m.value })),
    ],
    { error: "must be a string or {op, value}" },
  )
  .meta({ description: "A string (equal to it) or {op, value}; null: any subject." });

/**
 * The body of a request to create a silence (`POST /api/system/silences`): matchers (a rule, a
 * subject or both), author, reason, an optional start (default now) and an end. What depends on the
 * clock and on the silences kept (`parseSilenceInput`) is checked after it.
 */
export const SilenceRequestSchema = z
  .object(
    {
      matchers: z
        .object(
          {
            rule: z
              .enum(ALERT_RULES, { error: `must be one of ${ALERT_RULES.join(", ")}` })
              .nullish()
              .meta({ description: "An alert rule; null: any." }),
            subject: subjectMatcher.nullish(),
          },
          { error: "must be an object with rule and/or subject" },
        )
        .superRefine(
          (m, ctx) => {
            if (typeof m !== "object" || m === null || Array.isArray(m)) return;
            if (m.rule == null && m.subject == null)
              ctx.addIssue({
                code: "custom",
                message: "needs a rule or a subject (a silence of everything is refused)",
              });
          },
          { when: (p) => isPlainObject(p.value) },
        ),
      author: trimmedText(SILENCE_AUTHOR_MAX),
      reason: trimmedText(SILENCE_REASON_MAX),
      starts_at: silenceTime.nullish().meta({ description: "Default: now." }),
      ends_at: silenceTime.meta({ description: "At most 30 days ahead." }),
    },
    { error: "must be an object" },
  )
  .meta({ id: "SilenceRequest" });

/**
 * Validates a request to create a silence (the API's body, `SilenceRequestSchema`), then its times
 * against `now` (in the future, at most 30 days ahead, after its start) and the bound on silences
 * not ended (`live` of them now, at most `SILENCE_MAX_ACTIVE`). Every problem is listed at once.
 */
export function parseSilenceInput(raw: unknown, now: EpochMs, live = 0): Result<SilenceInput> {
  const parsed = SilenceRequestSchema.safeParse(raw);
  const errors: Issue[] = parsed.success ? [] : issuesOf(parsed.error);
  // The times are compared even when another field failed.
  if (isPlainObject(raw)) {
    const ends = silenceTime.safeParse(raw.ends_at);
    const starts =
      raw.starts_at == null ? { success: true as const, data: now } : silenceTime.safeParse(raw.starts_at);
    if (ends.success) {
      const endsAt = ends.data;
      if (endsAt <= now) errors.push({ path: "ends_at", message: "must be in the future" });
      else if (endsAt - now > SILENCE_MAX_DURATION_MS)
        errors.push({ path: "ends_at", message: "must be at most 30 days from now" });
      if (starts.success && endsAt <= starts.data)
        errors.push({ path: "ends_at", message: "must be after starts_at" });
    }
  }
  if (live >= SILENCE_MAX_ACTIVE)
    errors.push({
      path: "",
      message: `at most ${SILENCE_MAX_ACTIVE} silences may be active or pending; expire one first`,
    });
  if (!parsed.success || errors.length > 0) return { ok: false, errors };
  const v = parsed.data;
  return {
    ok: true,
    value: {
      matchers: { rule: v.matchers.rule ?? null, subject: v.matchers.subject ?? null },
      author: v.author,
      reason: v.reason,
      startsAt: v.starts_at ?? now,
      endsAt: v.ends_at,
    },
  };
}

/**
 * The longest subject a subject regex is costed for: a `collector_failure` subject is at most
 * 64 + 1 + 128 + 1 + 64 = 258 characters (collector/account/region), every other subject shorter.
 */
export const SILENCE_REGEX_SUBJECT_CHARS = SILENCE_SUBJECT_MAX;
/**
 * The most backtracking paths a subject regex may have on a subject of `SILENCE_REGEX_SUBJECT_CHARS`
 * characters: two unbounded quantifiers (301 × 301 = 90,601 paths; under a quarter of a millisecond
 * per subject at worst) fit, three do not, nor do seven `{1,9999}`.
 */
export const SILENCE_REGEX_MAX_PATHS = 100_000;

const QUANTIFIER = /^\{(\d+)(,(\d*))?\}/;

/**
 * The backtracking paths of a group-free regex on a subject of `chars` characters, at most: the
 * product, over the quantifiers of one alternative, of the counts each may take (`*`, `+`, `{n,}`:
 * up to the subject's length; `?`: 2; `{n,m}`: m - n + 1, capped the same way), summed over the
 * top-level alternatives. JavaScript's engine may try each such split of the subject once before it
 * gives up, so this bounds the work of one test; a bounded quantifier costs as much as an unbounded
 * one when its range exceeds the subject.
 */
export function regexPaths(pattern: string, chars: number = SILENCE_REGEX_SUBJECT_CHARS): number {
  const cap = Number.MAX_SAFE_INTEGER;
  let total = 0;
  let branch = 1;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i] as string;
    if (ch === "\\") {
      i += 2;
      continue;
    }
    if (ch === "[") {
      // A class is one character whatever it lists; `]` right after `[` or `[^` ends it (JavaScript).
      i++;
      while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
      i++;
      continue;
    }
    if (ch === "|") {
      total = Math.min(cap, total + branch);
      branch = 1;
      i++;
      continue;
    }
    let span: number | null = null;
    let length = 1;
    if (ch === "*" || ch === "+") span = chars;
    else if (ch === "?") span = 1;
    else if (ch === "{") {
      const m = QUANTIFIER.exec(pattern.slice(i, i + 40));
      if (m !== null) {
        length = m[0].length;
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === "" ? Number.POSITIVE_INFINITY : Number(m[3]);
        span = Math.min(Math.max(0, max - min), chars);
      }
    }
    i += length;
    if (span === null) continue;
    if (pattern[i] === "?") i++; // lazy: the same splits, tried in another order
    branch = Math.min(cap, branch * (span + 1));
  }
  return Math.min(cap, total + branch);
}

/**
 * Why a subject regex is refused, or null. JavaScript's regex engine backtracks, and a silence is
 * tested against every alert on every tick, so only a subset whose work is bounded is taken: no
 * groups (so no nesting, alternation of groups or lookaround), no backreferences, and at most
 * `SILENCE_REGEX_MAX_PATHS` backtracking paths on the longest subject (`regexPaths`).
 */
export function unsafeRegex(pattern: string): string | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9k]/.test(next)) return "backreferences are not accepted in a silence regex";
      i++;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      continue;
    }
    if (ch === "[") inClass = true;
    else if (ch === "(" || ch === ")")
      return "groups are not accepted in a silence regex (use prefix, or several silences)";
  }
  const paths = regexPaths(pattern);
  return paths > SILENCE_REGEX_MAX_PATHS
    ? `costs too much to match: its quantifiers allow ${paths > 1e15 ? "over 10^15" : paths.toLocaleString("en-US")} backtracking paths on a ${SILENCE_REGEX_SUBJECT_CHARS}-character subject, at most ${SILENCE_REGEX_MAX_PATHS.toLocaleString("en-US")} are accepted (two unbounded quantifiers such as .* fit, three do not; a bounded one counts its range)`
    : null;
}
