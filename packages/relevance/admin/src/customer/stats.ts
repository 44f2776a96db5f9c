/** Meilisearch's global `GET /stats`, for the caller's account: each of its indexes' statistics. */

import { createRoute } from "@hono/zod-openapi";
import { INDEX_PREFIX } from "@relevance/settings";
import { Hono } from "hono";
import type { CustomerEnv } from "../auth.ts";
import type { IndexStatsView } from "../index-documents.ts";
import { GlobalStats } from "../management-schemas.ts";
import { AUTHENTICATED, CUSTOMER, E502_BACKEND, json } from "../openapi-parts.ts";
import { isAlias, recordName } from "../records.ts";
import { CUSTOMER_BASE, type CustomerContext } from "./context.ts";

export function statsRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { deps, indexDocuments, account } = ctx;
  const app = new Hono<CustomerEnv>();

  app.get(`${CUSTOMER_BASE}/stats`, async (c) => {
    const records = (await deps.table.query(account(c), INDEX_PREFIX)).filter((item) => !isAlias(item));
    const indexes: Record<string, IndexStatsView> = {};
    let lastUpdate: string | null = null;
    // One index at a time: each reads its statistics from the store or the backend.
    for (const item of records) {
      const name = recordName(item);
      indexes[name] = await indexDocuments.stats(account(c), name);
      const updated = item.attributes.updated_at;
      if (typeof updated === "string" && (lastUpdate === null || updated > lastUpdate)) lastUpdate = updated;
    }
    // The size on disk is the whole instance's (or database's), not the account's: not shown.
    return c.json({ databaseSize: 0, usedDatabaseSize: 0, lastUpdate, indexes });
  });

  return app;
}

/** The route above as the OpenAPI document lists it. */
export const statsRouteDocs = () => [
  createRoute({
    method: "get",
    path: "/api/v1/stats",
    ...CUSTOMER,
    summary:
      "The account's statistics, as Meilisearch's GET /stats: each index's (aliases are not listed) and " +
      "the latest update; databaseSize and usedDatabaseSize are 0 (not measured per account).",
    responses: {
      200: { description: "The statistics.", content: json(GlobalStats) },
      ...AUTHENTICATED,
      502: E502_BACKEND,
    },
  }),
];
