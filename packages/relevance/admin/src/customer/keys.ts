/**
 * Meilisearch's `/keys` for the caller's account (a key holding the `keys.*` actions), and the
 * account's CORS origins (`GET`/`PATCH /account`): see docs/api.md.
 */

import { createRoute } from "@hono/zod-openapi";
import { Hono } from "hono";
import { z } from "zod";
import type { CustomerEnv } from "../auth.ts";
import { parseWith, readJson } from "../body.ts";
import { defaultRandomBytes } from "../crypto.ts";
import {
  AccountView,
  CreateKey,
  KeyCreatedView,
  KeysList,
  KeysPage,
  KeyView,
  PatchAccount,
  UpdateKey,
} from "../key-schemas.ts";
import {
  createKey,
  deleteKey,
  findKey,
  keyView,
  listKeys,
  readCors,
  updateKey,
  writeCors,
} from "../key-store.ts";
import {
  AUTHENTICATED,
  type BodyLimitAnswers,
  body,
  CUSTOMER,
  errorAnswer,
  json,
  pathParam,
} from "../openapi-parts.ts";
import { CUSTOMER_BASE, type CustomerContext } from "./context.ts";

export function keyRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { deps, account } = ctx;
  const { table, now } = deps;
  const random = deps.randomBytes ?? defaultRandomBytes;
  const app = new Hono<CustomerEnv>();

  app.get(`${CUSTOMER_BASE}/keys`, async (c) => {
    const page = parseWith(KeysPage, c.req.query(), "the page is invalid");
    return c.json(await listKeys(table, account(c), page));
  });
  app.post(`${CUSTOMER_BASE}/keys`, async (c) => {
    const input = parseWith(CreateKey, await readJson(c, 400), "the key is invalid");
    const { view } = await createKey({ table, now, random }, account(c), input);
    deps.log.info("API key created", { account: account(c), uid: view.uid, actions: input.actions });
    return c.json(view, 201);
  });
  app.get(`${CUSTOMER_BASE}/keys/:key`, async (c) =>
    c.json(keyView(await findKey(table, account(c), c.req.param("key")))),
  );
  app.patch(`${CUSTOMER_BASE}/keys/:key`, async (c) => {
    const patch = parseWith(UpdateKey, await readJson(c, 400), "the key update is invalid");
    return c.json(await updateKey({ table, now }, account(c), c.req.param("key"), patch));
  });
  app.delete(`${CUSTOMER_BASE}/keys/:key`, async (c) => {
    await deleteKey(table, account(c), c.req.param("key"));
    deps.log.info("API key deleted", { account: account(c) });
    return c.body(null, 204);
  });

  app.get(`${CUSTOMER_BASE}/account`, async (c) =>
    c.json({ systemAccountId: account(c), cors: await readCors(table, account(c)) }),
  );
  app.patch(`${CUSTOMER_BASE}/account`, async (c) => {
    const { cors } = parseWith(PatchAccount, await readJson(c, 400), "the account update is invalid");
    return c.json({ systemAccountId: account(c), cors: await writeCors({ table, now }, account(c), cors) });
  });

  return app;
}

const KeyParams = z.object({ key: pathParam("The key's uid, or the key itself.") });
const NO_ACTION = errorAnswer(
  "The key lacks the route's action (code invalid_api_key), or the request's Origin is not allowed (origin_not_allowed).",
);

/** The routes above as the OpenAPI document lists them. */
export const keyRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "get",
    path: "/api/v1/keys",
    ...CUSTOMER,
    summary:
      "The account's API keys (Meilisearch's GET /keys; keyPrefix in place of the key). Action keys.get.",
    request: { query: KeysPage },
    responses: {
      200: { description: "A page of keys.", content: json(KeysList) },
      ...AUTHENTICATED,
      403: NO_ACTION,
      422: errorAnswer("offset or limit invalid."),
    },
  }),
  createRoute({
    method: "post",
    path: "/api/v1/keys",
    ...CUSTOMER,
    summary:
      "Create an API key (Meilisearch's POST /keys); the key is in this answer only. Action keys.create.",
    request: { body: body(CreateKey) },
    responses: {
      201: { description: "Created.", content: json(KeyCreatedView) },
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      403: NO_ACTION,
      409: errorAnswer("A key with this uid exists (api_key_already_exists)."),
      413: limits.json,
      422: errorAnswer("Invalid body, an expiry not in the future, or the account's key count reached."),
    },
  }),
  createRoute({
    method: "get",
    path: "/api/v1/keys/{key}",
    ...CUSTOMER,
    summary: "One API key, by uid or by the key itself. Action keys.get.",
    request: { params: KeyParams },
    responses: {
      200: { description: "The key.", content: json(KeyView) },
      ...AUTHENTICATED,
      403: NO_ACTION,
      404: errorAnswer("No such key in this account (api_key_not_found)."),
    },
  }),
  createRoute({
    method: "patch",
    path: "/api/v1/keys/{key}",
    ...CUSTOMER,
    summary:
      "Change a key's name or description (nothing else changes, as in Meilisearch). Action keys.update.",
    request: { params: KeyParams, body: body(UpdateKey) },
    responses: {
      200: { description: "The key.", content: json(KeyView) },
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      403: NO_ACTION,
      404: errorAnswer("No such key in this account (api_key_not_found)."),
      413: limits.json,
      422: errorAnswer("Invalid body (only name and description)."),
    },
  }),
  createRoute({
    method: "delete",
    path: "/api/v1/keys/{key}",
    ...CUSTOMER,
    summary:
      "Revoke a key: it stops working at once here, at the edge once its KV copy is gone. Action keys.delete.",
    request: { params: KeyParams },
    responses: {
      204: { description: "Revoked." },
      ...AUTHENTICATED,
      403: NO_ACTION,
      404: errorAnswer("No such key in this account (api_key_not_found)."),
    },
  }),
  createRoute({
    method: "get",
    path: "/api/v1/account",
    ...CUSTOMER,
    summary: "The account's CORS origins. Action keys.get.",
    responses: {
      200: { description: "The account.", content: json(AccountView) },
      ...AUTHENTICATED,
      403: NO_ACTION,
    },
  }),
  createRoute({
    method: "patch",
    path: "/api/v1/account",
    ...CUSTOMER,
    summary:
      "Set the account's CORS origins (readOrigins, writeOrigins; a list given replaces it). Action keys.update.",
    request: { body: body(PatchAccount) },
    responses: {
      200: { description: "The account.", content: json(AccountView) },
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      403: NO_ACTION,
      413: limits.json,
      422: errorAnswer("Invalid body."),
    },
  }),
];
