// `relevance features export --from-events`: the pages of the admin API's training rows become the
// JSON lines train_xgboost.py reads, labelled from outcomes, over the real admin app (in process,
// its outcome store a fixed set of rows behind the port).
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiApp } from "@relevance/admin";
import { FEATURE_SET_V1 } from "@relevance/core";
import {
  type DriftDayCounts,
  MemoryOutcomeStore,
  type OutcomeEvent,
  type OutcomeStore,
  type ServedSearch,
  type ShadowPair,
  type TrainingQueryRow,
  type TrainingRowsQuery,
  uuidV7,
} from "@relevance/outcomes";
import { openDatabase, SqliteDocumentStore, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { describe, expect, it, vi } from "vitest";
import { type Io, nodeIo } from "../io.ts";
import { runRelevance } from "../relevance.ts";
import { bearerAuth } from "./admin-auth.ts";
import {
  EXPORT_PAGE_ROWS,
  exportTrainingRows,
  type FetchPage,
  featuresExport,
  outcomeLabel,
  type TrainingPage,
  trainingRowsPages,
} from "./features-export.ts";
import type { ProcedureContext } from "./procedure.ts";
import { Report } from "./report.ts";

const TOKEN = "admin-token-for-tests-0123456789";
const NOW = Date.parse("2026-11-21T12:00:00.000Z");

const row = (queryKey: string, impressions: number, clicked: number, converted = 0): TrainingQueryRow => ({
  queryKey,
  query: queryKey,
  modelId: "acme:products:v1",
  features: [2, 20, 4.5, 0.25, 1, 1, 0.3, 0.5, 3],
  impressions,
  clicked,
  converted,
  lastServedAt: NOW - 1000,
});

class RowsStore implements OutcomeStore {
  readonly queries: TrainingRowsQuery[] = [];
  private readonly rows: TrainingQueryRow[];
  constructor(rows: TrainingQueryRow[]) {
    this.rows = rows;
  }
  async recordSearches(): Promise<void> {}
  async recordEvents(): Promise<void> {}
  async quality(): Promise<never> {
    throw new Error("not read here");
  }
  async purge(): Promise<void> {}
  async scoredModels(): Promise<[]> {
    return [];
  }
  async driftCounts(): Promise<DriftDayCounts[]> {
    return [];
  }
  async shadowPairs(): Promise<ShadowPair[]> {
    return [];
  }
  async shadowComparison() {
    return { pairs: [], bins: [], queries: [], daily: [], samples: [] };
  }
  async trainingRows(q: TrainingRowsQuery): Promise<TrainingQueryRow[]> {
    this.queries.push(q);
    return this.rows
      .filter((r) => r.impressions >= q.minImpressions && (q.after === undefined || r.queryKey > q.after))
      .sort((a, b) => (a.queryKey < b.queryKey ? -1 : 1))
      .slice(0, q.limit);
  }
}

/** The admin app over in-memory SQLite with `rows` behind the outcome port; its fetch calls it in process. */
async function adminOver(rows: TrainingQueryRow[]) {
  return adminWith(new RowsStore(rows));
}

async function adminWith<S extends OutcomeStore>(store: S) {
  const db = openDatabase(":memory:");
  const app = createApiApp({
    table: new SqliteSettingsTable(db),
    kv: new SqliteKv(db),
    documents: new SqliteDocumentStore(db),
    adminToken: TOKEN,
    log: { info() {}, warn() {}, error() {} },
    now: () => new Date(NOW),
    outcomes: store,
  });
  const fetchIn = ((url: string, init?: RequestInit) => app.request(url, init)) as typeof fetch;
  const created = await fetchIn("http://admin/api/v1/admin/accounts", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Shop" }),
  });
  const account = ((await created.json()) as { systemAccountId: string }).systemAccountId;
  const pages = (since = "30d") =>
    trainingRowsPages({
      baseUrl: "http://admin",
      auth: bearerAuth(TOKEN),
      account,
      index: "products",
      since,
      fetch: fetchIn,
    });
  return { store, pages, account, fetchIn };
}

async function collect(fetchPage: FetchPage, label: "ctr" | "conversion" = "ctr", minImpressions = 5) {
  let text = "";
  const summary = await exportTrainingRows({
    fetchPage,
    write: async (t) => {
      text += t;
    },
    label,
    minImpressions,
  });
  return {
    summary,
    lines: text
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l)),
  };
}

