// `relevance features log` against the real npm start stack (a child process, DEMO=0): each
// written row must equal computeFeaturesV1 run on the search API's own answer for that query.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ADMIN_TOKEN, call, type RunningStack, spawnStack } from "@apps/local/test-support";
import { computeFeaturesV1, FEATURE_SET_V1, featureRecord } from "@relevance/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Io, nodeIo, UserError } from "../io.ts";
import { featuresLog } from "./features-log.ts";

const DOCS = [
  { id: "1", title: "Red running shoes", tags: ["shoes", "running"], category: "footwear" },
  { id: "2", title: "Blue trail running shoes", tags: ["shoes", "trail"], category: "footwear" },
  { id: "3", title: "Leather office shoes", tags: "shoes", category: "footwear" },
  { id: "4", title: "Wool hiking socks", tags: ["socks", "wool"], category: "apparel" },
  { id: "5", title: ["Waterproof", "rain jacket"], tags: ["jacket", "rain"], category: "apparel" },
  { id: "6", title: "Espresso coffee beans", tags: ["coffee"], category: "grocery" },
];

let stack: RunningStack;
let dataDir: string;
let account: string;
let apiKey: string;
let env: NodeJS.ProcessEnv;
let dir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "features-log-stack-"));
  stack = await spawnStack({ DATA_DIR: dataDir });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const created = await call(stack.url, "POST", "/api/v1/admin/accounts", { name: "Shop" }, admin);
  account = created.body.systemAccountId;
  apiKey = created.body.apiKey;
  const key = { "x-api-key": apiKey };
  await call(stack.url, "POST", "/api/v1/indexes", { name: "products" }, key);
  await call(
    stack.url,
    "PATCH",
    "/api/v1/indexes/products/settings",
    { searchableAttributes: ["title", "tags"] },
    key,
  );
  await call(stack.url, "POST", "/api/v1/indexes/products/documents", DOCS, key);
  // The exporter copies the key and settings to KV within moments; wait until search answers.
  for (let i = 0; i < 100; i++) {
    const r = await call(stack.url, "POST", "/api/v1/indexes/products/search", { q: "shoes" }, key);
    if (r.status === 200 && r.body.hits.length === 3) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  env = { DATA_DIR: dataDir, PORT: new URL(stack.url).port, RELEVANCE_ENVIRONMENTS: "" };
}, 30_000);

afterAll(async () => {
  await stack?.kill("SIGTERM");
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "features-log-"));
});

function capture(): Io & { stdout: string[] } {
  const stdout: string[] = [];
  return { ...nodeIo(), out: (t) => stdout.push(t), err: () => {}, stdout };
}

const args = (extra: Record<string, string> = {}): string[] =>
  Object.entries({
    env: "local",
    account,
    index: "products",
    "api-key": apiKey,
    queries: join(dir, "queries.jsonl"),
    out: join(dir, "features.jsonl"),
    "title-field": "title",
    "tags-field": "tags",
    ...extra,
  }).flatMap(([k, v]) => [`--${k}`, v]);

const QUERIES = [
  { q: "running shoes", label: 9.5, id: "q1" },
  { q: "wool socks", label: 7 },
  { q: "rain jacket" },
  { q: "coffee", label: 3, split: "holdout" },
  { q: "nothing matches this", label: 0 },
  { q: "" },
];

const writeQueries = (lines: string[]) => writeFileSync(join(dir, "queries.jsonl"), `${lines.join("\n")}\n`);

