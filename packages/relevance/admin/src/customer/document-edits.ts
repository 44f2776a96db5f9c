/**
 * Meilisearch's calls on single documents and deletions: `GET`/`DELETE …/documents/{id}`,
 * `POST …/documents/delete-batch`, `POST …/documents/delete` (by filter: not supported, 422) and
 * `DELETE …/documents` (all), through aliases as the upload is. With an index manager each write
 * is its task; without one the document store is changed at once.
 */

import { createRoute } from "@hono/zod-openapi";
import type { EditableDocumentStore } from "@relevance/settings";
import { ApiError, invalid } from "@shared/http";
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { CustomerEnv } from "../auth.ts";
import { parseWith, readJson } from "../body.ts";
import { validateDocuments } from "../documents.ts";
import { backendReadFailed, taskFields } from "../index-documents.ts";
import { MAX_DOCUMENT_ID_CHARS } from "../limits.ts";
import {
  DeleteBatchBody,
  DeleteByFilterBody,
  DocumentQuery,
  DocumentTask,
  FieldsList,
  fieldsAsked,
} from "../management-schemas.ts";
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
  pathParam,
} from "../openapi-parts.ts";
import type { Document, DocumentStore, TaskSummary } from "../ports.ts";
import { recordName } from "../records.ts";
import { CUSTOMER_BASE, type CustomerContext } from "./context.ts";

const DOCUMENT_ID = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_DOCUMENT_ID_CHARS}}$`);

/** What the embedded engine cannot do on documents: a 422 naming the field, never a silent ignore. */
export function filterNotSupported(): ApiError {
  return new ApiError(422, "not_supported", "document filters are not supported by this API", [
    {
      path: "filter",
      message:
        "selecting documents by filter is not supported; read them a page at a time and delete them by id (POST …/documents/delete-batch)",
    },
  ]);
}

/** `fields` of a query (comma-separated) checked against its bounds; null for every field. */
export function checkedFields(raw: string | undefined): string[] | null {
  const asked = fieldsAsked(raw);
  if (asked === null) return null;
  return parseWith(z.object({ fields: FieldsList }), { fields: asked }, "the query is invalid").fields;
}

/** `document` with only the top-level `fields` it has. */
export function pick(document: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const field of fields) if (Object.hasOwn(document, field)) kept[field] = document[field];
  return kept;
}

/** Each document text cut to `fields`. */
export async function* projected(
  texts: AsyncIterable<string>,
  fields: readonly string[],
): AsyncGenerator<string> {
  for await (const text of texts)
    yield JSON.stringify(pick(JSON.parse(text) as Record<string, unknown>, fields));
}

/** A store that can read and delete documents by id (SqliteDocumentStore is one). */
function editable(store: DocumentStore): EditableDocumentStore {
  const maybe = store as Partial<EditableDocumentStore>;
  if (typeof maybe.getMany === "function" && typeof maybe.deleteMany === "function")
    return store as EditableDocumentStore;
  throw new ApiError(422, "not_supported", "this deployment's document store cannot read or delete by id", [
    { path: "id", message: "not supported by this document store" },
  ]);
}

/**
 * A partial update applied to the stored documents (a store without an index manager): each
 * document's top-level fields over the stored one, later ones of the batch over earlier ones. A
 * merged document over a per-document limit refuses the batch (422 naming it), nothing stored.
 */
export async function mergedDocuments(
  store: DocumentStore,
  accountId: string,
  index: string,
  primaryKey: string,
  docs: readonly Document[],
): Promise<Document[]> {
  const ids = docs.map((doc) => String(doc[primaryKey]));
  const stored = await editable(store).getMany(accountId, index, [...new Set(ids)]);
  const merged = new Map<string, Document>();
  docs.forEach((doc, i) => {
    const id = ids[i] as string;
    merged.set(id, { ...(merged.get(id) ?? stored.get(id) ?? {}), ...doc });
  });
  const result = [...merged.values()];
  const check = validateDocuments(result, primaryKey);
  const over = check.ok ? check.rejected : [];
  if (over.length > 0) {
    throw invalid(
      "a merged document is over a per-document limit; nothing was stored",
      over.map((r) => ({ path: `id ${String(r.id)}`, message: r.reason })),
    );
  }
  return result;
}

const notFound = (id: string) => new ApiError(404, "document_not_found", `Document \`${id}\` not found.`);

/** The id of the path: Meilisearch's document id rule (a number is its digits). */
function pathId(c: Context<CustomerEnv>): string {
  const id = c.req.param("id") ?? "";
  if (!DOCUMENT_ID.test(id)) {
    throw invalid("the document id is invalid", [
      { path: "id", message: `must be 1 to ${MAX_DOCUMENT_ID_CHARS} characters of A-Z, a-z, 0-9, _ and -` },
    ]);
  }
  return id;
}

