import {
  INDEX_NAME,
  INDEX_PREFIX,
  type IndexSettingsAttributes,
  indexSk,
  MAX_DOCUMENTS_PER_INDEX,
  type TableItem,
} from "@relevance/settings";
import {
  ApiError,
  conflict,
  invalid,
  limitBody,
  notFound,
  onError,
  routeFallback,
  STORAGE_FULL_CODE,
  storageFullCause,
  storageFullError,
} from "@shared/http";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { stream } from "hono/streaming";
import { z } from "zod";
import { authGuard, type CustomerEnv, customerAuth } from "./auth.ts";
import { parseWith, readJson } from "./body.ts";
import { validateDocuments } from "./documents.ts";
import {
  backendIndexDocuments,
  backendReadFailed,
  boundedPage,
  customerTask,
  type IndexDocuments,
  storeDocuments,
  taskFields,
} from "./index-documents.ts";
import { MAX_DOCUMENTS_PER_BATCH, MAX_PAGE_LIMIT, resolveBodyLimits } from "./limits.ts";
import type { CustomerDeps, DocumentStore, IndexBackend, TaskSummary } from "./ports.ts";
import { type Attempt, etag, findRecord, isAlias, recordName, retryOnConflict } from "./records.ts";
import {
  applySettingsPatch,
  customerSettings,
  INTERNAL_SETTINGS,
  mergedSettingsProblem,
  settingsSizeProblem,
  validateSettingsPatch,
} from "./settings-mapping.ts";
import { parseIfMatch } from "./trigger-config.ts";

export const CUSTOMER_BASE = "/api/v1";
const WRITE_ATTEMPTS = 5;
const DEFAULT_PRIMARY_KEY = "id";
/** The documents upload's path (`POST …/indexes/{name}/documents`), which has its own body limit. */
const DOCUMENTS_PATH = /^\/api\/v1\/indexes\/[^/]+\/documents$/;

const Name = z.string().regex(INDEX_NAME, "must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -");
const CreateIndex = z.strictObject({
  name: Name,
  primaryKey: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -")
    .optional(),
});
const PutAlias = z.strictObject({ index: Name });
const Page = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
});

/** The customer's view of an index or alias record (the relevance config is internal and never shown). */
function recordView(item: TableItem): Record<string, unknown> {
  const a = item.attributes;
  const times = { createdAt: a.created_at, updatedAt: a.updated_at };
  // `uid` is the name, as Meilisearch calls an index's name (the customer's API is index-name based).
  const name = recordName(item);
  return isAlias(item)
    ? { uid: name, name, type: "alias", index: a.alias_of, ...times }
    : { uid: name, name, type: "index", primaryKey: a.primary_key ?? DEFAULT_PRIMARY_KEY, ...times };
}

