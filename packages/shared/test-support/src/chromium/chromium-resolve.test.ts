import { describe, expect, it } from "vitest";
import { resolveChromium } from "./chromium-resolve.ts";

const places = {
  bundledBinDir: "/repo/node_modules/@sparticuz/chromium/bin",
  system: ["/usr/lib/chromium/chromium"],
};
const existing =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);
const BUNDLED = "/repo/node_modules/@sparticuz/chromium/bin/chromium.br";
const SYSTEM = "/usr/lib/chromium/chromium";

describe("resolveChromium", () => {
  it("takes CHROMIUM_PATH first, even when the npm and system ones exist", () => {
    const r = resolveChromium(
      { CHROMIUM_PATH: "/opt/chrome/chrome" },
      existing("/opt/chrome/chrome", BUNDLED, SYSTEM),
      places,
    );
    expect(r).toEqual({ ok: true, source: { from: "CHROMIUM_PATH", executable: "/opt/chrome/chrome" } });
  });

  it("reports a CHROMIUM_PATH that does not exist instead of silently using another Chromium", () => {
    const r = resolveChromium({ CHROMIUM_PATH: "/nope/chrome" }, existing(BUNDLED, SYSTEM), places);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error).toContain("/nope/chrome");
  });

  it("uses the npm-shipped Chromium over the system one when CHROMIUM_PATH is unset or blank", () => {
    for (const env of [{}, { CHROMIUM_PATH: "" }, { CHROMIUM_PATH: "  " }]) {
      expect(resolveChromium(env, existing(BUNDLED, SYSTEM), places)).toEqual({
        ok: true,
        source: { from: "@sparticuz/chromium", binDir: places.bundledBinDir },
      });
    }
  });

  it("falls back to the system Chromium when the npm package is absent or not installed", () => {
    const expected = { ok: true, source: { from: "system", executable: SYSTEM } };
    expect(resolveChromium({}, existing(SYSTEM), places)).toEqual(expected);
    expect(resolveChromium({}, existing(BUNDLED, SYSTEM), { ...places, bundledBinDir: null })).toEqual(
      expected,
    );
  });

  it("takes the first system path that exists", () => {
    const system = ["/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser"];
    const r = resolveChromium({}, existing("/usr/bin/chromium-browser", "/usr/bin/chromium"), {
      bundledBinDir: null,
      system,
    });
    expect(r).toEqual({ ok: true, source: { from: "system", executable: "/usr/bin/chromium" } });
  });

  it("says how to get a Chromium when there is none", () => {
    const r = resolveChromium({}, existing(), places);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error).toMatch(/npm install.*CHROMIUM_PATH/);
  });
});
