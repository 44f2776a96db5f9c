/**
 * The operators' view of an account's API keys and CORS origins: the customer API's `/keys` and
 * `/account` under `/api/v1/admin/accounts/{id}` (the admin token, any account).
 */
import { createRoute } from "@hono/zod-openapi";
import type { Logger, SettingsTable } from "@relevance/settings";
import { Hono } from "hono";
import { z } from "zod";
import { parseWith, readJson } from "./body.ts";
import type { RandomBytes } from "./crypto.ts";
import {
  AccountView,
  CreateKey,
  KeyCreatedView,
  KeysList,
  KeysPage,
  KeyView,
  PatchAccount,
  UpdateKey,
} from "./key-schemas.ts";
import {
  createKey,
  deleteKey,
  findKey,
  keyView,
  listKeys,
  readCors,
  requireAccount,
  updateKey,
  writeCors,
} from "./key-store.ts";
import {
  ADMIN,
  AUTHENTICATED,
  type BodyLimitAnswers,
  body,
  errorAnswer,
  json,
  pathParam,
} from "./openapi-parts.ts";

const BASE = "/api/v1/admin/accounts/:account";

export function adminKeyRoutes(deps: {
  table: SettingsTable;
  now: () => Date;
  random: RandomBytes;
  log: Logger;
}): Hono {
  const { table, now, random, log } = deps;
  const app = new Hono();
  const account = async (raw: string) => {
    await requireAccount(table, raw);
    return raw;
  };

  app.get(`${BASE}/keys`, async (c) => {
    const id = await account(c.req.param("account"));
    return c.json(await listKeys(table, id, parseWith(KeysPage, c.req.query(), "the page is invalid")));
  });
  app.post(`${BASE}/keys`, async (c) => {
    const input = parseWith(CreateKey, await readJson(c, 422), "the key is invalid");
    const id = await account(c.req.param("account"));
    const { view } = await createKey({ table, now, random }, id, input);
    log.info("API key created by an operator", { account: id, uid: view.uid, actions: input.actions });
    return c.json(view, 201);
  });
  app.get(`${BASE}/keys/:key`, async (c) => {
    const id = await account(c.req.param("account"));
    return c.json(keyView(await findKey(table, id, c.req.param("key"))));
  });
  app.patch(`${BASE}/keys/:key`, async (c) => {
    const patch = parseWith(UpdateKey, await readJson(c, 422), "the key update is invalid");
    const id = await account(c.req.param("account"));
    return c.json(await updateKey({ table, now }, id, c.req.param("key"), patch));
  });
  app.delete(`${BASE}/keys/:key`, async (c) => {
    const id = await account(c.req.param("account"));
    await deleteKey(table, id, c.req.param("key"));
    log.info("API key deleted by an operator", { account: id });
    return c.body(null, 204);
  });
  app.get(BASE, async (c) => {
    const id = await account(c.req.param("account"));
    return c.json({ systemAccountId: id, cors: await readCors(table, id) });
  });
  app.patch(BASE, async (c) => {
    const { cors } = parseWith(PatchAccount, await readJson(c, 422), "the account update is invalid");
    const id = await account(c.req.param("account"));
    return c.json({ systemAccountId: id, cors: await writeCors({ table, now }, id, cors) });
  });
  return app;
}

const P = "/api/v1/admin/accounts/{id}";
const Id = { id: pathParam("System account ID.") };
const E404 = errorAnswer("No such account, or no such key in it (api_key_not_found).");

/** The routes above as the OpenAPI document lists them. */
export const adminKeyRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "get",
    path: `${P}/keys`,
    ...ADMIN,
    summary: "The account's API keys (as the customer API's GET /keys).",
    request: { params: z.object(Id), query: KeysPage },
    responses: {
      200: { description: "A page of keys.", content: json(KeysList) },
      ...AUTHENTICATED,
      404: E404,
      422: errorAnswer("offset or limit invalid."),
    },
  }),
  createRoute({
    method: "post",
    path: `${P}/keys`,
    ...ADMIN,
    summary: "Create an API key for the account; the key is in this answer only.",
    request: { params: z.object(Id), body: body(CreateKey) },
    responses: {
      201: { description: "Created.", content: json(KeyCreatedView) },
      ...AUTHENTICATED,
      404: E404,
      409: errorAnswer("A key with this uid exists (api_key_already_exists)."),
      413: limits.json,
      422: errorAnswer("Body not JSON or invalid, an expiry not in the future, or the key count reached."),
    },
  }),
  createRoute({
    method: "get",
    path: `${P}/keys/{key}`,
    ...ADMIN,
    summary: "One API key of the account, by uid or by the key itself.",
    request: { params: z.object({ ...Id, key: pathParam("The key's uid, or the key.") }) },
    responses: { 200: { description: "The key.", content: json(KeyView) }, ...AUTHENTICATED, 404: E404 },
  }),
  createRoute({
    method: "patch",
    path: `${P}/keys/{key}`,
    ...ADMIN,
    summary: "Change a key's name or description.",
    request: {
      params: z.object({ ...Id, key: pathParam("The key's uid, or the key.") }),
      body: body(UpdateKey),
    },
    responses: {
      200: { description: "The key.", content: json(KeyView) },
      ...AUTHENTICATED,
      404: E404,
      413: limits.json,
      422: errorAnswer("Body not JSON or invalid."),
    },
  }),
  createRoute({
    method: "delete",
    path: `${P}/keys/{key}`,
    ...ADMIN,
    summary: "Revoke a key of the account.",
    request: { params: z.object({ ...Id, key: pathParam("The key's uid, or the key.") }) },
    responses: { 204: { description: "Revoked." }, ...AUTHENTICATED, 404: E404 },
  }),
  createRoute({
    method: "get",
    path: P,
    ...ADMIN,
    summary: "The account's CORS origins.",
    request: { params: z.object(Id) },
    responses: {
      200: { description: "The account.", content: json(AccountView) },
      ...AUTHENTICATED,
      404: E404,
    },
  }),
  createRoute({
    method: "patch",
    path: P,
    ...ADMIN,
    summary: "Set the account's CORS origins (as the customer API's PATCH /account).",
    request: { params: z.object(Id), body: body(PatchAccount) },
    responses: {
      200: { description: "The account.", content: json(AccountView) },
      ...AUTHENTICATED,
      404: E404,
      413: limits.json,
      422: errorAnswer("Body not JSON or invalid."),
    },
  }),
];