export function documentEditRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { deps, target, account, uidOf, handOn, documentIndex } = ctx;
  const { log } = deps;
  const app = new Hono<CustomerEnv>();
  const base = `${CUSTOMER_BASE}/indexes/:name/documents`;

  /** Deletes by id (or all), as a task of the index manager or at once in the store. */
  const remove = async (c: Context<CustomerEnv>, ids: readonly (string | number)[] | "all") => {
    const index = await documentIndex(c);
    const name = recordName(index);
    let task: TaskSummary | undefined;
    if (target.kind === "store") {
      if (ids === "all") await target.documents.deleteIndex(account(c), name);
      else if (ids.length > 0) await editable(target.documents).deleteMany(account(c), name, ids.map(String));
    } else {
      const { backend } = target;
      task = await handOn(c, "document deletion", "no document was deleted", () =>
        ids === "all"
          ? backend.deleteAllDocuments(uidOf(c, name))
          : backend.deleteDocuments(uidOf(c, name), ids),
      );
    }
    return c.json(taskFields(task), 202);
  };

  app.get(`${base}/:id`, async (c) => {
    const index = await documentIndex(c);
    const id = pathId(c);
    const fields = checkedFields(parseWith(DocumentQuery, c.req.query(), "the query is invalid").fields);
    let document: Record<string, unknown> | null;
    if (target.kind === "backend") {
      document = await target.backend.getDocument(uidOf(c, recordName(index)), id).catch((error: unknown) => {
        // An index whose creation task has not run yet holds no document.
        if ((error as { error?: { code?: unknown } }).error?.code === "index_not_found") return null;
        throw backendReadFailed(log, "document", error);
      });
    } else {
      document =
        (await editable(target.documents).getMany(account(c), recordName(index), [id])).get(id) ?? null;
    }
    if (document === null) throw notFound(id);
    return c.json(fields === null ? document : pick(document, fields));
  });

  app.delete(`${base}/:id`, async (c) => remove(c, [pathId(c)]));

  app.post(`${base}/delete-batch`, async (c) => {
    const ids = parseWith(DeleteBatchBody, await readJson(c, 400), "the ids are invalid");
    return remove(c, ids);
  });

  app.post(`${base}/delete`, async (c) => {
    await documentIndex(c);
    parseWith(DeleteByFilterBody, await readJson(c, 400), "the body is invalid");
    throw filterNotSupported();
  });

  app.delete(base, async (c) => remove(c, "all"));

  return app;
}

const IdParams = NameParams.extend({
  id: pathParam(
    `The document's primary key value: 1 to ${MAX_DOCUMENT_ID_CHARS} characters of A-Z, a-z, 0-9, _ and -.`,
  ),
});
const TASK_ANSWER = {
  description:
    "Accepted: with an index manager the task (follow it with GET /api/v1/tasks/{uid}); without one the documents are already deleted and the body is {}.",
  content: json(DocumentTask),
};

/** The routes above as the OpenAPI document lists them. */
export const documentEditRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "get",
    path: "/api/v1/indexes/{name}/documents/{id}",
    ...CUSTOMER,
    summary: "One document by its primary key (an alias reads its index), as Meilisearch's.",
    request: { params: IdParams, query: DocumentQuery },
    responses: {
      200: { description: "The document.", content: json(z.record(z.string(), z.unknown())) },
      ...AUTHENTICATED,
      404: errorAnswer(
        "No such index or alias (index_not_found... as other routes), or no such document (document_not_found).",
      ),
      422: errorAnswer("Invalid id, or fields over their bounds."),
      502: E502_BACKEND,
    },
  }),
  createRoute({
    method: "delete",
    path: "/api/v1/indexes/{name}/documents/{id}",
    ...CUSTOMER,
    summary: "Delete one document by its primary key (an unknown id is not an error).",
    request: { params: IdParams },
    responses: {
      202: TASK_ANSWER,
      ...AUTHENTICATED,
      404: E404_INDEX,
      422: errorAnswer("Invalid id."),
      502: E502_BACKEND,
      507: E507,
    },
  }),
  createRoute({
    method: "post",
    path: "/api/v1/indexes/{name}/documents/delete-batch",
    ...CUSTOMER,
    summary: "Delete documents by their ids (Meilisearch's delete-batch; unknown ids are not an error).",
    request: { params: NameParams, body: body(DeleteBatchBody) },
    responses: {
      202: TASK_ANSWER,
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      404: E404_INDEX,
      413: limits.json,
      422: errorAnswer("Not an array of ids, an invalid id, or more ids than the limit; nothing deleted."),
      502: E502_BACKEND,
      507: E507,
    },
  }),
  createRoute({
    method: "post",
    path: "/api/v1/indexes/{name}/documents/delete",
    ...CUSTOMER,
    summary: "Meilisearch's delete by filter: not supported (422 naming filter, nothing deleted).",
    request: { params: NameParams, body: body(DeleteByFilterBody) },
    responses: {
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      404: E404_INDEX,
      413: limits.json,
      422: errorAnswer("Always: code not_supported, details name filter."),
    },
  }),
  createRoute({
    method: "delete",
    path: "/api/v1/indexes/{name}/documents",
    ...CUSTOMER,
    summary: "Delete every document of the index (its settings stay).",
    request: { params: NameParams },
    responses: {
      202: TASK_ANSWER,
      ...AUTHENTICATED,
      404: E404_INDEX,
      502: E502_BACKEND,
      507: E507,
    },
  }),
];