describe("relevance features log", () => {
  it("writes, per query, the features serving computes on the search API's own hits", async () => {
    writeQueries(QUERIES.map((q) => JSON.stringify(q)));
    const io = capture();
    expect(await featuresLog(args(), io, env)).toBe(0);
    expect(io.stdout.join("")).toMatch(/^wrote .*features\.jsonl: 6 rows \(4 with a label\) from local /);

    const rows = readFileSync(join(dir, "features.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(QUERIES.length);
    for (const [i, query] of QUERIES.entries()) {
      const row = rows[i];
      // The search API's answer for the same request, then the serving code on it.
      const answer = await call(
        stack.url,
        "POST",
        "/api/v1/indexes/products/search",
        { q: query.q, limit: 20 },
        { "x-api-key": apiKey },
      );
      const expected = featureRecord(
        computeFeaturesV1({
          query: query.q,
          hits: answer.body.hits,
          estimatedTotalHits: answer.body.estimatedTotalHits,
          titleField: "title",
          tagsField: "tags",
        }),
      );
      expect(row.q).toBe(query.q);
      expect(Object.keys(row.features)).toEqual([...FEATURE_SET_V1]);
      expect(row.features).toEqual(expected);
      expect(row.label).toBe(query.label);
      if ("id" in query) expect(row.id).toBe(query.id);
      if ("split" in query) expect(row.split).toBe(query.split);
    }
    expect(rows[0].features.hit_count).toBe(2);
    expect(rows[0].features.title_coverage).toBe(1);
    expect(rows[4].features.hit_count).toBe(0);
  });

  it("honours --limit and null fields (the title and tag features are then 0)", async () => {
    writeQueries([JSON.stringify({ q: "shoes", label: 5 })]);
    const io = capture();
    expect(
      await featuresLog(args({ limit: "1", "title-field": "null", "tags-field": "null" }), io, env),
    ).toBe(0);
    const row = JSON.parse(readFileSync(join(dir, "features.jsonl"), "utf8"));
    expect(row.features.hit_count).toBe(1);
    expect(row.features.log_total_hits).toBeCloseTo(Math.log1p(3), 12);
    for (const name of ["jaccard", "title_coverage", "query_words_in_titles", "topic_coherence"])
      expect(row.features[name]).toBe(0);
    expect(row.features.tag_match_fraction).toBe(0);
    expect(row.features.avg_tag_count).toBe(0);
  });

  const refuses = async (argv: string[], message: RegExp, code = 1, processEnv = env) => {
    const error = await featuresLog(argv, capture(), processEnv).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toMatch(message);
    expect((error as UserError).message).not.toContain("\n");
    expect((error as UserError).exitCode).toBe(code);
    expect(existsSync(join(dir, "features.jsonl"))).toBe(false);
  };

  it("refuses bad input before any request and writes nothing", async () => {
    await refuses(args(), /cannot read .*queries\.jsonl: no such file/);
    writeQueries([JSON.stringify({ q: "shoes" }), "{not json", JSON.stringify({ q: "socks" })]);
    await refuses(args(), /queries\.jsonl line 2: not valid JSON$/);
    writeQueries([JSON.stringify({ q: "shoes" }), JSON.stringify({ q: 3 })]);
    await refuses(args(), /queries\.jsonl line 2: q must be a string$/);
    writeQueries([JSON.stringify({ q: "shoes", label: "high" })]);
    await refuses(args(), /line 1: label must be a finite number when present$/);
    writeQueries([JSON.stringify({ q: "shoes", features: {} })]);
    await refuses(args(), /line 1: features is written by this command/);
    writeQueries([]);
    await refuses(args(), /has no queries; write one JSON line/);
    expect(readdirSync(dir)).toEqual(["queries.jsonl"]);
  });

  it("refuses bad flags (exit 2), a foreign key, an unknown index, and writes nothing", async () => {
    writeQueries([JSON.stringify({ q: "shoes" })]);
    await refuses([...args(), "--fast"], /Unknown option '--fast'/, 2);
    await refuses(args({ limit: "0" }), /--limit must be an integer from 1 to 1000, got 0/, 2);
    await refuses(args({ limit: "20.5" }), /--limit must be an integer/, 2);
    await refuses(args({ index: "no/such" }), /--index must match/, 2);
    await refuses(args({ env: "qa" }), /unknown environment "qa"/, 2);
    await refuses(args({ config: join(dir, "nope.json") }), /cannot read .*nope\.json: no such file/);
    await refuses(args(), /holds no local stack data/, 1, { ...env, DATA_DIR: join(dir, "empty") });
    await refuses(args({ account: "someone-else" }), /the API key belongs to account .*, not someone-else/);
    await refuses(args({ "api-key": "rk_not-a-key" }), /the API key is not known in local/);
    await refuses(
      args({ index: "books" }),
      /queries\.jsonl line 1: the search answered 404: index not found/,
    );
    const noKey = args().filter((a, i, all) => a !== "--api-key" && all[i - 1] !== "--api-key");
    await refuses(noKey, /--api-key is required/, 2);
    expect(readdirSync(dir)).toEqual(["queries.jsonl"]);
  });
});

describe("relevance features log through the real bin", () => {
  const BIN = join(fileURLToPath(new URL("../../../../", import.meta.url)), "node_modules/.bin/relevance");
  const registered = spawnSync(BIN, ["--help"], { encoding: "utf8" }).stdout.includes("features log");

  it.skipIf(!registered)(
    "writes the same rows as in-process, and one line on stderr for bad input",
    async () => {
      writeQueries(QUERIES.map((q) => JSON.stringify(q)));
      const childEnv = { ...process.env, ...env };
      const r = spawnSync(BIN, ["features", "log", ...args()], { encoding: "utf8", env: childEnv });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      const viaBin = readFileSync(join(dir, "features.jsonl"), "utf8");
      expect(await featuresLog(args({ out: join(dir, "again.jsonl") }), capture(), env)).toBe(0);
      expect(readFileSync(join(dir, "again.jsonl"), "utf8")).toBe(viaBin);

      writeQueries([JSON.stringify({ q: "shoes" }), "{"]);
      const bad = spawnSync(BIN, ["features", "log", ...args({ out: join(dir, "bad.jsonl") })], {
        encoding: "utf8",
        env: childEnv,
      });
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/^relevance features log: .*queries\.jsonl line 2: not valid JSON\n$/);
      expect(existsSync(join(dir, "bad.jsonl"))).toBe(false);
    },
  );
});
