import { describe, expect, it } from "vitest";
import {
  applySilences,
  parseSilenceInput,
  regexPaths,
  SILENCE_MAX_ACTIVE,
  type Silence,
  silencedBy,
} from "./silences.ts";
import { alertKey, type Condition } from "./types.ts";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const H = 3600_000;

function silence(over: Partial<Silence> = {}): Silence {
  return {
    id: "s1",
    matchers: { rule: "collector_failure", subject: null },
    author: "ann",
    reason: "maintenance",
    startsAt: NOW - H,
    endsAt: NOW + H,
    createdAt: NOW - H,
    ...over,
  };
}

function cond(rule: Condition["rule"], subject: string, over: Partial<Condition> = {}): Condition {
  return {
    key: alertKey(rule, subject),
    rule,
    subject,
    severity: "warning",
    detail: "x",
    muted: false,
    at: NOW,
    ...over,
  };
}

describe("silencedBy", () => {
  const alert = { rule: "collector_failure" as const, subject: "ec2/111/eu-west-1" };
  it("matches by rule, subject equality, prefix and regex", () => {
    expect(silencedBy(alert, [silence()], NOW)?.id).toBe("s1");
    const eq = silence({ matchers: { rule: null, subject: { op: "eq", value: "ec2/111/eu-west-1" } } });
    expect(silencedBy(alert, [eq], NOW)?.id).toBe("s1");
    const pre = silence({ matchers: { rule: null, subject: { op: "prefix", value: "ec2/" } } });
    expect(silencedBy(alert, [pre], NOW)?.id).toBe("s1");
    const re = silence({ matchers: { rule: null, subject: { op: "regex", value: "ec2/\\d+/eu-.*" } } });
    expect(silencedBy(alert, [re], NOW)?.id).toBe("s1");
    const reWhole = silence({ matchers: { rule: null, subject: { op: "regex", value: "ec2" } } });
    expect(silencedBy(alert, [reWhole], NOW)).toBeNull();
  });
  it("needs every matcher to hold", () => {
    const s = silence({ matchers: { rule: "collector_stale", subject: { op: "prefix", value: "ec2" } } });
    expect(silencedBy(alert, [s], NOW)).toBeNull();
  });
  it("is in effect from startsAt until (not at) endsAt", () => {
    const s = silence({ startsAt: NOW + 1, endsAt: NOW + H });
    expect(silencedBy(alert, [s], NOW)).toBeNull();
    expect(silencedBy(alert, [s], NOW + 1)?.id).toBe("s1");
    expect(silencedBy(alert, [s], NOW + H)).toBeNull();
  });
  it("of several, picks the one ending last", () => {
    const a = silence({ id: "a", endsAt: NOW + H });
    const b = silence({ id: "b", endsAt: NOW + 2 * H });
    expect(silencedBy(alert, [a, b], NOW)?.id).toBe("b");
  });
});

describe("applySilences", () => {
  it("mutes a matching condition by the silence, leaves others and alert-muted ones", () => {
    const byAlert = {
      kind: "alert" as const,
      rule: "account_no_access" as const,
      subject: "222",
      fingerprint: "0".repeat(16),
    };
    const cs = [
      cond("collector_failure", "ec2/111/eu-west-1"),
      cond("collector_failure", "ec2/222/eu-west-1", { muted: true, mutedBy: byAlert, mutedReason: "r" }),
      cond("collector_stale", "ec2"),
    ];
    const out = applySilences(cs, [silence()], NOW);
    expect(out[0]?.muted).toBe(true);
    expect(out[0]?.mutedBy).toEqual({
      kind: "silence",
      id: "s1",
      author: "ann",
      reason: "maintenance",
      endsAt: NOW + H,
    });
    expect(out[0]?.mutedReason).toContain("silenced by ann");
    expect(out[1]?.mutedBy).toEqual(byAlert);
    expect(out[2]?.muted).toBe(false);
    expect(cs[0]?.muted).toBe(false);
  });
});

