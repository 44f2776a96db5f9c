// The IndexManager port over Meilisearch, through the official `meilisearch` client. One
// Meilisearch index per customer index (uid `<systemAccountId>-<index>`, `indexUidOf`). Redirects
// are never followed (the key would go with them) and every request has a timeout.
// docs/search.md, "Index management".

import { errorMessage } from "@shared/kernel";
import {
  type EnqueuedTask,
  Meilisearch,
  MeilisearchApiError,
  MeilisearchRequestError,
  MeilisearchRequestTimeOutError,
  MeilisearchTaskTimeOutError,
  type Task as MeiliTask,
} from "meilisearch";
import {
  accountOfIndexUid,
  type DocumentId,
  type DocumentsPage,
  type IndexInfo,
  type IndexManager,
  IndexManagerError,
  type IndexPage,
  type IndexSettings,
  type IndexStats,
  type SettingsUpdate,
  type Task,
  type TaskError,
  type TaskPage,
  type TaskQuery,
  type TaskScope,
  type TaskStatus,
  type TaskSummary,
  type TaskType,
  taskError,
  type WaitOptions,
} from "../index-manager.ts";
import { DEFAULT_RANKING_RULES, DEFAULT_TYPO_TOLERANCE } from "../settings-copy.ts";
import { asMeilisearchError } from "./errors.ts";

export interface MeilisearchIndexManagerOptions {
  /** Base URL of the Meilisearch instance. */
  url: string;
  /** A key with the indexes, documents, settings, stats and tasks actions (from Secrets Manager / Worker secrets). Empty: no header. */
  apiKey: string;
  /** Each request must finish within this. Default 5000 ms. */
  timeoutMs?: number;
}

export const DEFAULT_INDEX_MANAGER_TIMEOUT_MS = 5000;

export class MeilisearchIndexManager implements IndexManager {
  private readonly client: Meilisearch;
  private readonly timeoutMs: number;

  constructor(options: MeilisearchIndexManagerOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_INDEX_MANAGER_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new RangeError("timeoutMs must be above 0");
    this.client = new Meilisearch({
      host: options.url,
      ...(options.apiKey === "" ? {} : { apiKey: options.apiKey }),
      timeout: this.timeoutMs,
      // Never follow a redirect: it would send the documents and the key to another address. A
      // 3xx then reaches the client as a non-ok answer, which `failureOf` reports as unavailable.
      requestInit: { redirect: "manual" },
    });
  }

  createIndex(uid: string, options: { primaryKey?: string } = {}): Promise<TaskSummary> {
    return this.write(uid, () =>
      this.client.createIndex(
        uid,
        options.primaryKey === undefined ? {} : { primaryKey: options.primaryKey },
      ),
    );
  }

  deleteIndex(uid: string): Promise<TaskSummary> {
    return this.write(uid, () => this.client.deleteIndex(uid));
  }

  async listIndexes(page: { offset?: number; limit?: number } = {}): Promise<IndexPage> {
    const offset = page.offset ?? 0;
    const limit = page.limit ?? 20;
    const answer = await this.call(() => this.client.getRawIndexes({ offset, limit }));
    return {
      results: answer.results.map(infoOf),
      offset: answer.offset ?? offset,
      limit: answer.limit ?? limit,
      total: answer.total,
    };
  }

  async getIndex(uid: string): Promise<IndexInfo | null> {
    try {
      return infoOf(await this.call(() => this.client.index(uid).getRawInfo()));
    } catch (error) {
      if (error instanceof IndexManagerError && error.error.code === "index_not_found") return null;
      throw error;
    }
  }

  addDocuments(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options: { primaryKey?: string } = {},
  ): Promise<TaskSummary> {
    return this.write(uid, () =>
      this.client.index(uid).addDocuments([...documents], primaryKeyOption(options)),
    );
  }

  updateDocuments(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options: { primaryKey?: string } = {},
  ): Promise<TaskSummary> {
    return this.write(uid, () =>
      this.client.index(uid).updateDocuments([...documents], primaryKeyOption(options)),
    );
  }

  deleteDocuments(uid: string, ids: readonly DocumentId[]): Promise<TaskSummary> {
    // An array of ids goes to `POST /indexes/{uid}/documents/delete-batch`; Meilisearch keeps ids
    // as strings, so `"1"` deletes the document whose id is the number 1.
    return this.write(uid, () => this.client.index(uid).deleteDocuments(ids.map(String)));
  }

  updateSettings(uid: string, settings: SettingsUpdate): Promise<TaskSummary> {
    return this.write(uid, () => this.client.index(uid).updateSettings({ ...settings }));
  }

