// A tiny Worker around the HTTP adapter and the ClickHouse store, for workerd.test.ts: it proves
// the production write and read path (the queue consumer's, the admin Lambda's) runs in workerd.
import { httpClickHouse } from "../clickhouse-http.ts";
import { ClickHouseOutcomeStore } from "../clickhouse-store.ts";
import type { ServedSearch } from "../records.ts";

export interface WorkerdRequest {
  url: string;
  user: string;
  password: string;
  database: string;
  search: ServedSearch;
}

export default {
  async fetch(request: Request): Promise<Response> {
    const body = (await request.json()) as WorkerdRequest;
    const sql = httpClickHouse({
      url: body.url,
      user: body.user,
      password: body.password,
      timeoutMs: 10_000,
    });
    const store = new ClickHouseOutcomeStore(sql, { database: body.database, retentionDays: 3650 });
    try {
      await store.recordSearches([body.search]);
      const q = await store.quality({
        account: body.search.account,
        index: body.search.index,
        since: body.search.servedAt,
        until: body.search.servedAt + 1,
        minImpressions: 1,
        maxQueries: 10,
      });
      return Response.json({ ok: true, queries: q.queries });
    } catch (err) {
      return Response.json({ ok: false, error: (err as Error).message });
    }
  },
};
