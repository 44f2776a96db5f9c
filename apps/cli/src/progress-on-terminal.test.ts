// Progress is for a person at a terminal: shown only there, only for work over a second, and only on
// stderr. A fake clock drives it, so nothing here depends on how fast the machine is.
import { describe, expect, it } from "vitest";
import type { Io } from "./io.ts";
import { Report } from "./procedures/report.ts";
import { PROGRESS_DELAY_MS, PROGRESS_EVERY_MS, ProgressLine, progressText } from "./progress.ts";

function io(terminal: boolean | undefined) {
  const out: string[] = [];
  const err: string[] = [];
  const value: Io = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    readText: async () => "",
    writeTextAtomic: async () => {},
    ...(terminal === undefined ? {} : { stderrIsTerminal: terminal }),
  };
  return { io: value, out, err };
}

describe("progressText", () => {
  it("says how many of how many, and the share", () => {
    expect(progressText("searched", 120, 500)).toBe("searched 120/500 (24%)");
    expect(progressText("searched", 0, 0)).toBe("searched 0/0 (100%)");
  });
});

describe("ProgressLine", () => {
  it("on a terminal: nothing in the first second, then a line rewritten in place, ended by a newline", () => {
    let t = 0;
    const s = io(true);
    const p = new ProgressLine(s.io, "searched", 10, () => t);
    p.update(1);
    t = PROGRESS_DELAY_MS - 1;
    p.update(2);
    expect(s.err).toEqual([]);
    t = PROGRESS_DELAY_MS;
    p.update(3);
    t += PROGRESS_EVERY_MS - 1;
    p.update(4); // too soon after the last one
    t += 1;
    p.update(5);
    p.end(10);
    expect(s.err).toEqual(["\rsearched 3/10 (30%)", "\rsearched 5/10 (50%)", "\rsearched 10/10 (100%)\n"]);
    expect(s.out).toEqual([]);
  });

  it("prints nothing for work that ends within a second", () => {
    const s = io(true);
    const p = new ProgressLine(s.io, "searched", 2, () => 0);
    p.update(1);
    p.update(2);
    p.end(2);
    expect(s.err).toEqual([]);
  });

  it.each([false, undefined])("prints nothing when stderr is not a terminal (%s)", (terminal) => {
    let t = 0;
    const s = io(terminal);
    const p = new ProgressLine(s.io, "searched", 10, () => t);
    t = 10 * PROGRESS_DELAY_MS;
    p.update(5);
    p.end(10);
    expect(s.err).toEqual([]);
  });
});

describe("Report.note", () => {
  it("goes to stderr on a terminal, and nowhere otherwise; never into --json's steps", () => {
    const terminal = io(true);
    const r = new Report(terminal.io, true);
    r.note("waiting for the KV copy…");
    expect(terminal.err).toEqual(["waiting for the KV copy…\n"]);
    expect(terminal.out).toEqual([]);
    expect(r.steps).toEqual([]);
    const piped = io(false);
    new Report(piped.io, false).note("waiting for the KV copy…");
    expect(piped.err).toEqual([]);
  });
});
