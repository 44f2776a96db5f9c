/** Meilisearch's `GET /tasks/{uid}`, for the tasks of the caller's own indexes. */

import { createRoute } from "@hono/zod-openapi";
import { ApiError } from "@shared/http";
import { Hono } from "hono";
import { z } from "zod";
import type { CustomerEnv } from "../auth.ts";
import { backendReadFailed, customerTask } from "../index-documents.ts";
import { AUTHENTICATED, CUSTOMER, E502_BACKEND, errorAnswer, json, pathParam } from "../openapi-parts.ts";
import { TaskSchema } from "../schemas.ts";
import { CUSTOMER_BASE, type CustomerContext } from "./context.ts";

export function taskRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { deps, target, account } = ctx;
  const { log } = deps;
  const app = new Hono<CustomerEnv>();

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

/** The route above as the OpenAPI document lists it. */
export const taskRouteDocs = () => [
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
