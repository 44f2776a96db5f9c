// Where one insert group's time goes (docs/benchmarks.md, "Monitor"): on a store loaded by
// monitor-profile.ts (PROFILE_DIR, required), times the INSERT of GROUP rows (default 4,000) into
// svc.collector_runs with its views, into a copy of the table without views, and into the copy with
// each view alone; the duplicate check; and the Node side of a 1,000-record request. Median / p95.
import { Readable } from "node:stream";
import { createMonitorApp } from "@monitor/api";
import { RUN_COLUMNS, runRowValues } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { InMemoryCollectorRegistry, validateRun, validateRunBatch } from "@monitor/core";
import { COLLECTORS } from "./monitor-dataset.ts";
import { percentile } from "./report.ts";

const dir = process.env.PROFILE_DIR;
if (dir === undefined) throw new Error("PROFILE_DIR: a folder loaded by monitor-profile.ts");
const GROUP = Number(process.env.PROFILE_GROUP ?? 4000);
const N = Number(process.env.PROFILE_CALLS ?? 10);
const store = openChdbRunStore(dir, { timeoutMs: 900_000 });
await store.migrate();
const c = store.client;

/** Nearest-rank percentile `p` (0–1) of unsorted times. */
const q = (xs: number[], p: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    p * 100,
  );
/** Times `fn(prepare())`; what `prepare` builds (the rows, in Node) is not timed. */
async function time<T>(
  name: string,
  fn: (x: T) => Promise<unknown>,
  n = N,
  prepare: () => T = () => undefined as T,
): Promise<void> {
  for (let i = 0; i < 2; i++) await fn(prepare());
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = prepare();
    const t0 = performance.now();
    await fn(x);
    ms.push(performance.now() - t0);
  }
  console.log(
    `${name.padEnd(58)} ${q(ms, 0.5).toFixed(1).padStart(7)} / ${q(ms, 0.95).toFixed(1).padStart(7)} ms`,
  );
}

let b = 0;
const records = (n: number) => {
  const at = Date.now();
  b += 1;
  return Array.from({ length: n }, (_, i) => {
    const s = (b * n + i) % 6800;
    const done = at - 1000 + (i % 1000);
    return {
      run_id: crypto.randomUUID(),
      collector: COLLECTORS[s % 4] as string,
      cloud_account_id: String(100_000_000_000 + (Math.floor(s / 4) % 100)),
      cloud_region: `r-${Math.floor(s / 400)}`,
      started_at: new Date(done - 30_000).toISOString(),
      completed_at: new Date(done).toISOString(),
      status: i % 50 === 0 ? "failed" : "succeeded",
      events_produced: i,
      rows_inserted: i % 100,
      ...(i % 50 === 0 ? { error: "AccessDenied: profile" } : {}),
    };
  });
};
const rows = (n: number) => {
  const out = [];
  for (let k = 0; k < n; k += 1000) {
    const v = validateRunBatch(records(Math.min(1000, n - k)));
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    out.push(...v.value.map((r, i) => validateRun(i, r)));
  }
  return out;
};
const values = (n: number) => rows(n).map(runRowValues);
const insertInto = (table: string, n: number) => async (vals: unknown[][]) =>
  c.insert({
    table,
    columns: [...RUN_COLUMNS],
    values: vals.length === n ? vals : values(n),
    format: "JSONCompactEachRow",
    clickhouse_settings: { async_insert: 0, max_insert_block_size: "1048576" },
  });

const views = (await (
  await c.query({
    query: `SELECT name, as_select FROM system.tables WHERE database = 'svc' AND engine = 'MaterializedView'
      AND has(dependencies_table, 'collector_runs') OR (database = 'svc' AND engine = 'MaterializedView' AND as_select LIKE '%svc.collector_runs%')`,
    format: "JSONEachRow",
  })
).json()) as { name: string; as_select: string }[];
const targets = (await (
  await c.query({
    query: `SELECT name, create_table_query FROM system.tables WHERE database = 'svc'`,
    format: "JSONEachRow",
  })
).json()) as { name: string; create_table_query: string }[];
console.log(`views on svc.collector_runs: ${views.map((v) => v.name).join(", ")}`);

await c.command({ query: "DROP DATABASE IF EXISTS prof" });
await c.command({ query: "CREATE DATABASE prof" });
const copyRuns = async (name: string) =>
  c.command({ query: `CREATE TABLE prof.${name} AS svc.collector_runs` });