  async getSettings(uid: string): Promise<IndexSettings> {
    const s = await this.call(() => this.client.index(uid).getSettings());
    return {
      searchableAttributes: s.searchableAttributes ?? ["*"],
      displayedAttributes: s.displayedAttributes ?? ["*"],
      filterableAttributes: (s.filterableAttributes ?? []).map((attribute) =>
        typeof attribute === "string" ? attribute : JSON.stringify(attribute),
      ),
      sortableAttributes: s.sortableAttributes ?? [],
      synonyms: s.synonyms ?? {},
      stopWords: s.stopWords ?? [],
      typoTolerance: {
        enabled: s.typoTolerance?.enabled ?? DEFAULT_TYPO_TOLERANCE.enabled,
        minWordSizeForTypos: {
          oneTypo:
            s.typoTolerance?.minWordSizeForTypos?.oneTypo ??
            DEFAULT_TYPO_TOLERANCE.minWordSizeForTypos.oneTypo,
          twoTypos:
            s.typoTolerance?.minWordSizeForTypos?.twoTypos ??
            DEFAULT_TYPO_TOLERANCE.minWordSizeForTypos.twoTypos,
        },
        disableOnWords: s.typoTolerance?.disableOnWords ?? [],
        disableOnAttributes: s.typoTolerance?.disableOnAttributes ?? [],
      },
      rankingRules: (s.rankingRules ?? DEFAULT_RANKING_RULES).map(String),
    };
  }

  async getStats(uid: string): Promise<IndexStats> {
    const stats = await this.call(() => this.client.index(uid).getStats());
    return {
      numberOfDocuments: stats.numberOfDocuments,
      isIndexing: stats.isIndexing,
      fieldDistribution: { ...stats.fieldDistribution },
    };
  }

  async getDocuments(uid: string, page: { offset?: number; limit?: number } = {}): Promise<DocumentsPage> {
    const offset = page.offset ?? 0;
    const limit = page.limit ?? 20;
    const answer = await this.call(() =>
      this.client.index(uid).getDocuments<Record<string, unknown>>({ offset, limit }),
    );
    return {
      results: answer.results,
      offset: answer.offset ?? offset,
      limit: answer.limit ?? limit,
      total: answer.total,
    };
  }

  async getDocument(uid: string, id: DocumentId): Promise<Record<string, unknown> | null> {
    try {
      return await this.call(() => this.client.index(uid).getDocument<Record<string, unknown>>(String(id)));
    } catch (error) {
      if (error instanceof IndexManagerError && error.error.code === "document_not_found") return null;
      throw error;
    }
  }

  deleteAllDocuments(uid: string): Promise<TaskSummary> {
    return this.write(uid, () => this.client.index(uid).deleteAllDocuments());
  }

  /**
   * Meilisearch's `GET /tasks`. With `scope.accountId` the index uids asked for are narrowed to the
   * account's (`<account>-…`); without any given, the account's indexes are listed first (the
   * instance has no filter by uid prefix), so another account's tasks are never asked for.
   */
  async listTasks(query: TaskQuery = {}, scope: TaskScope = {}): Promise<TaskPage> {
    const limit = query.limit ?? 20;
    let indexUids = query.indexUids;
    if (scope.accountId !== undefined) {
      const mine = (uid: string) => accountOfIndexUid(uid) === scope.accountId;
      indexUids = indexUids === undefined ? await this.accountIndexUids(mine) : indexUids.filter(mine);
      if (indexUids.length === 0) return { results: [], total: 0, limit, from: null, next: null };
    }
    const answer = await this.call(() =>
      this.client.tasks.getTasks({
        limit,
        ...(query.from === undefined ? {} : { from: query.from }),
        ...(query.uids === undefined ? {} : { uids: [...query.uids] }),
        ...(query.statuses === undefined ? {} : { statuses: [...query.statuses] }),
        ...(query.types === undefined ? {} : { types: [...query.types] }),
        ...(indexUids === undefined ? {} : { indexUids: [...indexUids] }),
        ...dateFilters(query),
      }),
    );
    return {
      results: answer.results.map(taskOf),
      total: answer.total,
      limit: answer.limit,
      from: answer.from,
      next: answer.next,
    };
  }

  /** The instance's index uids that `keep` accepts, read a page of a thousand at a time. */
  private async accountIndexUids(keep: (uid: string) => boolean): Promise<string[]> {
    const uids: string[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await this.listIndexes({ offset, limit: 1000 });
      uids.push(...page.results.map((index) => index.uid).filter(keep));
      if (offset + page.results.length >= page.total || page.results.length === 0) return uids;
    }
  }

  /** Meilisearch numbers every task of the instance in one sequence: `scope` only hides another account's. */
  async getTask(taskUid: number, scope: TaskScope = {}): Promise<Task | null> {
    try {
      const task = taskOf(await this.call(() => this.client.tasks.getTask(taskUid)));
      return inScope(task, scope) ? task : null;
    } catch (error) {
      if (error instanceof IndexManagerError && error.error.code === "task_not_found") return null;
      throw error;
    }
  }