describe("parseSilenceInput", () => {
  const ok = {
    matchers: { rule: "collector_failure", subject: { op: "prefix", value: "ec2/" } },
    author: "ann",
    reason: "maintenance",
    ends_at: new Date(NOW + H).toISOString(),
  };
  it("accepts a valid request, startsAt defaulting to now, a plain subject as equality", () => {
    const r = parseSilenceInput(ok, NOW);
    expect(r).toEqual({
      ok: true,
      value: {
        matchers: { rule: "collector_failure", subject: { op: "prefix", value: "ec2/" } },
        author: "ann",
        reason: "maintenance",
        startsAt: NOW,
        endsAt: NOW + H,
      },
    });
    const plain = parseSilenceInput({ ...ok, matchers: { subject: "ec2" } }, NOW);
    expect(plain.ok && plain.value.matchers).toEqual({ rule: null, subject: { op: "eq", value: "ec2" } });
  });
  it("refuses subject regexes that could backtrack for long: groups, backreferences, over two unbounded quantifiers", () => {
    const regex = (value: string) =>
      parseSilenceInput({ ...ok, matchers: { subject: { op: "regex", value } } }, NOW);
    for (const value of ["(a+)+b", "(?=x)ec2", "(a)\\1", "a*b*c*d", "a+b+c+", "x{2,}y{3,}z{1,}"]) {
      const r = regex(value);
      expect(r.ok, value).toBe(false);
      expect(!r.ok && r.errors.map((e) => e.path)).toEqual(["matchers.subject.value"]);
    }
    for (const value of ["config_ec2/.*/us-east-1", "config_[a-z]+/1111.*", "acc-\\d{12}"]) {
      expect(regex(value).ok, value).toBe(true);
    }
  });

  it("refuses a regex by its backtracking cost, bounded quantifiers included (seven {1,9999}: 422 on the field)", () => {
    const regex = (value: string) =>
      parseSilenceInput({ ...ok, matchers: { subject: { op: "regex", value } } }, NOW);
    const seven = "[a-z0-9_/]{1,9999}".repeat(7);
    expect(seven.length).toBe(126);
    const r = regex(seven);
    expect(!r.ok && r.errors).toEqual([
      { path: "matchers.subject.value", message: expect.stringContaining("costs too much to match") },
    ]);
    for (const value of [
      "[a-z]{1,9999}[a-z]{1,9999}[a-z]{1,9999}", // three quantifiers spanning the subject
      "a?".repeat(17), // 2^17 paths
      ".*a.*|.*b.*", // two alternatives of 90,601 each
      "x{0,100}y{0,100}z{0,10}", // 101 × 101 × 11
    ]) {
      expect(regex(value).ok, value).toBe(false);
    }
    for (const value of [
      "[a-z0-9_/]{1,9999}[a-z0-9_/]{1,9999}", // two: 300 × 300
      ".*-prod-.*",
      "a?".repeat(16), // 65,536
      "config_ec2/[0-9]{12}/eu-[a-z]+-[0-9]", // {12} is one count
      "a{2,}?b*?", // lazy quantifiers cost as much as greedy ones
      "[{*+?]*x{3,5}", // quantifier characters inside a class are characters
    ]) {
      expect(regex(value).ok, value).toBe(true);
    }
  });

  it("counts backtracking paths: quantifier ranges up to the subject's length, multiplied, summed over alternatives", () => {
    expect(regexPaths("abc", 300)).toBe(1);
    expect(regexPaths("a*", 300)).toBe(301);
    expect(regexPaths("a+b?", 300)).toBe(301 * 2);
    expect(regexPaths("a{1,9999}", 300)).toBe(301);
    expect(regexPaths("a{2,5}b{3}", 300)).toBe(4);
    expect(regexPaths("a*|b*", 300)).toBe(602);
    expect(regexPaths("\\*\\{1,9\\}[*]{", 300)).toBe(1); // escaped and literal braces
    expect(regexPaths("[]]*", 300)).toBe(301); // an empty class, then a quantified ]
  });

  it("names every bad field", () => {
    const r = parseSilenceInput(
      {
        matchers: { rule: "nope", subject: { op: "regex", value: "(" } },
        author: "",
        reason: "x".repeat(501),
        ends_at: "soon",
      },
      NOW,
    );
    expect(r.ok).toBe(false);
    const paths = r.ok ? [] : r.errors.map((e) => e.path).sort();
    expect(paths).toEqual(["author", "ends_at", "matchers.rule", "matchers.subject.value", "reason"]);
  });
  it("refuses no matcher, past or far end times, and too many silences", () => {
    const none = parseSilenceInput({ ...ok, matchers: {} }, NOW);
    expect(!none.ok && none.errors.map((e) => e.path)).toEqual(["matchers"]);
    const past = parseSilenceInput({ ...ok, ends_at: NOW - 1 }, NOW);
    expect(!past.ok && past.errors[0]?.message).toMatch(/future/);
    const far = parseSilenceInput({ ...ok, ends_at: NOW + 31 * 24 * H }, NOW);
    expect(!far.ok && far.errors[0]?.message).toMatch(/30 days/);
    const many = parseSilenceInput(ok, NOW, SILENCE_MAX_ACTIVE);
    expect(!many.ok && many.errors[0]?.message).toMatch(/at most/);
  });
});
