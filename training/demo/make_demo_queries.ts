// The demo's judged queries: generated deterministically (fixed seed) from the demo catalog's
// vocabulary, each with the category the shopper means, then labelled by measurement:
//
//   label = 10 × (number of the top 10 hits whose category is the intended one) / 10
//
// where the hits come from the real search API of a running stack holding the demo catalog (a
// result with fewer than 10 hits counts the empty places as misses, so an empty result is 0).
//
// Standalone (against a running `npm start` with the demo catalog):
//   npx node training/demo/make_demo_queries.ts --url http://127.0.0.1:8787 --api-key K --out queries.jsonl
// `npm run demo:train` (train_demo.ts) runs it as one step of the whole pipeline.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type DemoQuery, generateDemoQueries } from "../../apps/local/src/demo-queries.ts";

export { type DemoQuery, generateDemoQueries } from "../../apps/local/src/demo-queries.ts";

export const LABEL_DEPTH = 10;

/** Measures each query's label through the search API (top LABEL_DEPTH hits, plain search). */
export async function labelQueries(
  url: string,
  apiKey: string,
  index: string,
  queries: readonly DemoQuery[],
): Promise<DemoQuery[]> {
  const out: DemoQuery[] = [];
  for (const query of queries) {
    const res = await fetch(`${url}/api/v1/indexes/${index}/search`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ q: query.q, limit: LABEL_DEPTH }),
    });
    if (res.status !== 200) throw new Error(`search for ${JSON.stringify(query.q)} answered ${res.status}`);
    const body = (await res.json()) as { hits: { category?: unknown }[] };
    const relevant = body.hits.filter((h) => h.category === query.intendedCategory).length;
    out.push({ ...query, label: (10 * relevant) / LABEL_DEPTH });
  }
  return out;
}

export const toJsonLines = (rows: readonly object[]): string =>
  rows.map((r) => `${JSON.stringify(r)}\n`).join("");

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      "api-key": { type: "string" },
      index: { type: "string", default: "products" },
      out: { type: "string", default: "queries.jsonl" },
    },
  });
  if (values.url === undefined || values["api-key"] === undefined) {
    process.stderr.write("usage: make_demo_queries.ts --url URL --api-key K [--index products] [--out F]\n");
    process.exit(2);
  }
  const labelled = await labelQueries(values.url, values["api-key"], values.index, generateDemoQueries());
  writeFileSync(values.out, toJsonLines(labelled));
  process.stdout.write(`wrote ${values.out}: ${labelled.length} labelled queries\n`);
}
