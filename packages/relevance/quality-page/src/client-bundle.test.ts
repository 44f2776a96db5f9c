/**
 * The quality page's client bundle (client-bundle.gen.ts) is what `npm run build:page-client` makes
 * of the current sources, and the client type-checks with the DOM library (tsconfig.client.json).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GENERATED, qualityClientModule } from "./client-build.ts";

describe("the quality page's client bundle", () => {
  it("is current: npm run build:page-client leaves client-bundle.gen.ts unchanged", async () => {
    const fresh = await qualityClientModule();
    expect(
      readFileSync(GENERATED, "utf8") === fresh,
      "run npm run build:page-client and commit the result",
    ).toBe(true);
  }, 60_000);

  it("type-checks against the DOM library (tsconfig.client.json)", () => {
    const project = fileURLToPath(new URL("../tsconfig.client.json", import.meta.url));
    const tsc = fileURLToPath(new URL("../../../../node_modules/.bin/tsc", import.meta.url));
    expect(() => execFileSync(tsc, ["--noEmit", "-p", project], { stdio: "pipe" })).not.toThrow();
  }, 60_000);
});
