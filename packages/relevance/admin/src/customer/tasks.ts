/** Meilisearch's `GET /tasks` and `GET /tasks/{uid}`, for the tasks of the caller's own indexes. */

import { createRoute } from "@hono/zod-openapi";
import { ApiError } from "@shared/http";
import { Hono } from "hono";
import { z } from "zod";
import type { CustomerEnv } from "../auth.ts";
import { parseWith } from "../body.ts";
import { backendReadFailed, customerTask } from "../index-documents.ts";
import { TaskPageSchema, TasksQuery } from "../management-schemas.ts";
import { AUTHENTICATED, CUSTOMER, E502_BACKEND, errorAnswer, json, pathParam } from "../openapi-parts.ts";
import { TaskSchema } from "../schemas.ts";
import { CUSTOMER_BASE, type CustomerContext } from "./context.ts";

export function taskRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { deps, target, account } = ctx;
  const { log } = deps;
  const app = new Hono<CustomerEnv>();

  // Meilisearch's `GET /tasks`: the caller's tasks only (index names as the customer calls them),
  // newest first, with its filters. Without a backend there are no tasks.
  app.get(`${CUSTOMER_BASE}/tasks`, async (c) => {
    const query = parseWith(TasksQuery, c.req.query(), "the query is invalid");
    if (target.kind === "store") {
      return c.json({ results: [], total: 0, limit: query.limit, from: null, next: null });
    }
    const { indexUids, ...rest } = query;
    const scoped = {
      ...rest,
      ...(indexUids === undefined ? {} : { indexUids: indexUids.map((name) => `${account(c)}-${name}`) }),
    };
    const page = await target.backend
      .listTasks(dropUndefined(scoped), { accountId: account(c) })
      .catch((error: unknown) => {
        throw backendReadFailed(log, "tasks", error);
      });
    return c.json({ ...page, results: page.results.map((task) => customerTask(task, account(c))) });
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

  return app;
}

/** The query without its absent filters (the port takes them as not given). */
function dropUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The routes above as the OpenAPI document lists them. */
export const taskRouteDocs = () => [
  createRoute({
    method: "get",
    path: "/api/v1/tasks",
    ...CUSTOMER,
    summary:
      "The account's tasks, newest first, as Meilisearch's GET /tasks (its filters; index names as the " +
      "account calls them). Deployments without an index manager have none.",
    request: { query: TasksQuery },
    responses: {
      200: { description: "A page of tasks.", content: json(TaskPageSchema) },
      ...AUTHENTICATED,
      422: errorAnswer("An unknown parameter, an invalid value, or a list over its bound."),
      502: E502_BACKEND,
    },
  }),
  createRoute({
    method: "get",
    path: "/api/v1/tasks/{uid}",
    ...CUSTOMER,
    summary:
      "A task of one of the account's indexes, as Meilisearch's GET /tasks/{uid} (deployments with an " +
      "index manager; elsewhere writes are synchronous and there are no tasks).",
    request: {
      params: z.object({
        uid: pathParam(
          "The task's uid (taskUid of a write's answer), never given twice: the account's own numbers from 1 in the embedded stack, Meilisearch's instance-wide ones where it holds the documents.",
        ),
      }),
    },
    responses: {
      200: { description: "The task.", content: json(TaskSchema) },
      ...AUTHENTICATED,
      404: errorAnswer("No such task of this account (code task_not_found)."),
      502: E502_BACKEND,
    },
  }),
];
