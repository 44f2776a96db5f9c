/** `PUT /aliases/{alias}`: an alias created or re-pointed at one of the caller's indexes. */

import { createRoute } from "@hono/zod-openapi";
import { INDEX_NAME, indexSk, type TableItem } from "@relevance/settings";
import { conflict, invalid, notFound } from "@shared/http";
import { Hono } from "hono";
import { z } from "zod";
import type { CustomerEnv } from "../auth.ts";
import { parseWith, readJson } from "../body.ts";
import { requireIndex } from "../key-scope.ts";
import {
  AUTHENTICATED,
  type BodyLimitAnswers,
  body,
  CUSTOMER,
  E507,
  ETAG,
  errorAnswer,
  json,
  pathParam,
} from "../openapi-parts.ts";
import { type Attempt, etag, findRecord, isAlias, retryOnConflict } from "../records.ts";
import { IndexViewSchema, PutAlias } from "../schemas.ts";
import { CUSTOMER_BASE, type CustomerContext, recordView, WRITE_ATTEMPTS } from "./context.ts";

export function aliasRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { deps, account } = ctx;
  const { table, now } = deps;
  const app = new Hono<CustomerEnv>();

  app.put(`${CUSTOMER_BASE}/aliases/:alias`, async (c) => {
    const alias = c.req.param("alias");
    if (!INDEX_NAME.test(alias)) {
      throw invalid("the alias name is invalid", [
        { path: "alias", message: "must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -" },
      ]);
    }
    const { index } = parseWith(PutAlias, await readJson(c, 400), "the alias is invalid");
    // The alias serves the target's documents: the key must cover both names.
    requireIndex(c, index, "indexes.swap");
    // `If-None-Match: *` creates only: an existing alias (or index) of that name is left as it is.
    const ifNoneMatch = c.req.header("if-none-match");
    if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== "*") {
      throw invalid("the If-None-Match header is invalid", [
        { path: "If-None-Match", message: "must be * (create the alias only if the name is free)" },
      ]);
    }
    const createOnly = ifNoneMatch !== undefined;
    const target = await findRecord(table, account(c), index);
    if (target === null) throw notFound("index not found");
    if (isAlias(target))
      throw invalid("an alias must point at an index", [{ path: "index", message: "is an alias" }]);
    const written = await retryOnConflict(WRITE_ATTEMPTS, async (): Promise<Attempt<TableItem>> => {
      const current = await findRecord(table, account(c), alias);
      if (current !== null && !isAlias(current)) throw conflict(`${alias} is an index, not an alias`);
      if (current !== null && createOnly)
        throw conflict(`the alias ${alias} already exists (If-None-Match: *); nothing was written`);
      const at = now().toISOString();
      // Re-pointing keeps the alias record's own attributes, including an admin's relevance config.
      const attributes =
        current === null
          ? { type: "alias", alias_of: index, created_at: at, updated_at: at }
          : { ...current.attributes, alias_of: index, updated_at: at };
      const result = await table.put(
        account(c),
        indexSk(alias),
        attributes,
        current === null ? { mustNotExist: true } : { expectedVersion: current.version },
      );
      return result.ok ? { done: result.item } : "conflict";
    });
    if (written === null) throw conflict("the alias kept changing concurrently; retry");
    c.header("ETag", etag(written.version));
    return c.json(recordView(written));
  });

  return app;
}

/** The route above as the OpenAPI document lists it. */
export const aliasRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "put",
    path: "/api/v1/aliases/{alias}",
    ...CUSTOMER,
    summary: "Create or re-point an alias (its own settings record; its other attributes are kept).",
    request: {
      params: z.object({ alias: pathParam("Alias name: 1 to 64 characters of A-Z, a-z, 0-9, _ and -.") }),
      headers: z.object({
        "If-None-Match": z.enum(["*"]).optional().meta({
          description:
            "`*`: create the alias only if no index or alias has the name (else 409, nothing written).",
        }),
      }),
      body: body(PutAlias),
    },
    responses: {
      200: { description: "The alias.", headers: ETAG, content: json(IndexViewSchema) },
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      404: errorAnswer("The target index does not exist."),
      409: errorAnswer("An index has the alias's name, or the alias exists and If-None-Match is *."),
      413: limits.json,
      422: errorAnswer("Invalid alias name or body, or the target is an alias."),
      507: E507,
    },
  }),
];
