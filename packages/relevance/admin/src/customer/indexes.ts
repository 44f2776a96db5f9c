/** The caller's indexes: list, create, read, stats and delete (Meilisearch's `/indexes` routes). */

import { createRoute } from "@hono/zod-openapi";
import { allowsIndex, INDEX_PREFIX, type IndexSettingsAttributes, indexSk } from "@relevance/settings";
import { conflict } from "@shared/http";
import { Hono } from "hono";
import type { CustomerEnv } from "../auth.ts";
import { parseWith, readJson } from "../body.ts";
import { taskFields } from "../index-documents.ts";
import { requireIndex } from "../key-scope.ts";
import {
  AUTHENTICATED,
  type BodyLimitAnswers,
  body,
  CUSTOMER,
  E404_INDEX,
  E502_BACKEND,
  E507,
  errorAnswer,
  json,
  NameParams,
} from "../openapi-parts.ts";
import type { TaskSummary } from "../ports.ts";
import { isAlias, recordName } from "../records.ts";
import {
  CreateIndex,
  CreateIndexBody,
  Deleted,
  IndexPage,
  IndexStats,
  IndexViewSchema,
  Page,
} from "../schemas.ts";
import { CUSTOMER_BASE, type CustomerContext, DEFAULT_PRIMARY_KEY, recordView } from "./context.ts";

export function indexRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { deps, target, indexDocuments, account, uidOf, handOn, record, documentIndex } = ctx;
  const { table, now } = deps;
  const app = new Hono<CustomerEnv>();

  // Meilisearch's `GET /indexes` page: `{results, offset, limit, total}`, by name.
  app.get(`${CUSTOMER_BASE}/indexes`, async (c) => {
    const { offset, limit } = parseWith(Page, c.req.query(), "the query is invalid");
    // As Meilisearch: a key sees the indexes its `indexes` cover, and only those count.
    const grant = c.get("grant");
    const items = (await table.query(account(c), INDEX_PREFIX)).filter((item) =>
      allowsIndex(grant, recordName(item)),
    );
    return c.json({
      results: items.slice(offset, offset + limit).map(recordView),
      offset,
      limit,
      total: items.length,
    });
  });

  app.post(`${CUSTOMER_BASE}/indexes`, async (c) => {
    const body = parseWith(CreateIndex, nameFromUid(await readJson(c, 400)), "the index is invalid");
    requireIndex(c, body.name, "indexes.create");
    const at = now().toISOString();
    const attributes: IndexSettingsAttributes = {
      type: "index",
      primary_key: body.primaryKey ?? DEFAULT_PRIMARY_KEY,
      created_at: at,
      updated_at: at,
    };
    const written = await table.put(
      account(c),
      indexSk(body.name),
      { ...attributes },
      { mustNotExist: true },
    );
    if (!written.ok) throw conflict(`an index or alias named ${body.name} already exists`);
    if (target.kind === "store") return c.json(recordView(written.item), 201);
    const { backend } = target;
    let task: TaskSummary;
    try {
      task = await handOn(c, "index creation", "the index was not created", () =>
        backend.createIndex(uidOf(c, body.name), { primaryKey: attributes.primary_key }),
      );
    } catch (error) {
      // No record without its index: the creation can simply be retried.
      await table.delete(account(c), written.item.sk, { expectedVersion: written.item.version });
      throw error;
    }
    // The task's fields first: the record's own `type` (index) wins over the task's.
    return c.json({ ...taskFields(task), ...recordView(written.item) }, 201);
  });

  app.get(`${CUSTOMER_BASE}/indexes/:name`, async (c) => {
    const item = await record(c);
    if (isAlias(item)) return c.json(recordView(item));
    return c.json({
      ...recordView(item),
      numberOfDocuments: await indexDocuments.count(account(c), recordName(item)),
    });
  });

  // Meilisearch's `GET /indexes/{uid}/stats` (an alias answers its index's).
  app.get(`${CUSTOMER_BASE}/indexes/:name/stats`, async (c) => {
    const index = await documentIndex(c);
    return c.json(await indexDocuments.stats(account(c), recordName(index)));
  });

  app.delete(`${CUSTOMER_BASE}/indexes/:name`, async (c) => {
    const item = await record(c);
    const name = recordName(item);
    if (!isAlias(item)) {
      const aliases = (await table.query(account(c), INDEX_PREFIX)).filter(
        (other) => isAlias(other) && other.attributes.alias_of === name,
      );
      if (aliases.length > 0) {
        throw conflict(
          `aliases point at this index (${aliases.map(recordName).join(", ")}); re-point them first`,
        );
      }
    }
    const deleted = await table.delete(account(c), item.sk, { expectedVersion: item.version });
    if (!deleted.ok) throw conflict("the index changed while it was being deleted; retry");
    if (isAlias(item)) return c.json({ deleted: name });
    if (target.kind === "store") {
      await target.documents.deleteIndex(account(c), name);
      return c.json({ deleted: name });
    }
    const { backend } = target;
    const task = await handOn(
      c,
      "index deletion",
      "the index is deleted, but the search backend could not delete its documents",
      () => backend.deleteIndex(uidOf(c, name)),
    );
    // A store read directly may hold documents of an index its manager never knew (written before
    // the manager was added): they go too.
    if (deps.documents !== undefined && deps.awaitTasks !== undefined) {
      await deps.documents.deleteIndex(account(c), name);
    }
    return c.json({ deleted: name, ...taskFields(task) });
  });

  return app;
}

