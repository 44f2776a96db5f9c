/**
 * What every customer route shares: the caller's account, where its writes go, how a write is
 * handed on to the index manager, and how a named index or alias is found (docs/api.md).
 */
import type { TableItem } from "@relevance/settings";
import { ApiError, notFound, STORAGE_FULL_CODE, storageFullCause, storageFullError } from "@shared/http";
import { errorMessage } from "@shared/kernel";
import type { Context } from "hono";
import type { CustomerEnv } from "../auth.ts";
import {
  backendIndexDocuments,
  customerTask,
  type IndexDocuments,
  storeDocuments,
} from "../index-documents.ts";
import type { CustomerDeps, DocumentStore, IndexBackend, TaskSummary } from "../ports.ts";
import { findRecord, isAlias, recordName } from "../records.ts";

export const CUSTOMER_BASE = "/api/v1";
export const WRITE_ATTEMPTS = 5;
export const DEFAULT_PRIMARY_KEY = "id";

/** Where documents go: the backend when the deployment has one (it then holds them), else the store. */
export type DocumentsTarget =
  | { kind: "store"; documents: DocumentStore }
  | { kind: "backend"; backend: IndexBackend };

export interface CustomerContext {
  deps: CustomerDeps;
  target: DocumentsTarget;
  /** Where documents, counts and stats are read. */
  indexDocuments: IndexDocuments;
  account(c: Context<CustomerEnv>): string;
  /** The search backend's index uid of one of the caller's indexes. */
  uidOf(c: Context<CustomerEnv>, name: string): string;
  /**
   * Hands a write on to the index manager (after the settings table). When it refuses or cannot be
   * reached the answer is 502: the caller's write is then in the table but not in the backend. A
   * full disk answers 507, whether the manager refused the write or (waited for) its task failed
   * on it: `notStored` says what became of the write.
   */
  handOn(
    c: Context<CustomerEnv>,
    what: string,
    notStored: string,
    send: () => Promise<TaskSummary>,
  ): Promise<TaskSummary>;
  /** The named index or alias of the caller's account; another account's answers 404 like a missing one. */
  record(c: Context<CustomerEnv>): Promise<TableItem>;
  /** The index that holds the documents: the record itself, or the index an alias points at. */
  documentIndex(c: Context<CustomerEnv>): Promise<TableItem>;
}

/** The customer's view of an index or alias record (the relevance config is internal and never shown). */
export function recordView(item: TableItem): Record<string, unknown> {
  const a = item.attributes;
  const times = { createdAt: a.created_at, updatedAt: a.updated_at };
  // `uid` is the name, as Meilisearch calls an index's name (the customer's API is index-name based).
  const name = recordName(item);
  return isAlias(item)
    ? { uid: name, name, type: "alias", index: a.alias_of, ...times }
    : { uid: name, name, type: "index", primaryKey: a.primary_key ?? DEFAULT_PRIMARY_KEY, ...times };
}

export function customerContext(deps: CustomerDeps): CustomerContext {
  const { table, log } = deps;
  // Writes go to the backend when there is one; reads to the store when there is one.
  const target = documentsTarget(deps);
  const indexDocuments: IndexDocuments =
    deps.documents !== undefined
      ? storeDocuments(deps.documents)
      : target.kind === "backend"
        ? backendIndexDocuments(target.backend, log)
        : storeDocuments(target.documents);
  const account = (c: Context<CustomerEnv>) => c.get("accountId");

  const handOn: CustomerContext["handOn"] = async (c, what, notStored, send) => {
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
        error: errorMessage(error),
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

  const record = async (c: Context<CustomerEnv>): Promise<TableItem> => {
    const item = await findRecord(table, account(c), c.req.param("name") ?? "");
    if (item === null) throw notFound("index not found");
    return item;
  };

  const documentIndex = async (c: Context<CustomerEnv>): Promise<TableItem> => {
    const item = await record(c);
    if (!isAlias(item)) return item;
    const pointed = await findRecord(table, account(c), String(item.attributes.alias_of ?? ""));
    if (pointed === null || isAlias(pointed))
      throw notFound("the alias points at an index that does not exist");
    return pointed;
  };

  return {
    deps,
    target,
    indexDocuments,
    account,
    uidOf: (c, name) => `${account(c)}-${name}`,
    handOn,
    record,
    documentIndex,
  };
}

function documentsTarget(deps: CustomerDeps): DocumentsTarget {
  if (deps.indexManager !== undefined) return { kind: "backend", backend: deps.indexManager };
  if (deps.documents !== undefined) return { kind: "store", documents: deps.documents };
  throw new Error("the customer app needs a document store or an index manager");
}
