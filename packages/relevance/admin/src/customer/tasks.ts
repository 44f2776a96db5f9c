/** Meilisearch's `GET /tasks/{uid}`, for the tasks of the caller's own indexes. */
import { ApiError } from "@shared/http";
import { Hono } from "hono";
import type { CustomerEnv } from "../auth.ts";
import { backendReadFailed, customerTask } from "../index-documents.ts";
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