describe("features export --from-events", () => {
  it("exports what MemoryOutcomeStore kept: the last served features, labels from the account's own clicks", async () => {
    const store = new MemoryOutcomeStore();
    const { pages, account } = await adminWith(store);
    let n = 0;
    const search = (queryKey: string, at: number, features: number[]): ServedSearch => {
      n += 1;
      return {
        queryUid: uuidV7(at, new Uint8Array(16).fill(n)),
        account,
        index: "products",
        indexUid: "products",
        modelId: "acme:products:v1",
        score: 5,
        features,
        query: queryKey.toUpperCase(),
        queryKey,
        hitIds: ["1", "2"],
        estimatedTotalHits: 2,
        latencyMs: 3,
        servedAt: at,
        userHash: null,
      };
    };
    const event = (
      s: ServedSearch,
      eventType: "click" | "conversion",
      user: string,
      acct = account,
    ): OutcomeEvent => ({
      account: acct,
      index: "products",
      queryUid: s.queryUid,
      eventType,
      eventName: eventType,
      objectId: "1",
      objectName: null,
      position: 0,
      userHash: user,
      receivedAt: s.servedAt + 1000,
    });
    const old = [1, 1, 1, 1, 1, 1, 1, 1, 1];
    const last = [2, 20, 3, 0.5, 1, 1, 0.25, 1, 3];
    const shoes = Array.from({ length: 5 }, (_, i) =>
      search("shoes", NOW - 86_400_000 + i * 60_000, i === 4 ? last : old),
    );
    const socks = [search("socks", NOW - 3_600_000, old), search("socks", NOW - 3_000_000, old)];
    await store.recordSearches([...shoes, ...socks]);
    await store.recordEvents([
      event(shoes[0] as ServedSearch, "click", "u1"),
      event(shoes[0] as ServedSearch, "click", "u1"), // the same click twice counts once
      event(shoes[0] as ServedSearch, "conversion", "u1"),
      event(shoes[1] as ServedSearch, "click", "u2"),
      event(shoes[2] as ServedSearch, "click", "u3", "acct_ffffffffffff"), // another account's: never counted
    ]);
    const { summary, lines } = await collect(pages());
    expect(lines).toEqual([
      {
        q: "SHOES",
        features: Object.fromEntries(FEATURE_SET_V1.map((name, i) => [name, last[i]])),
        label: 4,
        impressions: 5,
        clicks: 2,
        conversions: 1,
        modelId: "acme:products:v1",
        queryKey: "shoes",
      },
    ]);
    expect(summary).toMatchObject({ rows: 1, leftOut: 1, leftOutImpressions: 2 });
  });

  it("writes one features-log line per query, labelled 10 × its click-through rate", async () => {
    const { pages } = await adminOver([row("red shoes", 10, 4, 1), row("socks", 8, 0)]);
    const { lines } = await collect(pages());
    expect(lines).toEqual([
      {
        q: "red shoes",
        features: Object.fromEntries(FEATURE_SET_V1.map((n, i) => [n, row("x", 0, 0).features[i]])),
        label: 4,
        impressions: 10,
        clicks: 4,
        conversions: 1,
        modelId: "acme:products:v1",
        queryKey: "red shoes",
      },
      expect.objectContaining({ q: "socks", label: 0, impressions: 8, clicks: 0 }),
    ]);
  });

  it("labels by conversions with --label conversion", async () => {
    const { pages } = await adminOver([row("red shoes", 10, 4, 1)]);
    const { lines } = await collect(pages(), "conversion");
    expect(lines[0].label).toBe(1);
  });

  it("leaves out queries under the minimum and counts them and their searches", async () => {
    const { pages, store } = await adminOver([
      row("a", 5, 1),
      row("b", 4, 4),
      row("c", 1, 1),
      row("d", 6, 3),
    ]);
    const { summary, lines } = await collect(pages(), "ctr", 5);
    expect(lines.map((l) => l.q)).toEqual(["a", "d"]);
    expect(summary).toMatchObject({ rows: 2, leftOut: 2, leftOutImpressions: 5 });
    // The minimum is applied here, so the route is asked for every query with a search.
    expect(store.queries[0]).toMatchObject({ minImpressions: 1, limit: EXPORT_PAGE_ROWS });
  });

  it("follows next through every page, each row once", async () => {
    const rows = Array.from({ length: 2 * EXPORT_PAGE_ROWS + 7 }, (_, i) =>
      row(`q${String(i).padStart(5, "0")}`, 5, i % 6),
    );
    const { pages } = await adminOver(rows);
    const { summary, lines } = await collect(pages());
    expect(summary.pages).toBe(3);
    expect(lines.map((l) => l.q)).toEqual(rows.map((r) => r.query));
  });

  it("says what to do when the environment records no outcomes", async () => {
    const fetch503 = (async () =>
      new Response(JSON.stringify({ error: { code: "recording_not_configured", message: "no store" } }), {
        status: 503,
      })) as unknown as typeof fetch;
    const fetchPage = trainingRowsPages({
      baseUrl: "http://admin",
      auth: bearerAuth(TOKEN),
      account: "acct_000000000000",
      index: "products",
      since: "30d",
      fetch: fetch503,
    });
    await expect(collect(fetchPage)).rejects.toThrow(/recording_not_configured/);
  });

  it("refuses a page that does not move forward instead of looping", async () => {
    const stuck: FetchPage = async (): Promise<TrainingPage> => ({
      featureSet: [...FEATURE_SET_V1],
      rows: [],
      next: "a",
    });
    await expect(collect(stuck)).rejects.toThrow(/does not move forward/);
  });

  it("computes the label from the counts, capped at 10", () => {
    expect(outcomeLabel({ impressions: 4, clicked: 1, converted: 0 }, "ctr")).toBe(2.5);
    expect(outcomeLabel({ impressions: 4, clicked: 9, converted: 0 }, "ctr")).toBe(10);
    expect(outcomeLabel({ impressions: 0, clicked: 0, converted: 0 }, "conversion")).toBe(0);
  });
});