await copyRuns("runs_bare");
await time(`INSERT ${GROUP} svc.collector_runs (all views)`, insertInto("svc.collector_runs", GROUP), N, () =>
  values(GROUP),
);
await time(`INSERT ${GROUP} copy without views`, insertInto("prof.runs_bare", GROUP), N, () => values(GROUP));
for (const v of views) {
  const mvDef = (
    (await (await c.query({ query: `SHOW CREATE TABLE svc.${v.name}`, format: "JSONEachRow" })).json()) as {
      statement: string;
    }[]
  )[0]?.statement as string;
  const target = /\bTO svc\.(\w+)/.exec(mvDef)?.[1] as string;
  const t = targets.find((x) => x.name === target)?.create_table_query as string;
  const src = `runs_${v.name}`;
  await copyRuns(src);
  await c.command({ query: t.replace(`svc.${target}`, `prof.t_${v.name}`) });
  await c.command({
    query: mvDef
      .replace(`svc.${v.name}`, `prof.mv_${v.name}`)
      .replace(`TO svc.${target}`, `TO prof.t_${v.name}`)
      .replaceAll("svc.collector_runs", `prof.${src}`),
  });
  await time(`INSERT ${GROUP} copy + ${v.name} alone`, insertInto(`prof.${src}`, GROUP), N, () =>
    values(GROUP),
  );
}
const dupCheck = (sql: string) => async (rs: ReturnType<typeof rows>) => {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const r of rs) {
    min = Math.min(min, r.completed_at);
    max = Math.max(max, r.completed_at);
  }
  const res = await c.query({
    query: sql,
    format: "JSONEachRow",
    query_params: { collectors: COLLECTORS, min, max, ids: rs.map((r) => r.run_id) },
  });
  await res.json();
};
await time(
  `duplicate check ${GROUP} ids (as insertRuns)`,
  dupCheck(`SELECT DISTINCT run_id FROM svc.collector_runs
       WHERE collector IN {collectors:Array(String)}
         AND completed_at >= fromUnixTimestamp64Milli({min:Int64})
         AND completed_at <= fromUnixTimestamp64Milli({max:Int64})
         AND run_id IN {ids:Array(UUID)}`),
  N,
  () => rows(GROUP),
);
await time(
  `duplicate check ${GROUP} ids (no id filter)`,
  dupCheck(`SELECT count() FROM svc.collector_runs
       WHERE collector IN {collectors:Array(String)}
         AND completed_at >= fromUnixTimestamp64Milli({min:Int64})
         AND completed_at <= fromUnixTimestamp64Milli({max:Int64})
         AND length({ids:Array(UUID)}) > 0`),
  N,
  () => rows(GROUP),
);
await time(
  `duplicate check ${GROUP} ids, use_skip_indexes = 0`,
  dupCheck(`SELECT DISTINCT run_id FROM svc.collector_runs
       WHERE collector IN {collectors:Array(String)}
         AND completed_at >= fromUnixTimestamp64Milli({min:Int64})
         AND completed_at <= fromUnixTimestamp64Milli({max:Int64})
         AND run_id IN {ids:Array(UUID)}
       SETTINGS use_skip_indexes = 0`),
  N,
  () => rows(GROUP),
);
for (const settings of ["max_threads = 1", "max_threads = 1, use_skip_indexes = 0"]) {
  await time(
    `duplicate check ${GROUP} ids, ${settings}`,
    dupCheck(`SELECT DISTINCT run_id FROM svc.collector_runs
       WHERE collector IN {collectors:Array(String)}
         AND completed_at >= fromUnixTimestamp64Milli({min:Int64})
         AND completed_at <= fromUnixTimestamp64Milli({max:Int64})
         AND run_id IN {ids:Array(UUID)}
       SETTINGS ${settings}`),
    N,
    () => rows(GROUP),
  );
}
await time(
  `duplicate check (range only, no ids sent)`,
  dupCheck(`SELECT count() FROM svc.collector_runs
       WHERE collector IN {collectors:Array(String)}
         AND completed_at >= fromUnixTimestamp64Milli({min:Int64})
         AND completed_at <= fromUnixTimestamp64Milli({max:Int64})`),
  N,
  () => rows(GROUP),
);
await time(
  `duplicate check ${GROUP} ids as Array(String)`,
  dupCheck(`SELECT DISTINCT run_id FROM svc.collector_runs
       WHERE collector IN {collectors:Array(String)}
         AND completed_at >= fromUnixTimestamp64Milli({min:Int64})
         AND completed_at <= fromUnixTimestamp64Milli({max:Int64})
         AND toString(run_id) IN {ids:Array(String)}`),
  N,
  () => rows(GROUP),
);
await time(
  `duplicate check ${GROUP} ids inlined in the SQL`,
  async (rs: ReturnType<typeof rows>) => {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const r of rs) {
      min = Math.min(min, r.completed_at);
      max = Math.max(max, r.completed_at);
    }
    const res = await c.query({
      query: `SELECT DISTINCT run_id FROM svc.collector_runs
       WHERE collector IN {collectors:Array(String)}
         AND completed_at >= fromUnixTimestamp64Milli({min:Int64})
         AND completed_at <= fromUnixTimestamp64Milli({max:Int64})
         AND run_id IN (${rs.map((r) => `'${r.run_id}'`).join(",")})`,
      format: "JSONEachRow",
      query_params: { collectors: COLLECTORS, min, max },
    });
    await res.json();
  },
  N,
  () => rows(GROUP),
);
const tsvField = (v: unknown) =>
  typeof v === "string"
    ? v.replace(/[\\\t\n]/g, (ch) => (ch === "\\" ? "\\\\" : ch === "\t" ? "\\t" : "\\n"))
    : String(v);
