/** An index's documents: the upload (a batch checked per document) and the streamed page. */

import { createRoute } from "@hono/zod-openapi";
import { MAX_DOCUMENTS_PER_INDEX } from "@relevance/settings";
import { invalid } from "@shared/http";
import { type Context, Hono } from "hono";
import { stream } from "hono/streaming";
import type { CustomerEnv } from "../auth.ts";
import { parseWith, readJson } from "../body.ts";
import { validateDocuments } from "../documents.ts";
import { boundedPage, taskFields } from "../index-documents.ts";
import { MAX_DOCUMENTS_PER_BATCH } from "../limits.ts";
import { DocumentsFetchBody, DocumentsQuery, fieldsAsked } from "../management-schemas.ts";
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
import type { DocumentStore, TaskSummary } from "../ports.ts";
import { recordName } from "../records.ts";
import { DocumentsBody, DocumentsPage, DocumentsReceived } from "../schemas.ts";
import { CUSTOMER_BASE, type CustomerContext, DEFAULT_PRIMARY_KEY } from "./context.ts";
import { checkedFields, filterNotSupported, mergedDocuments, projected } from "./document-edits.ts";

export function documentRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { deps, indexDocuments, account, documentIndex } = ctx;
  const app = new Hono<CustomerEnv>();

  app.post(`${CUSTOMER_BASE}/indexes/:name/documents`, (c) => writeDocuments(ctx, c, "replace"));
  // Meilisearch's partial update: each document's top-level fields merged into the stored one.
  app.put(`${CUSTOMER_BASE}/indexes/:name/documents`, (c) => writeDocuments(ctx, c, "merge"));

  app.get(`${CUSTOMER_BASE}/indexes/:name/documents`, async (c) => {
    const index = await documentIndex(c);
    const query = parseWith(DocumentsQuery, c.req.query(), "the query is invalid");
    if (query.filter !== undefined) throw filterNotSupported();
    return answerPage(c, recordName(index), query.offset, query.limit, checkedFields(query.fields));
  });

  // What Meilisearch's clients send for getDocuments when it has a filter (or fields as a list).
  app.post(`${CUSTOMER_BASE}/indexes/:name/documents/fetch`, async (c) => {
    const index = await documentIndex(c);
    const input = parseWith(DocumentsFetchBody, await readJson(c, 400), "the body is invalid");
    if (input.filter !== undefined && input.filter !== null) throw filterNotSupported();
    return answerPage(c, recordName(index), input.offset, input.limit, fieldsAsked(input.fields));
  });

  /** A page of documents, each cut to `fields` when given: bounded on Lambda, else streamed. */
  const answerPage = async (
    c: Context<CustomerEnv>,
    name: string,
    offset: number,
    limit: number,
    fields: string[] | null,
  ) => {
    const page = indexDocuments.page(account(c), name, offset, limit);
    const texts = fields === null ? page.texts : projected(page.texts, fields);
    const closing = (total: number) => `],"offset":${offset},"limit":${limit},"total":${total}}`;
    if (deps.maxResponseBytes !== undefined) {
      // Bounded (Lambda): the whole page is read before answering, so an oversized one can be refused.
      const kept = await boundedPage(texts, deps.maxResponseBytes, 64);
      c.header("Content-Type", "application/json");
      return c.body(`{"results":[${kept.join(",")}${closing(await page.total())}`);
    }
    // Streamed a few documents at a time: a page of a thousand 100 KiB documents is 100 MB, which
    // must never sit in memory at once (docs/limits.md).
    c.header("Content-Type", "application/json");
    return stream(c, async (out) => {
      await out.write('{"results":[');
      let first = true;
      for await (const json of texts) {
        await out.write(first ? json : `,${json}`);
        first = false;
      }
      await out.write(closing(await page.total()));
    });
  };

  return app;
}

/**
 * `POST …/documents` (replace each document whole) and `PUT …/documents` (merge its top-level fields
 * into the stored one): the same checks, bounds and answer.
 */
async function writeDocuments(ctx: CustomerContext, c: Context<CustomerEnv>, mode: "replace" | "merge") {
  const { deps, target, account, uidOf, handOn, documentIndex } = ctx;
  const index = await documentIndex(c);
  const primaryKey = String(index.attributes.primary_key ?? DEFAULT_PRIMARY_KEY);
  // The shape (forbidden keys, nesting) is checked per document by validateDocuments: nesting is
  // a per-document limit there, which rejects one document rather than the batch.
  const input = await readJson(c, 400, { shape: false, maxItems: MAX_DOCUMENTS_PER_BATCH });
  const result = validateDocuments(input, primaryKey);
  if (!result.ok) {
    const more = result.total > result.errors.length ? ` (showing ${result.errors.length})` : "";
    throw invalid(`${result.total} problem(s) in the documents${more}`, result.errors);
  }
  let task: TaskSummary | undefined;
  if (result.docs.length > 0) {
    const docs = result.docs;
    const store = deps.documents ?? (target.kind === "store" ? target.documents : undefined);
    if (store !== undefined) await checkIndexRoom(store, account(c), recordName(index), primaryKey, docs);
    if (target.kind === "store") {
      const stored =
        mode === "merge"
          ? await mergedDocuments(target.documents, account(c), recordName(index), primaryKey, docs)
          : docs;
      await target.documents.upsert(account(c), recordName(index), primaryKey, stored);
    } else {
      const { backend } = target;
      task = await handOn(c, "documents", "the documents were not stored", () =>
        mode === "merge"
          ? backend.updateDocuments(uidOf(c, recordName(index)), docs, { primaryKey })
          : backend.addDocuments(uidOf(c, recordName(index)), docs, { primaryKey }),
      );
    }
  }
  // 202 even when every document is rejected: the batch was well formed and each document's
  // outcome is in the answer, as each would be a failed task in Meilisearch.
  return c.json(
    {
      received: (input as unknown[]).length,
      accepted: result.docs.length,
      rejected: result.rejected,
      ...taskFields(task),
    },
    202,
  );
}

