/**
 * `PUT /api/system/accounts/{account_id}` (a new version of a monitored account) and
 * `GET /api/system/accounts` (accounts by status, coverage). docs/monitor-api.md.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  AccountBodySchema,
  type CloudAccountRow,
  MAX_ACCOUNT_ID_CHARS,
  validateAccountUpdate,
} from "@monitor/core";
import { evaluateCoverage, iso } from "@monitor/runtime";
import { invalid } from "@shared/http";
import type { BlankEnv } from "hono/types";
import { z } from "zod";
import type { MonitorContext } from "../context.ts";
import { bodyObject, readJson, samePathParam } from "../request-body.ts";
import { AccountSchema, AccountsSchema } from "../schemas/resources.ts";
import { COMMON_ERRORS, json, monitorRoutes, SECURED, WRITE_ERRORS } from "./openapi-parts.ts";

export const putAccount = createRoute({
  method: "put",
  path: "/api/system/accounts/{account_id}",
  ...SECURED,
  summary: "A new version of a monitored account's record.",
  request: {
    params: z.object({
      account_id: z.string().meta({ description: `1 to ${MAX_ACCOUNT_ID_CHARS} characters.` }),
    }),
    body: { required: true, content: json(AccountBodySchema) },
  },
  responses: {
    200: { description: "The stored account row.", content: json(AccountSchema) },
    ...WRITE_ERRORS,
  },
});

export const getAccounts = createRoute({
  method: "get",
  path: "/api/system/accounts",
  ...SECURED,
  summary:
    "Accounts counted and listed by status; never-scanned active accounts within 24 h in new_accounts.",
  responses: { 200: { description: "Coverage.", content: json(AccountsSchema) }, ...COMMON_ERRORS },
});

export const accountJson = (a: CloudAccountRow): z.input<typeof AccountSchema> => ({
  account_id: a.account_id,
  account_name: a.account_name,
  svc_status: a.svc_status,
  updated_at: iso(a.updated_at),
});

export function accountRoutes(ctx: MonitorContext): OpenAPIHono<BlankEnv> {
  const { store } = ctx;
  const app = monitorRoutes();
  /** Account PUTs read the previous version before writing the next: one at a time per app. */
  let accountChain: Promise<unknown> = Promise.resolve();

  // The path's account_id is checked with the body (validateAccountUpdate): one list of problems.
  app.openAPIRegistry.registerPath(putAccount);
  app.put("/api/system/accounts/:account_id", ctx.limit, async (c) => {
    const accountId = c.req.param("account_id");
    const body = bodyObject(await readJson(c));
    samePathParam(body, "account_id", accountId);
    const { updated_at: _ignored, ...rest } = body;
    const checked = validateAccountUpdate({ ...rest, account_id: accountId });
    if (!checked.ok) throw invalid("the account update is invalid", checked.errors);
    const now = ctx.now();
    const write = async (): Promise<CloudAccountRow> => {
      // A new version must win over the previous one even when both land in the same millisecond.
      const prev = (await store.accountsLatest()).find((a) => a.account_id === accountId);
      const row: CloudAccountRow = {
        account_id: accountId,
        account_name: checked.value.account_name,
        svc_status: checked.value.svc_status,
        updated_at: prev === undefined ? now : Math.max(now, prev.updated_at + 1),
      };
      await store.upsertAccount(row);
      return row;
    };
    const next = accountChain.then(() => ctx.write("the account update", write));
    accountChain = next.catch(() => {});
    return c.json(accountJson(await next), 200);
  });

  app.openapi(getAccounts, async (c) => {
    const now = ctx.now();
    const { accounts, cov } = await ctx.read("the account queries", async () => {
      const [accounts, scans] = await Promise.all([
        store.accountsLatest(),
        store.lastSucceededRunPerAccount(0),
      ]);
      return { accounts, cov: evaluateCoverage(accounts, scans, now) };
    });
    return c.json(
      {
        generated_at: new Date(now).toISOString(),
        counts: cov.counts,
        accounts: [...accounts].sort((a, b) => (a.account_id < b.account_id ? -1 : 1)).map(accountJson),
        warnings: cov.warnings,
        unscanned: cov.unscanned.map((u) => ({ ...u, last_scanned_at: iso(u.last_scanned_at) })),
        new_accounts: cov.new_accounts.map((a) => ({
          ...a,
          first_active_at: new Date(a.first_active_at).toISOString(),
          new_until: new Date(a.new_until).toISOString(),
        })),
      },
      200,
    );
  });

  return app;
}
