import { describe, expect, it } from "vitest";
import {
  formatHumanLine,
  formatValue,
  type LogEntry,
  logEntry,
  routineKind,
  summarizeHidden,
} from "./human-log.ts";

// Local time components, so the expected clock does not depend on the machine's time zone.
const AT = new Date(2026, 10, 25, 9, 5, 7);
const entry = (over: Partial<LogEntry>): LogEntry => ({
  time: AT,
  level: "info",
  component: "local",
  message: "listening",
  fields: {},
  ...over,
});

describe("formatHumanLine", () => {
  it("reads as time, level, component, message and key=value fields", () => {
    const line = formatHumanLine(
      entry({ message: "alerts: channels", fields: { channels: ["webhook:ops"], count: 1, muted: false } }),
      false,
    );
    expect(line).toBe('09:05:07 info  local   alerts: channels channels=["webhook:ops"] count=1 muted=false');
  });

  it("quotes values with spaces or quotes and leaves plain ones bare", () => {
    expect(formatValue("acct_1:products:v1")).toBe("acct_1:products:v1");
    expect(formatValue("AccessDenied: sts:AssumeRole")).toBe('"AccessDenied: sts:AssumeRole"');
    expect(formatValue('say "hi"')).toBe('"say \\"hi\\""');
    expect(formatValue("a=b")).toBe('"a=b"');
    expect(formatValue("")).toBe('""');
    expect(formatValue(null)).toBe("null");
    expect(formatValue({ a: 1 })).toBe('{"a":1}');
  });

  it("marks warnings and errors in capitals, and in colour only when asked", () => {
    const warn = formatHumanLine(entry({ level: "warn", message: "analytics database unavailable" }), false);
    const error = formatHumanLine(entry({ level: "error", message: "failed to start" }), false);
    expect(warn).toBe("09:05:07 WARN  local   analytics database unavailable");
    expect(error).toBe("09:05:07 ERROR local   failed to start");
    expect(warn + error).not.toContain("\u001b");
    expect(formatHumanLine(entry({ level: "error", message: "failed to start" }), true)).toContain(
      "\u001b[1;31mERROR\u001b[0m",
    );
    expect(formatHumanLine(entry({ level: "warn", message: "x" }), true)).toContain(
      "\u001b[1;33mWARN \u001b[0m",
    );
  });

  it("names the component a line carries in its fields, without repeating it as a field", () => {
    const line = formatHumanLine(
      logEntry(AT, "info", "local", "alert flip", { component: "alerts", to: "firing" }),
      false,
    );
    expect(line).toBe("09:05:07 info  alerts  alert flip to=firing");
  });

  it("never writes control characters a client could have sent (escape sequences, DEL, C1)", () => {
    const hostile = "/x\u001b[2J\u009b31m\u007f\r\nfake";
    const line = formatHumanLine(
      entry({
        level: "warn",
        component: hostile,
        message: `bad ${hostile}`,
        fields: { path: hostile, [hostile]: 1 },
      }),
      false,
    );
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(line).toContain("\\u001b[2J");
    expect(line).toContain("\\u009b31m");
  });
});

describe("routineKind", () => {
  it("counts the lines that flood a start instead of printing them", () => {
    expect(routineKind(entry({ message: "settings exported" }))).toBe("settings exported");
    expect(routineKind(entry({ component: "monitor", message: "run started" }))).toBe(
      "collector runs started",
    );
    expect(routineKind(entry({ component: "monitor", message: "run succeeded in 21 ms" }))).toBe(
      "collector runs succeeded",
    );
    expect(routineKind(entry({ component: "cost", message: "cost report ingested" }))).toBe(
      "cost reports ingested",
    );
    expect(routineKind(entry({ message: "demo search ready: run the curl for a scored search" }))).toBe(
      "shown in the banner",
    );
  });

  it("prints what changes and every warning or error, routine message or not", () => {
    expect(routineKind(entry({ component: "alerts", message: "alert flip" }))).toBeNull();
    expect(routineKind(entry({ message: "shutting down" }))).toBeNull();
    expect(routineKind(entry({ level: "warn", message: "settings exported" }))).toBeNull();
    expect(routineKind(entry({ level: "error", component: "monitor", message: "run started" }))).toBeNull();
  });
});

describe("summarizeHidden", () => {
  it("says what was left out and how to see it, leaving out what the banner shows", () => {
    const counts = new Map([
      ["settings exported", 7],
      ["shown in the banner", 5],
      ["collector runs succeeded", 24],
    ]);
    expect(summarizeHidden(counts)).toBe(
      "7 settings exported, 24 collector runs succeeded (routine lines: LOG_FORMAT=json prints each)",
    );
    expect(summarizeHidden(new Map([["shown in the banner", 3]]))).toBeNull();
  });
});