await time(
  `INSERT ${GROUP} copy without views, TabSeparated`,
  async (vals: unknown[][]) =>
    c.insert({
      table: "prof.runs_bare",
      columns: [...RUN_COLUMNS],
      values: Readable.from([`${vals.map((r) => r.map(tsvField).join("\t")).join("\n")}\n`], {
        objectMode: false,
      }),
      format: "TabSeparated",
      clickhouse_settings: { async_insert: 0, max_insert_block_size: "1048576" },
    }),
  N,
  () => values(GROUP),
);
await time(`INSERT ${GROUP} copy without views (again)`, insertInto("prof.runs_bare", GROUP), N, () =>
  values(GROUP),
);
await time(
  `Node: ${GROUP} rows → TSV text`,
  async (vals: unknown[][]) => `${vals.map((r) => r.map(tsvField).join("\t")).join("\n")}\n`,
  N,
  () => values(GROUP),
);
await time(
  `Node: ${GROUP} rows → JSONCompactEachRow text`,
  async (vals: unknown[][]) => vals.map((r) => JSON.stringify(r)).join("\n"),
  N,
  () => values(GROUP),
);
{
  const check = await (
    await c.query({
      query: `SELECT toUnixTimestamp64Milli(min(completed_at)) AS a, toUnixTimestamp64Milli(max(completed_at)) AS b, count() AS n FROM prof.runs_bare`,
      format: "JSONEachRow",
    })
  ).json();
  console.log(`runs_bare: ${JSON.stringify(check)} (now ${Date.now()})`);
}
await time(`SELECT 1`, async () => (await c.query({ query: "SELECT 1", format: "JSONEachRow" })).json());
const body = JSON.stringify(records(1000));
await time("Node: JSON.parse 1,000 records", async () => JSON.parse(body), 20);
await time("Node: validateRunBatch 1,000", async () => validateRunBatch(JSON.parse(body)), 20);
await time(
  "Node: validateRun 1,000 (store)",
  async () => {
    const v = validateRunBatch(JSON.parse(body));
    if (v.ok) v.value.map((r, i) => validateRun(i, r));
  },
  20,
);
await time(
  "Node: rows → JSONCompactEachRow 1,000",
  async () =>
    values(1000)
      .map((v) => JSON.stringify(v))
      .join("\n"),
  20,
);
await time(
  `insertRuns ${GROUP}`,
  (rs) => store.insertRuns(rs),
  N,
  () => rows(GROUP),
);
// The monitor bench's ingest line through the app (50 × 1,000 records, IN_FLIGHT at once), with
// each statement of the store timed: the groups' sizes, the duplicate checks and the INSERTs.
const IN_FLIGHT = Number(process.env.PROFILE_IN_FLIGHT ?? 8);
const log: string[] = [];
const t00 = performance.now();
const stamp = () => (performance.now() - t00).toFixed(0).padStart(6);
const origInsert = c.insert.bind(c);
const origQuery = c.query.bind(c);
(c as { insert: unknown }).insert = async (p: { table: string; values: unknown[] }) => {
  const t0 = performance.now();
  const r = await origInsert(p as never);
  log.push(
    `${stamp()} INSERT ${Array.isArray(p.values) ? p.values.length : "?"} rows ${(performance.now() - t0).toFixed(1)} ms`,
  );
  return r;
};
(c as { query: unknown }).query = async (p: { query: string }) => {
  const t0 = performance.now();
  const r = await origQuery(p as never);
  // The store's own duplicate check goes through its second connection (checkClient) and is not
  // seen here; this catches a store built on this client alone.
  if (p.query.includes("has(splitByChar"))
    log.push(`${stamp()} dup check ${(performance.now() - t0).toFixed(1)} ms`);
  return r;
};
const app = createMonitorApp({
  store,
  registry: new InMemoryCollectorRegistry(),
  token: "profile-token-0123456789",
  log: { info() {}, warn() {}, error() {} } as never,
  now: () => Date.now(),
});
for (let round = 0; round < 3; round++) {
  log.length = 0;
  let next = 0;
  let stored = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < 50) {
        next += 1;
        const body = JSON.stringify(records(1000));
        const res = await app.request("/api/system/runs", {
          method: "POST",
          headers: { authorization: "Bearer profile-token-0123456789", "content-type": "application/json" },
          body,
        });
        const reply = (await res.json()) as { stored: number };
        if (res.status !== 201) throw new Error(`${res.status}: ${JSON.stringify(reply).slice(0, 300)}`);
        stored += reply.stored;
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  console.log(`app ingest, ${IN_FLIGHT} in flight: ${stored} stored, ${(stored / s).toFixed(0)} /s`);
}
if (process.env.PROFILE_LOG === "1") console.log(log.join("\n"));
await c.command({ query: "DROP DATABASE IF EXISTS prof" });
await store.close();
