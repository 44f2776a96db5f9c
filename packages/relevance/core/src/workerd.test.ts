// Proves the pure core runs in real workerd: esbuild bundles a tiny worker around it (the way a
// Worker deploy would), Miniflare runs that bundle in the workerd binary, and every answer must equal
// what the same code computes in Node, double for double.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildArtifact, clampScore, computeFeaturesV1, importXgboost, loadArtifact } from "./index.ts";
import { readXgboostCase } from "./test-support/fixtures.ts";
import type { ScoreRequest as Body } from "./test-support/worker-entry.ts";

const ENTRY = fileURLToPath(new URL("./test-support/worker-entry.ts", import.meta.url));

interface Scored {
  features: number[];
  prediction: number;
  score: number | null;
}

function makeArtifactText(): string {
  const imported = importXgboost(readXgboostCase("squarederror_default_base").model);
  if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
  const built = buildArtifact(imported.value, {
    modelId: "acme:products:v1",
    titleField: "title",
    tagsField: "tags",
  });
  if (!built.ok) throw new Error(JSON.stringify(built.errors));
  return built.value.text;
}

/** The Node-side reference: the very code the worker runs. */
function scoreInNode(body: Body): Scored {
  const loaded = loadArtifact(body.artifactText, { checkGolden: true });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const vector = computeFeaturesV1(body);
  const prediction = loaded.value.model.predictV1(vector);
  return { features: Array.from(vector), prediction, score: clampScore(prediction) };
}

const NODE_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'`]node:/;

describe("relevance core in real workerd via Miniflare (esbuild bundle)", () => {
  let bundleText = "";
  let mf: Miniflare | undefined;
  let artifactText = "";

  beforeAll(async () => {
    const result = await build({
      entryPoints: [ENTRY],
      bundle: true,
      format: "esm",
      platform: "neutral",
      write: false,
      logLevel: "silent",
    });
    bundleText = result.outputFiles[0]?.text ?? "";
    mf = new Miniflare({ modules: true, script: bundleText, compatibilityDate: "2025-01-01" });
    await mf.ready;
    artifactText = makeArtifactText();
  }, 60_000);

  afterAll(async () => {
    await mf?.dispose();
  });

  async function post(body: unknown): Promise<{ status: number; json: unknown; runtime: string | null }> {
    if (mf === undefined) throw new Error("Miniflare did not start");
    const res = await mf.dispatchFetch("http://worker.test/score", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: await res.json(), runtime: res.headers.get("x-runtime") };
  }

  it("bundles to Worker-safe code: no node: specifiers, no eval, no new Function", () => {
    expect(bundleText.length).toBeGreaterThan(1000);
    expect(bundleText).toContain("export");
    expect(bundleText).not.toMatch(NODE_SPECIFIER);
    expect(bundleText).not.toMatch(/\bnew\s+Function\s*\(/);
    expect(bundleText).not.toMatch(/\beval\s*\(/);
  });

  const cases: { name: string; request: Omit<Body, "artifactText"> }[] = [
    {
      name: "ASCII query whose words recur in titles and tags",
      request: {
        query: "red running shoes",
        hits: [
          { title: "Red Running Shoes for Men", tags: ["running", "sport"] },
          { title: "Running shoes, lightweight", tags: ["shoes"] },
          { title: "Blue hiking boots", tags: ["outdoor", "boots"] },
          { title: ["Red", "trail", "running", "shoes"], tags: "trail" },
        ],
        estimatedTotalHits: 1234,
        titleField: "title",
        tagsField: "tags",
      },
    },
    {
      name: "non-ASCII title and a full-width query (NFKC)",
      request: {
        query: "ＣＡＦÉ crème größe",
        hits: [
          { title: "Café Crème Größe", tags: ["café", "Getränk"] },
          { title: "Crème brûlée", tags: ["dessert"] },
          { title: "Espresso", tags: [] },
        ],
        estimatedTotalHits: 3,
        titleField: "title",
        tagsField: "tags",
      },
    },
    {
      name: "zero hits",
      request: {
        query: "nothing matches",
        hits: [],
        estimatedTotalHits: 0,
        titleField: "title",
        tagsField: "tags",
      },
    },
  ];

  it.each(cases)("$name: features and prediction equal Node's exactly", async ({ request }) => {
    const body: Body = { artifactText, ...request };
    const { status, json, runtime } = await post(body);
    expect(status).toBe(200);
    expect(runtime).toBe("Cloudflare-Workers");
    const expected = scoreInNode(body);
    expect(json).toEqual(expected);
    const scored = json as Scored;
    expect(scored.features).toHaveLength(9);
    for (let i = 0; i < 9; i++) expect(Object.is(scored.features[i], expected.features[i])).toBe(true);
    expect(Object.is(scored.prediction, expected.prediction)).toBe(true);
    expect(scored.score).not.toBeNull();
    expect(scored.score).toBeGreaterThanOrEqual(0);
    expect(scored.score).toBeLessThanOrEqual(10);
  });

  it("NFKC matters: the full-width query matches the accented title in workerd", async () => {
    const request = cases[1]?.request;
    if (request === undefined) throw new Error("missing case");
    const { json } = await post({ artifactText, ...request });
    const features = (json as Scored).features;
    expect(features[0]).toBe(3); // café, crème, größe
    expect(features[4]).toBe(1); // title_coverage: every query token is in some title
    expect(features[5]).toBeCloseTo(1 / 3); // only "Café Crème Größe" holds all three
  });

  it("answers 422 naming the field for a corrupted artifact", async () => {
    const base = { query: "red shoes", hits: [{ title: "red shoes" }], estimatedTotalHits: 1 };
    const fields = { titleField: "title", tagsField: "tags" };

    const badObjective = { ...JSON.parse(artifactText), objective: "reg:nonsense" };
    const r1 = await post({ artifactText: JSON.stringify(badObjective), ...base, ...fields });
    expect(r1.status).toBe(422);
    expect((r1.json as { error: string }).error).toMatch(/^objective: must be one of .*reg:nonsense/);

    const tampered = JSON.parse(artifactText);
    tampered.golden.rows[0].prediction += 1;
    const r2 = await post({ artifactText: JSON.stringify(tampered), ...base, ...fields });
    expect(r2.status).toBe(422);
    expect((r2.json as { error: string }).error).toMatch(/^golden\.rows\[0\]: this engine predicts/);

    const r3 = await post({ artifactText: artifactText.slice(0, 100), ...base, ...fields });
    expect(r3.status).toBe(422);
    expect((r3.json as { error: string }).error).toMatch(/the artifact is not valid JSON/);
  });
});
