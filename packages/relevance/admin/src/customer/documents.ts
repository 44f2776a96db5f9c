/** An index's documents: the upload (a batch checked per document) and the streamed page. */
import { MAX_DOCUMENTS_PER_INDEX } from "@relevance/settings";
import { invalid } from "@shared/http";
import { Hono } from "hono";
import { stream } from "hono/streaming";
import type { CustomerEnv } from "../auth.ts";
import { parseWith, readJson } from "../body.ts";
import { validateDocuments } from "../documents.ts";
import { boundedPage, taskFields } from "../index-documents.ts";
import { MAX_DOCUMENTS_PER_BATCH } from "../limits.ts";
import type { DocumentStore, TaskSummary } from "../ports.ts";
import { recordName } from "../records.ts";
import { CUSTOMER_BASE, type CustomerContext, DEFAULT_PRIMARY_KEY } from "./context.ts";
import { Page } from "./schemas.ts";

export function documentRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { deps, target, indexDocuments, account, uidOf, handOn, documentIndex } = ctx;
  const app = new Hono<CustomerEnv>();

  app.post(`${CUSTOMER_BASE}/indexes/:name/documents`, async (c) => {
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
        await target.documents.upsert(account(c), recordName(index), primaryKey, docs);
      } else {
        const { backend } = target;
        task = await handOn(c, "documents", "the documents were not stored", () =>
          backend.addDocuments(uidOf(c, recordName(index)), docs, { primaryKey }),
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
  });

  app.get(`${CUSTOMER_BASE}/indexes/:name/documents`, async (c) => {
    const index = await documentIndex(c);
    const { offset, limit } = parseWith(Page, c.req.query(), "the query is invalid");
    const page = indexDocuments.page(account(c), recordName(index), offset, limit);
    const closing = (total: number) => `],"offset":${offset},"limit":${limit},"total":${total}}`;
    if (deps.maxResponseBytes !== undefined) {
      // Bounded (Lambda): the whole page is read before answering, so an oversized one can be refused.
      const texts = await boundedPage(page.texts, deps.maxResponseBytes, 64);
      c.header("Content-Type", "application/json");
      return c.body(`{"results":[${texts.join(",")}${closing(await page.total())}`);
    }
    // Streamed a few documents at a time: a page of a thousand 100 KiB documents is 100 MB, which
    // must never sit in memory at once (docs/limits.md).
    c.header("Content-Type", "application/json");
    return stream(c, async (out) => {
      await out.write('{"results":[');
      let first = true;
      for await (const json of page.texts) {
        await out.write(first ? json : `,${json}`);
        first = false;
      }
      await out.write(closing(await page.total()));
    });
  });

  return app;
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