  async waitForTask(taskUid: number, options: WaitOptions = {}): Promise<Task> {
    const timeout = options.timeoutMs ?? 5000;
    const interval = options.intervalMs ?? 50;
    if (options.accountId !== undefined && (await this.getTask(taskUid, options)) === null) {
      throw new IndexManagerError(
        "refused",
        taskError("task_not_found", `Task \`${taskUid}\` not found.`),
        404,
      );
    }
    return taskOf(await this.call(() => this.client.tasks.waitForTask(taskUid, { timeout, interval })));
  }

  private async write(uid: string, send: () => Promise<EnqueuedTask>): Promise<TaskSummary> {
    const task = await this.call(send);
    return {
      taskUid: task.taskUid,
      indexUid: task.indexUid ?? uid,
      status: task.status as TaskStatus,
      type: task.type as TaskType,
      enqueuedAt: task.enqueuedAt,
    };
  }

  /** Runs a client call, turning its errors into IndexManagerError. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw failureOf(error, this.timeoutMs);
    }
  }
}

/** Whether `task` is one of `scope.accountId`'s (an index uid `<account>-…`); any task without an account. */
function inScope(task: Task, scope: TaskScope): boolean {
  return scope.accountId === undefined || accountOfIndexUid(task.indexUid) === scope.accountId;
}

const DATE_FILTERS = [
  "beforeEnqueuedAt",
  "afterEnqueuedAt",
  "beforeStartedAt",
  "afterStartedAt",
  "beforeFinishedAt",
  "afterFinishedAt",
] as const;

function dateFilters(query: TaskQuery): Partial<Record<(typeof DATE_FILTERS)[number], string>> {
  const dates: Partial<Record<(typeof DATE_FILTERS)[number], string>> = {};
  for (const key of DATE_FILTERS) {
    const value = query[key];
    if (value !== undefined) dates[key] = value;
  }
  return dates;
}

function primaryKeyOption(options: { primaryKey?: string }): { primaryKey?: string } {
  return options.primaryKey === undefined ? {} : { primaryKey: options.primaryKey };
}

function infoOf(index: {
  uid: string;
  primaryKey?: string | null;
  createdAt: string;
  updatedAt: string;
}): IndexInfo {
  return {
    uid: index.uid,
    primaryKey: index.primaryKey ?? null,
    createdAt: index.createdAt,
    updatedAt: index.updatedAt,
  };
}

function errorOf(value: unknown): TaskError | null {
  const error = asMeilisearchError(value);
  if (error === null) return null;
  return { message: error.message, code: error.code, type: error.type, link: error.link ?? "" };
}

function taskOf(task: MeiliTask): Task {
  return {
    uid: task.uid,
    indexUid: task.indexUid ?? "",
    status: task.status as TaskStatus,
    type: task.type as TaskType,
    enqueuedAt: task.enqueuedAt,
    startedAt: task.startedAt,
    finishedAt: task.finishedAt,
    error: task.error === null ? null : errorOf(task.error),
    details: { ...(task.details ?? {}) },
  };
}

/**
 * A client error as an IndexManagerError: Meilisearch's own 4xx errors are `refused` with its
 * error object; a redirect, a 5xx, a body that is not Meilisearch's or no answer are `unavailable`;
 * the request or the task wait running out of time is `timeout`.
 */
export function failureOf(error: unknown, timeoutMs: number): IndexManagerError {
  if (error instanceof IndexManagerError) return error;
  if (error instanceof MeilisearchApiError) {
    const status = error.response.status;
    const body = errorOf(error.cause);
    if (status >= 300 && status <= 399) {
      return new IndexManagerError(
        "unavailable",
        taskError(
          "unavailable",
          `Meilisearch answered ${status}, a redirect, which is not followed`,
          "system",
        ),
        status,
      );
    }
    // A full disk is Meilisearch's answer about this write (type system, a 5xx), not an outage:
    // refused with its own error, which the customer API answers 507.
    if (body !== null && ((status >= 400 && status <= 499) || body.code === "no_space_left_on_device"))
      return new IndexManagerError("refused", body, status);
    return new IndexManagerError(
      "unavailable",
      taskError(
        "unavailable",
        `Meilisearch answered ${status}${body === null ? " without an error body" : ` ${body.code}: ${body.message}`}`,
        "system",
      ),
      status,
    );
  }
  if (error instanceof MeilisearchTaskTimeOutError) {
    return new IndexManagerError("timeout", taskError("task_timeout", error.message, "system"));
  }
  if (error instanceof MeilisearchRequestError) {
    if (error.cause instanceof MeilisearchRequestTimeOutError) {
      return new IndexManagerError(
        "timeout",
        taskError("request_timeout", `Meilisearch did not answer within ${timeoutMs} ms`, "system"),
      );
    }
    const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
    return new IndexManagerError(
      "unavailable",
      taskError("unavailable", `Meilisearch could not be reached: ${cause}`, "system"),
    );
  }
  // The client parses every body as JSON: a proxy's HTML page throws a SyntaxError.
  return new IndexManagerError(
    "unavailable",
    taskError("unavailable", `Meilisearch answered something unreadable: ${errorMessage(error)}`, "system"),
  );
}
