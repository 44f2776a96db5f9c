import { describe, expect, it } from "vitest";
import type { BannerInfo } from "./banner.ts";
import { startupConsole } from "./logger.ts";

const AT = new Date(2026, 10, 25, 9, 5, 7);
const info: BannerInfo = {
  url: "http://127.0.0.1:8787",
  dataDir: "/d",
  exporter: true,
  adminToken: { value: "a", generated: true },
  monitorToken: { value: "m", generated: true },
  demo: null,
};

function capture(format: "json" | "human") {
  const out: string[] = [];
  const console = startupConsole(
    { format, color: false },
    (t) => out.push(t),
    () => AT,
  );
  return { out, console, text: () => out.join("") };
}

describe("startupConsole, human format", () => {
  it("holds info lines until the banner, then prints them below it", () => {
    const { console, text } = capture("human");
    const log = console.logger("local");
    console.starting("Starting...");
    log.info("alerts: no channel configured");
    expect(text()).toBe("Starting...\n");
    console.ready(info);
    const lines = text().split("\n");
    const banner = lines.indexOf("npm start: the local stack is running");
    const held = lines.findIndex((l) => l.includes("alerts: no channel configured"));
    expect(banner).toBeGreaterThan(0);
    expect(held).toBeGreaterThan(banner);
    log.info("shutting down", { signal: "SIGINT" });
    expect(text()).toContain("09:05:07 info  local   shutting down signal=SIGINT\n");
  });

  it("prints warnings and errors at once, before the banner", () => {
    const { console, text } = capture("human");
    console.logger("local").info("alerts: no channel configured");
    console.logger("local").warn("DATA_DIR was readable by other users");
    expect(text()).toBe("09:05:07 WARN  local   DATA_DIR was readable by other users\n");
    console.logger("local").error("failed to start", { error: "EADDRINUSE" });
    // An error flushes the held lines first: the context of a start that will not finish.
    expect(text().split("\n").slice(1, 3)).toEqual([
      "09:05:07 info  local   alerts: no channel configured",
      "09:05:07 ERROR local   failed to start error=EADDRINUSE",
    ]);
  });

  it("counts the routine lines instead of printing them, and says so once after the banner", () => {
    const { console, text } = capture("human");
    const log = console.logger("local");
    for (let i = 0; i < 30; i++) log.info("settings exported", { sequence: i });
    for (let i = 0; i < 24; i++) log.info("run succeeded in 21 ms", { component: "monitor" });
    log.info("listening", { url: "http://127.0.0.1:8787" });
    expect(text()).toBe("");
    console.ready(info);
    expect(text()).not.toContain("sequence=");
    expect(text()).toContain(
      "while starting: 30 settings exported, 24 collector runs succeeded (routine lines: LOG_FORMAT=json prints each)",
    );
  });

  it("prints at most 10 warnings before the banner; later ones wait below it", () => {
    const { console, text } = capture("human");
    for (let i = 0; i < 15; i++) console.logger("local").warn(`disk ${i}`);
    expect(text().trimEnd().split("\n")).toHaveLength(10);
    console.ready(info);
    const after = text().split("Log lines follow")[1] ?? "";
    expect(after.split("\n").filter((l) => l.includes("WARN"))).toHaveLength(5);
  });

  it("never holds more than a screen of lines before the banner", () => {
    const { console, text } = capture("human");
    for (let i = 0; i < 100; i++) console.logger("local").info(`something ${i}`);
    console.ready(info);
    const after = text().split("Log lines follow")[1] ?? "";
    expect(after.split("\n").filter((l) => l.includes("something"))).toHaveLength(20);
    expect(after).toContain("... 80 more lines while starting");
  });
});

describe("startupConsole, JSON format", () => {
  it("prints today's JSON lines, routine ones included, and no banner", () => {
    const { console, out } = capture("json");
    console.starting("Starting...");
    console.logger("local").info("settings exported", { sequence: 2 });
    console.logger("local").error("failed to start", { error: "boom" });
    console.ready(info);
    expect(out.map((l) => JSON.parse(l))).toEqual([
      {
        time: expect.any(String),
        level: "info",
        component: "local",
        message: "settings exported",
        sequence: 2,
      },
      {
        time: expect.any(String),
        level: "error",
        component: "local",
        message: "failed to start",
        error: "boom",
      },
    ]);
  });
});