/** The customer management API (`x-api-key`): indexes, documents, settings and aliases of one account. */
export function createCustomerApp(deps: CustomerDeps): Hono<CustomerEnv> {
  const { table, log, now } = deps;
  // Writes go to the backend when there is one; reads to the store when there is one.
  const target = documentsTarget(deps);
  const indexDocuments: IndexDocuments =
    deps.documents !== undefined
      ? storeDocuments(deps.documents)
      : target.kind === "backend"
        ? backendIndexDocuments(target.backend, log)
        : storeDocuments(target.documents);
  const limits = resolveBodyLimits(deps.limits);
  const app = new Hono<CustomerEnv>();
  app.onError(onError(log));
  // routeFallback only reads the routes table, which does not depend on the app's variables.
  app.notFound(routeFallback(app as unknown as Hono));
  const auth = customerAuth(table, authGuard(deps));
  // Every customer route has a body limit (after authentication, so an unknown client cannot make
  // the app buffer a chunked body): the documents upload its own, every other route the JSON one.
  const jsonLimit = limitBody(limits.jsonBodyBytes);
  const documentsLimit = limitBody(limits.documentsBodyBytes);
  const bodyLimit: MiddlewareHandler<CustomerEnv> = (c, next) =>
    c.req.method === "POST" && DOCUMENTS_PATH.test(c.req.path) ? documentsLimit(c, next) : jsonLimit(c, next);
  for (const path of [
    `${CUSTOMER_BASE}/indexes`,
    `${CUSTOMER_BASE}/indexes/*`,
    `${CUSTOMER_BASE}/aliases/*`,
    `${CUSTOMER_BASE}/tasks/*`,
  ]) {
    app.use(path, auth, bodyLimit);
  }

  const account = (c: Context<CustomerEnv>) => c.get("accountId");
  /** The search backend's index uid of one of the caller's indexes. */
  const uidOf = (c: Context<CustomerEnv>, name: string) => `${account(c)}-${name}`;

  /**
   * Hands a write on to the index manager (after the settings table). When it refuses or cannot be
   * reached the answer is 502: the caller's write is then in the table but not in the backend. A
   * full disk answers 507, whether the manager refused the write or (waited for) its task failed
   * on it: `notStored` says what became of the write.
   */
  const handOn = async (
    c: Context<CustomerEnv>,
    what: string,
    notStored: string,
    send: () => Promise<TaskSummary>,
  ): Promise<TaskSummary> => {
    let summary: TaskSummary;
    try {
      summary = await send();
    } catch (error) {
      const full = storageFullCause(error);
      if (full !== null) {
        log.error("storage full: the index manager refused a write", {
          account: account(c),
          write: what,
          cause: full,
        });
        throw storageFullError(notStored);
      }
      log.error("index manager refused a write", {
        account: account(c),
        write: what,
        error: error instanceof Error ? error.message : String(error),
      });
      throw new ApiError(502, "backend_unavailable", `the search backend did not take the ${what}; retry`);
    }
    if (deps.awaitTasks === undefined || target.kind !== "backend") return customerTask(summary, account(c));
    // Waited for (the embedded stack): the answer says how the write ended.
    const done = await target.backend
      .waitForTask(summary.taskUid, { timeoutMs: deps.awaitTasks.timeoutMs, accountId: account(c) })
      .catch(() => null);
    if (done?.status === "failed") {
      log.warn("index task failed", {
        account: account(c),
        write: what,
        taskUid: summary.taskUid,
        error: done.error?.message,
      });
      if (done.error?.code === STORAGE_FULL_CODE)
        throw storageFullError(`${notStored} (task ${summary.taskUid} failed)`);
    }
    return customerTask({ ...summary, status: done?.status ?? summary.status }, account(c));
  };

  /** The named index or alias of the caller's account; another account's answers 404 like a missing one. */
  const record = async (c: Context<CustomerEnv>): Promise<TableItem> => {
    const item = await findRecord(table, account(c), c.req.param("name") ?? "");
    if (item === null) throw notFound("index not found");
    return item;
  };

  /** The index that holds the documents: the record itself, or the index an alias points at. */
  const documentIndex = async (c: Context<CustomerEnv>): Promise<TableItem> => {
    const item = await record(c);
    if (!isAlias(item)) return item;
    const target = await findRecord(table, account(c), String(item.attributes.alias_of ?? ""));
    if (target === null || isAlias(target))
      throw notFound("the alias points at an index that does not exist");
    return target;
  };

  // Meilisearch's `GET /indexes` page: `{results, offset, limit, total}`, by name.
  app.get(`${CUSTOMER_BASE}/indexes`, async (c) => {
    const { offset, limit } = parseWith(Page, c.req.query(), "the query is invalid");
    const items = await table.query(account(c), INDEX_PREFIX);
    return c.json({
      results: items.slice(offset, offset + limit).map(recordView),
      offset,
      limit,
      total: items.length,
    });
  });

  app.post(`${CUSTOMER_BASE}/indexes`, async (c) => {
    const body = parseWith(CreateIndex, nameFromUid(await readJson(c, 400)), "the index is invalid");
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

  app.get(`${CUSTOMER_BASE}/indexes/:name/settings`, async (c) => {
    const item = await record(c);
    c.header("ETag", etag(item.version));
    return c.json(customerSettings(item.attributes));
  });

  app.patch(`${CUSTOMER_BASE}/indexes/:name/settings`, async (c) => {
    const input = await readJson(c, 400);
    const internal = INTERNAL_SETTINGS.filter(
      (key) => typeof input === "object" && input !== null && Object.hasOwn(input, key),
    );
    if (internal.length > 0) {
      throw invalid(
        "the relevance trigger config is internal and cannot be changed here",
        internal.map((key) => ({ path: key, message: "is an internal setting" })),
      );
    }
    const checked = validateSettingsPatch(input);
    if (!checked.ok) throw invalid("the settings are invalid", checked.errors);
    const patch = checked.value;
    const ifMatch = parseIfMatch(c.req.header("if-match"));
    if (ifMatch === "invalid") {
      throw invalid("the If-Match header is invalid", [
        { path: "If-Match", message: 'must be a version such as "3"' },
      ]);
    }
    const first = await record(c);
    if (typeof ifMatch === "number" && ifMatch !== first.version) {
      throw conflict(`the settings changed since version ${ifMatch} was read; read them again and retry`);
    }
    // With If-Match the caller's read is the one that counts: one attempt. Otherwise retry a few times.
    let current: TableItem | null = first;
    const written = await retryOnConflict(typeof ifMatch === "number" ? 1 : WRITE_ATTEMPTS, async () => {
      current ??= await record(c);
      const attributes = {
        ...applySettingsPatch(current.attributes, patch),
        updated_at: now().toISOString(),
      };
      const view = customerSettings(attributes);
      const problem = settingsSizeProblem(view) ?? mergedSettingsProblem(view);
      if (problem !== null) throw invalid("the settings are invalid", [problem]);
      const result = await table.put(current.pk, current.sk, attributes, {
        expectedVersion: current.version,
      });
      current = null;
      return result.ok ? { done: result.item } : "conflict";
    });
    if (written === null) throw conflict("the settings kept changing concurrently; retry");
    const settings = customerSettings(written.attributes);
    c.header("ETag", etag(written.version));
    // An index's whole settings (not the patch), so a lost earlier update cannot leave the backend
    // behind. An alias has settings of its own but no backend index.
    if (target.kind === "store" || isAlias(written)) return c.json(settings);
    const { backend } = target;
    const task = await handOn(
      c,
      "settings",
      "the settings are saved, but the search backend could not store them",
      () => backend.updateSettings(uidOf(c, recordName(written)), settings),
    );
    return c.json({ ...settings, ...taskFields(task) });
  });

  // Meilisearch's `GET /tasks/{uid}`, for the tasks of the caller's own indexes (another account's
  // answers 404 like a missing one). Without a backend there are no tasks: writes are synchronous.
  app.get(`${CUSTOMER_BASE}/tasks/:uid`, async (c) => {
    const raw = c.req.param("uid");
    const missing = () => new ApiError(404, "task_not_found", `Task \`${raw}\` not found.`);
    if (target.kind === "store" || !/^\d{1,15}$/.test(raw)) throw missing();
    // Task uids count per account: the account's own task, never another's with the same number.
    const task = await target.backend
      .getTask(Number(raw), { accountId: account(c) })
      .catch((error: unknown) => {
        throw backendReadFailed(log, "task", error);
      });
    if (task === null || !task.indexUid.startsWith(`${account(c)}-`)) throw missing();
    return c.json(customerTask(task, account(c)));
  });

  app.put(`${CUSTOMER_BASE}/aliases/:alias`, async (c) => {
    const alias = c.req.param("alias");
    if (!INDEX_NAME.test(alias)) {
      throw invalid("the alias name is invalid", [
        { path: "alias", message: "must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -" },
      ]);
    }
    const { index } = parseWith(PutAlias, await readJson(c, 400), "the alias is invalid");
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

/** `{uid, ...}` (what Meilisearch's clients send to create an index) read as `{name, ...}`. */
function nameFromUid(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const { uid, ...rest } = input as Record<string, unknown>;
  return uid === undefined || Object.hasOwn(rest, "name") ? input : { ...rest, name: uid };
}

/** Where documents go: the backend when the deployment has one (it then holds them), else the store. */
function documentsTarget(
  deps: CustomerDeps,
): { kind: "store"; documents: DocumentStore } | { kind: "backend"; backend: IndexBackend } {
  if (deps.indexManager !== undefined) return { kind: "backend", backend: deps.indexManager };
  if (deps.documents !== undefined) return { kind: "store", documents: deps.documents };
  throw new Error("the customer app needs a document store or an index manager");
}