describe("relevance features export (the command line)", () => {
  function capture(): Io & { stdout: string[]; stderr: string[] } {
    const stdout: string[] = [];
    const stderr: string[] = [];
    return { ...nodeIo(), out: (t) => stdout.push(t), err: (t) => stderr.push(t), stdout, stderr };
  }
  const base = [
    "features",
    "export",
    "--env",
    "local",
    "--account",
    "acct_3f9c2a7b10de",
    "--index",
    "products",
  ];

  it("is listed by relevance --help", async () => {
    const io = capture();
    expect(await runRelevance(["--help"], io)).toBe(0);
    expect(io.stdout.join("")).toMatch(/features export/);
  });

  it("refuses bad flags before touching any environment, and leaves no file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "features-export-"));
    const out = join(dir, "features.jsonl");
    for (const [extra, message] of [
      [[], /--from-events is required/],
      [["--from-events", "--label", "clicks"], /--label must be ctr or conversion/],
      [["--from-events", "--min-impressions", "0"], /--min-impressions must be an integer from 1/],
      [["--from-events", "--since", "last week"], /--since must be a duration/],
    ] as const) {
      const io = capture();
      expect(await runRelevance([...base, "--out", out, ...extra], io)).toBe(2);
      expect(io.stderr.join("")).toMatch(message);
    }
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("writes the file through run, and a page failing half-way leaves no file", async () => {
    const rows = Array.from({ length: EXPORT_PAGE_ROWS + 3 }, (_, i) =>
      row(`q${String(i).padStart(5, "0")}`, 6, 3),
    );
    const { account, fetchIn } = await adminOver(rows);
    const dir = mkdtempSync(join(tmpdir(), "features-export-"));
    const out = join(dir, "features.jsonl");
    const io = capture();
    const ctx = (failAfter: number) => {
      let calls = 0;
      vi.stubGlobal("fetch", (async (url: string, init?: RequestInit) => {
        calls += 1;
        if (calls > failAfter) throw new TypeError("fetch failed");
        return fetchIn(url, init);
      }) as typeof fetch);
      return {
        env: { name: "local", adminBaseUrl: "http://admin" } as ProcedureContext["env"],
        io,
        report: new Report(io, false),
        now: () => new Date(NOW),
        clockOverridden: false,
        admin: () => {
          throw new Error("not used");
        },
        adminAuth: () => bearerAuth(TOKEN),
        defaultTimeoutS: 10,
      } satisfies ProcedureContext;
    };
    const input = {
      account,
      index: "products",
      out,
      since: "30d",
      until: undefined,
      model: undefined,
      label: "ctr" as const,
      minImpressions: 5,
    };
    try {
      await expect(featuresExport.run(ctx(1), input)).rejects.toThrow(/cannot reach the admin API/);
      expect(readdirSync(dir)).toEqual([]);
      const result = await featuresExport.run(ctx(10), input);
      expect(result).toMatchObject({ rows: EXPORT_PAGE_ROWS + 3, pages: 2, leftOut: 0 });
      const lines = readFileSync(out, "utf8").trimEnd().split("\n");
      expect(lines).toHaveLength(EXPORT_PAGE_ROWS + 3);
      expect(JSON.parse(lines[0] as string)).toMatchObject({ q: "q00000", label: 5 });
      expect(readdirSync(dir)).toEqual(["features.jsonl"]);
      expect(io.stdout.join("")).toMatch(/wrote .*features.jsonl: 1003 queries/);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
