// Test-only Cloudflare Worker around the pure core; workerd.test.ts bundles it with esbuild and runs
// it in real workerd (Miniflare). It must import nothing but the core: no node:* modules.
import { clampScore, computeFeaturesV1, formatIssues, loadArtifact } from "../index.ts";

export interface ScoreRequest {
  artifactText: string;
  query: string;
  hits: unknown[];
  estimatedTotalHits: number;
  titleField: string | null;
  tagsField: string | null;
}

const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), {
    status,
    // workerd reports "Cloudflare-Workers" here; the test checks it to prove where the code ran.
    headers: { "content-type": "application/json", "x-runtime": navigator.userAgent },
  });

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method !== "POST") return json({ error: "POST a JSON body" }, 405);
    const body = (await request.json()) as ScoreRequest;
    const loaded = loadArtifact(body.artifactText, { checkGolden: true });
    if (!loaded.ok) return json({ error: formatIssues(loaded.errors) }, 422);
    const vector = computeFeaturesV1({
      query: body.query,
      hits: body.hits,
      estimatedTotalHits: body.estimatedTotalHits,
      titleField: body.titleField,
      tagsField: body.tagsField,
    });
    const prediction = loaded.value.model.predictV1(vector);
    return json({ features: Array.from(vector), prediction, score: clampScore(prediction) });
  },
};