/** `{uid, ...}` (what Meilisearch's clients send to create an index) read as `{name, ...}`. */
function nameFromUid(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const { uid, ...rest } = input as Record<string, unknown>;
  return uid === undefined || Object.hasOwn(rest, "name") ? input : { ...rest, name: uid };
}

/** The routes above as the OpenAPI document lists them. */
export const indexRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "get",
    path: "/api/v1/indexes",
    ...CUSTOMER,
    summary: "List the account's indexes and aliases by name, a page at a time (Meilisearch's shape).",
    request: { query: Page },
    responses: {
      200: { description: "The records.", content: json(IndexPage) },
      ...AUTHENTICATED,
      422: errorAnswer("Invalid offset or limit."),
    },
  }),
  createRoute({
    method: "post",
    path: "/api/v1/indexes",
    ...CUSTOMER,
    summary: "Create an index.",
    request: { body: body(CreateIndexBody) },
    responses: {
      201: { description: "Created.", content: json(IndexViewSchema) },
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      409: errorAnswer("An index or alias with this name exists."),
      413: limits.json,
      422: errorAnswer("Invalid body."),
      502: E502_BACKEND,
      507: E507,
    },
  }),
  createRoute({
    method: "get",
    path: "/api/v1/indexes/{name}",
    ...CUSTOMER,
    summary: "One index or alias.",
    request: { params: NameParams },
    responses: {
      200: { description: "The record.", content: json(IndexViewSchema) },
      ...AUTHENTICATED,
      404: E404_INDEX,
    },
  }),
  createRoute({
    method: "delete",
    path: "/api/v1/indexes/{name}",
    ...CUSTOMER,
    summary: "Delete an index (its record and documents) or an alias record.",
    request: { params: NameParams },
    responses: {
      200: { description: "Deleted.", content: json(Deleted) },
      ...AUTHENTICATED,
      404: E404_INDEX,
      409: errorAnswer("Aliases point at the index, or it changed meanwhile."),
      502: E502_BACKEND,
      507: E507,
    },
  }),
  createRoute({
    method: "get",
    path: "/api/v1/indexes/{name}/stats",
    ...CUSTOMER,
    summary:
      "The index's statistics (an alias answers its index's), as Meilisearch's GET /indexes/{uid}/stats: " +
      "the number of documents and how many have each top-level field.",
    request: { params: NameParams },
    responses: {
      200: { description: "The statistics.", content: json(IndexStats) },
      ...AUTHENTICATED,
      404: E404_INDEX,
    },
  }),
];
