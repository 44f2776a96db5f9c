// `verify` right after an upload: the search proxy may still hold a miss of the artifact cached from
// before (up to 60 s). verify waits until that miss must have expired, saying so, instead of failing at
// --timeout. The proxy here is the real ModelCache over the same KV, on a fake clock: no real waits.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { modelKey } from "@relevance/core";
import { ModelCache } from "@relevance/search";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import type { Environment } from "../environments.ts";
import { type Io, UserError } from "../io.ts";
import type { ProcedureContext } from "./procedure.ts";
import { Report } from "./report.ts";
import { confirmServing, NEGATIVE_CACHE_MARGIN_MS, NEGATIVE_CACHE_MS, type ServingDeps } from "./verify.ts";

const ACCOUNT = "acct_0123456789ab";
const MODEL = `${ACCOUNT}:products:v1`;
const CONFIG = { model_id: MODEL, title_field: "title", tags_field: "tags" };
const ARTIFACT = (() => {
  const committed = readFileSync(
    fileURLToPath(new URL("../../../../training/demo/model-products.json", import.meta.url)),
    "utf8",
  );
  return JSON.stringify({ ...JSON.parse(committed), modelId: MODEL });
})();

/** A local environment whose record and KV copy already name MODEL; the proxy scores with a ModelCache. */
async function setup(options: { proxyScores?: boolean } = {}) {
  let t = 1_000_000;
  const db = openDatabase(":memory:");
  const kv = new SqliteKv(db);
  const table = new SqliteSettingsTable(db);
  const attributes = { type: "index", relevance_trigger_config: CONFIG };
  await table.put(ACCOUNT, "INDEX#products", attributes, { mustNotExist: true });
  await kv.put(`${ACCOUNT}-products`, JSON.stringify({ ...attributes, version: 1 }));
  const proxy = new ModelCache({ kv, now: () => t });
  const searches: number[] = [];
  const deps: ServingDeps = {
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
    search: async () => {
      searches.push(t);
      const lookup = await proxy.get(MODEL);
      return lookup.status === "loaded" && options.proxyScores !== false
        ? { status: 200, score: 6.4, model: MODEL }
        : { status: 200, score: undefined, model: null };
    },
  };
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    readText: async () => "",
    writeTextAtomic: async () => {},
  };
  const env: Environment = {
    name: "local",
    kv,
    table,
    adminBaseUrl: "http://127.0.0.1:9",
    adminToken: undefined,
    adminSigning: null,
    searchBaseUrl: "http://127.0.0.1:9",
    close: () => db.close(),
  };
  const ctx: ProcedureContext = {
    env,
    io,
    report: new Report(io, false),
    now: () => new Date(t),
    clockOverridden: false,
    admin: () => {
      throw new Error("no admin API in this test");
    },
    defaultTimeoutS: 10,
  };
  const check = { account: ACCOUNT, index: "products", apiKey: "k", query: "", timeoutS: 10 };
  return {
    ctx,
    deps,
    check,
    out,
    err,
    searches,
    proxy,
    clock: () => t,
    advance: (ms: number) => {
      t += ms;
    },
    upload: () => kv.put(modelKey(MODEL), ARTIFACT),
  };
}

describe("verify after an upload, while the search proxy holds a cached miss", () => {
  it("waits, printing progress, until the miss must have expired, then confirms and says it waited", async () => {
    const s = await setup();
    // A search while the config named the model but nothing was uploaded: the proxy caches the miss.
    expect((await s.deps.search("", "products", "k", "")).score).toBeUndefined();
    s.advance(2_000);
    await s.upload();
    const started = s.clock();

    const serving = await confirmServing(s.ctx, s.check, s.deps);

    expect(serving.modelId).toBe(MODEL);
    expect(serving.waitedForCachedMissMs).toBeGreaterThan(0);
    // Served as soon as the proxy's miss expired: 60 s after it was cached, past the 10 s --timeout.
    const firstScored = s.searches.at(-1) as number;
    expect(firstScored - started).toBeGreaterThan(10_000);
    expect(firstScored - started).toBeLessThanOrEqual(NEGATIVE_CACHE_MS + 500);
    expect(s.err[0]).toMatch(
      /^search on products answers without relevanceScore although relevance_model:acct_0123456789ab:products:v1 is in KV: the search proxy may still hold a miss of it cached from before the upload \(kept up to 60 s\); waiting until it must have expired, \d+ s more\n$/,
    );
    expect(s.err.slice(1).every((l) => /^still waiting for the cached miss of .* s left\n$/.test(l))).toBe(
      true,
    );
    expect(s.err.length).toBeGreaterThan(1);
    expect(s.out.at(-1)).toMatch(
      /^search on products: relevanceScore 6\.4 from acct_0123456789ab:products:v1 \(the configured model\), after waiting \d+ s beyond --timeout for the search proxy's cached miss to expire\n$/,
    );
  });

  it("does not wait when the search scores within --timeout, and says nothing about a cached miss", async () => {
    const s = await setup();
    await s.upload();
    const serving = await confirmServing(s.ctx, s.check, s.deps);
    expect(serving.waitedForCachedMissMs).toBe(0);
    expect(s.err).toEqual([]);
    expect(s.out.at(-1)).toBe(
      "search on products: relevanceScore 6.4 from acct_0123456789ab:products:v1 (the configured model)\n",
    );
  });

  it("gives up once the miss must have expired (the cache's lifetime plus a margin), saying it waited", async () => {
    const s = await setup({ proxyScores: false });
    await s.upload();
    const started = s.clock();
    const failure = await confirmServing(s.ctx, s.check, s.deps).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(UserError);
    expect((failure as Error).message).toMatch(
      /^search on products answered without relevanceScore after 10 s, and \d+ s more for the search proxy's cached miss of relevance_model:\S+ to expire; /,
    );
    const gaveUp = s.clock() - started;
    expect(gaveUp).toBeGreaterThanOrEqual(NEGATIVE_CACHE_MS + NEGATIVE_CACHE_MARGIN_MS);
    expect(gaveUp).toBeLessThanOrEqual(NEGATIVE_CACHE_MS + NEGATIVE_CACHE_MARGIN_MS + 1_000);
  });

  it("fails at --timeout, without waiting for a miss, when the search names another model", async () => {
    const s = await setup();
    await s.upload();
    s.deps.search = async () => ({ status: 200, score: 3, model: `${ACCOUNT}:products:v0` });
    const started = s.clock();
    await expect(confirmServing(s.ctx, s.check, s.deps)).rejects.toThrow(
      /^search on products answered relevanceScore 3 from \S+:v0, not \S+:v1 after 10 s; /,
    );
    expect(s.clock() - started).toBeLessThanOrEqual(10_500);
    expect(s.err).toEqual([]);
  });
});

describe("verify on a terminal", () => {
  it("notes once that it is waiting for the search when that takes over a second; piped, it says nothing", async () => {
    for (const terminal of [true, false]) {
      const s = await setup();
      await s.upload();
      s.ctx.io.stderrIsTerminal = terminal;
      const scoresFrom = s.clock() + 3_000;
      const search = s.deps.search;
      s.deps.search = async (...args) =>
        s.clock() >= scoresFrom ? search(...args) : { status: 200, score: undefined, model: null };
      await confirmServing(s.ctx, s.check, s.deps);
      expect(s.err).toEqual(
        terminal
          ? [`waiting for search on products to answer with relevanceScore from ${MODEL} (up to 9 s more)…\n`]
          : [],
      );
    }
  });
});
