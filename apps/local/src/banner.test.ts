import { describe, expect, it } from "vitest";
import { type BannerInfo, renderBanner } from "./banner.ts";
import { demoCurl } from "./demo.ts";

const CURL = demoCurl("http://127.0.0.1:8787", "/home/me/shop/.data/demo-search.headers");
const info: BannerInfo = {
  url: "http://127.0.0.1:8787",
  dataDir: "/home/me/shop/.data",
  exporter: true,
  adminToken: { value: "adm1n-generated", generated: true },
  monitorToken: { value: "set-by-me", generated: false },
  demo: { modelId: "acct_1:products:v1", curl: CURL, relevanceScore: 9.752615 },
};

describe("renderBanner", () => {
  it("says where the API, the /system page and the data folder are", () => {
    const text = renderBanner(info, false).join("\n");
    expect(text).toContain("API            http://127.0.0.1:8787 ");
    expect(text).toContain("System status  http://127.0.0.1:8787/system ");
    expect(text).toContain("Data folder    /home/me/shop/.data");
  });

  it("prints generated tokens and where the demo key is, but does not echo a token set in the environment", () => {
    const text = renderBanner(info, false).join("\n");
    expect(text).toContain(
      "Admin token    adm1n-generated   (generated for this run; set ADMIN_TOKEN to keep one)",
    );
    expect(text).toContain("Monitor token  (set by MONITOR_TOKEN)");
    expect(text).not.toContain("set-by-me");
    expect(text).toContain('Demo API key   in /home/me/shop/.data/demo.json ("apiKey"');
    expect(text).toContain('Search key     in /home/me/shop/.data/demo.json ("searchApiKey": search only');
    expect(text).not.toMatch(/rk_/);
  });

  it("puts the curl alone on its own line, unindented, uncoloured, with a single-quoted JSON body", () => {
    const lines = renderBanner(info, true);
    const curl = lines.filter((l) => l.includes("curl "));
    expect(curl).toEqual([CURL]);
    expect(CURL).toMatch(
      /^curl -s -X POST \S+ -H @'[^']+' -H '[^']+' -d '\{"q":"home chair","relevanceScore":true\}'$/,
    );
    expect(CURL).not.toContain("\\");
  });

  it("fits on one screen, with or without demo data", () => {
    expect(renderBanner(info, false).length).toBeLessThanOrEqual(22);
    const noDemo = renderBanner({ ...info, demo: null, exporter: false }, false);
    expect(noDemo.join("\n")).toContain("Demo data off (DEMO=0).");
    expect(noDemo.join("\n")).toContain("EXPORTER=0");
    expect(noDemo.some((l) => l.startsWith("curl"))).toBe(false);
  });

  it("says so when the demo search is not scored now (the operator changed its config after the seeding)", () => {
    const text = renderBanner(
      { ...info, demo: { ...(info.demo as NonNullable<BannerInfo["demo"]>), relevanceScore: null } },
      false,
    ).join("\n");
    expect(text).toContain(
      "A search of the demo shop (not scored now: its relevance config changed since the seeding):",
    );
    expect(text).not.toContain("relevanceScore 9.75");
    expect(renderBanner(info, false).join("\n")).toContain(
      "(model acct_1:products:v1, relevanceScore 9.75):",
    );
  });

  it("colours only the title, and only when asked", () => {
    expect(renderBanner(info, false).join("\n")).not.toContain("\u001b");
    expect(renderBanner(info, true)[1]).toBe("\u001b[1mnpm start: the local stack is running\u001b[0m");
  });
});