/**
 * Refuses (422) a batch that would take an index this project stores past MAX_DOCUMENTS_PER_INDEX;
 * documents it replaces take no room. The count is kept by the store, so this reads no document.
 */
async function checkIndexRoom(
  store: DocumentStore,
  accountId: string,
  index: string,
  primaryKey: string,
  docs: readonly Record<string, unknown>[],
): Promise<void> {
  const held = await store.count(accountId, index);
  if (held + docs.length <= MAX_DOCUMENTS_PER_INDEX) return;
  const ids = [...new Set(docs.map((doc) => String(doc[primaryKey])))];
  const replaced = store.countIds === undefined ? 0 : await store.countIds(accountId, index, ids);
  const after = held + ids.length - replaced;
  if (after <= MAX_DOCUMENTS_PER_INDEX) return;
  throw invalid(`the index would hold more than the limit of ${MAX_DOCUMENTS_PER_INDEX} documents`, [
    {
      path: "",
      message: `would take the index from ${held} to ${after} documents, more than the limit of ${MAX_DOCUMENTS_PER_INDEX} per index; nothing was stored`,
    },
  ]);
}

/** The routes above as the OpenAPI document lists them. */
export const documentRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "post",
    path: "/api/v1/indexes/{name}/documents",
    ...CUSTOMER,
    summary:
      "Add or replace documents by primary key (an alias writes to its index). Documents over a " +
      "per-document limit are rejected with their reason; the others are stored.",
    request: { params: NameParams, body: body(DocumentsBody) },
    responses: {
      202: {
        description:
          "The batch was well formed: `accepted` documents are stored; `rejected` lists those over a " +
          "per-document limit (also when none was stored); received - accepted is how many were rejected.",
        content: json(DocumentsReceived),
      },
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      404: E404_INDEX,
      413: limits.documents,
      422: errorAnswer(
        "Not an array of objects, a primary key missing or invalid, or a key named __proto__, " +
          "constructor or prototype (details name e.g. [3].id); nothing is stored.",
      ),
      502: E502_BACKEND,
      507: E507,
    },
  }),
  createRoute({
    method: "get",
    path: "/api/v1/indexes/{name}/documents",
    ...CUSTOMER,
    summary:
      "Documents in a stable order: primary-key order in the embedded stack, Meilisearch's own order " +
      "where Meilisearch holds them.",
    request: { params: NameParams, query: DocumentsQuery },
    responses: {
      200: { description: "A page, each document cut to `fields` when given.", content: json(DocumentsPage) },
      ...AUTHENTICATED,
      404: E404_INDEX,
      422: errorAnswer(
        "Invalid offset, limit or fields, a filter (not supported: code not_supported, details name " +
          "filter), or (where the deployment bounds a response, as on Lambda) a page over the response " +
          "limit: code response_too_large, details name limit and a limit that fits.",
      ),
      502: E502_BACKEND,
    },
  }),
  createRoute({
    method: "put",
    path: "/api/v1/indexes/{name}/documents",
    ...CUSTOMER,
    summary:
      "Add documents or merge their top-level fields into the stored ones (Meilisearch's partial " +
      "update); the same checks and answer as the POST.",
    request: { params: NameParams, body: body(DocumentsBody) },
    responses: {
      202: { description: "As the POST's.", content: json(DocumentsReceived) },
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      404: E404_INDEX,
      413: limits.documents,
      422: errorAnswer(
        "As the POST's; without an index manager also a merged document over a per-document limit.",
      ),
      502: E502_BACKEND,
      507: E507,
    },
  }),
  createRoute({
    method: "post",
    path: "/api/v1/indexes/{name}/documents/fetch",
    ...CUSTOMER,
    summary:
      "A page of documents as GET …/documents, the parameters in the body (what Meilisearch's clients " +
      "send when getDocuments has a filter).",
    request: { params: NameParams, body: body(DocumentsFetchBody) },
    responses: {
      200: { description: "A page.", content: json(DocumentsPage) },
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      404: E404_INDEX,
      413: limits.json,
      422: errorAnswer("Invalid offset, limit or fields, or a filter (not supported: details name filter)."),
      502: E502_BACKEND,
    },
  }),
];
