import { type Silence, silenceMatches } from "@monitor/core";
import { describe, expect, it } from "vitest";
import { SilenceMatchMemo } from "./silence-matches.ts";

const NOW = Date.parse("2026-11-25T12:00:00Z");

function regexSilence(id: string, value: string, rule: Silence["matchers"]["rule"] = null): Silence {
  return {
    id,
    matchers: { rule, subject: { op: "regex", value } },
    author: "ann",
    reason: "r",
    startsAt: NOW - 1,
    endsAt: NOW + 3_600_000,
    createdAt: NOW - 1,
  };
}

const alert = (subject: string) => ({ rule: "collector_failure" as const, subject });

describe("SilenceMatchMemo", () => {
  it("answers as silenceMatches does, rule and subject together", () => {
    const memo = new SilenceMatchMemo();
    const silences = [
      regexSilence("a", "ec2/\\d+/eu-.*"),
      regexSilence("b", "ec2/.*", "collector_stale"),
      {
        ...regexSilence("c", "x"),
        matchers: { rule: null, subject: { op: "prefix" as const, value: "ec2/" } },
      },
    ];
    for (const s of silences) {
      for (const a of [
        alert("ec2/1234/eu-west-1"),
        alert("ec2/x/us-east-1"),
        { rule: "collector_stale" as const, subject: "ec2/1" },
      ]) {
        expect(memo.matches(s, a), `${s.id} ${a.subject}`).toBe(silenceMatches(s, a));
      }
    }
  });

  it("fills the memo in slices that give the event loop back, and never tests a pair twice across ticks", async () => {
    let t = 0;
    let yields = 0;
    // Each clock read is 1 ms later: a slice holds at most sliceMs of (fake) time.
    const memo = new SilenceMatchMemo({
      elapsed: () => t++,
      yieldToLoop: async () => {
        yields += 1;
      },
      sliceMs: 5,
    });
    const silences = Array.from({ length: 100 }, (_, i) =>
      regexSilence(`s${i}`, `[a-z0-9_/]*[a-z0-9_/]*x${i}`),
    );
    const alerts = Array.from({ length: 10 }, (_, i) => alert(`${"a".repeat(200)}/${i}`));
    await memo.warm(silences, alerts, NOW);
    expect(memo.tested).toBe(1000);
    // 1,000 tests, one clock read each after the first: a yield every 5 reads.
    expect(yields).toBeGreaterThanOrEqual(190);
    memo.endTick();

    // The next tick with the same subjects tests nothing again; a new subject is tested once per silence.
    await memo.warm(silences, [...alerts, alert("b/new")], NOW);
    expect(memo.tested).toBe(1100);
    memo.endTick();
    // Pairs a tick did not use are forgotten: memory stays that of one tick.
    await memo.warm(silences, [alert("b/new")], NOW);
    memo.endTick();
    expect(memo.size).toBe(100);
  });

  it("tests nothing without an active regex silence", async () => {
    const memo = new SilenceMatchMemo();
    const ended = { ...regexSilence("e", ".*"), endsAt: NOW - 1 };
    await memo.warm([ended], [alert("x")], NOW);
    expect(memo.tested).toBe(0);
  });
});
