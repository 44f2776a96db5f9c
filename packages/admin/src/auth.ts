import { unauthorized } from "@relevance/http";
import { API_KEY_SK, apiKeyHash, apiKeyPk, type SettingsTable } from "@relevance/settings";
import type { MiddlewareHandler } from "hono";
import { constantTimeEqual } from "./crypto.ts";

/** Hono variables of customer routes: the account the API key belongs to. */
export type CustomerEnv = { Variables: { accountId: string } };

const BEARER = /^Bearer +(\S+) *$/i;
/** Longer headers are rejected before hashing; real keys are 46 characters. */
const MAX_CREDENTIAL_LENGTH = 512;

/** `Authorization: Bearer <adminToken>`, compared in constant time; 401 otherwise. */
export function adminAuth(adminToken: string): MiddlewareHandler {
  return async (c, next) => {
    const match = BEARER.exec(c.req.header("authorization") ?? "");
    const token = match?.[1];
    if (
      token === undefined ||
      token.length > MAX_CREDENTIAL_LENGTH ||
      !(await constantTimeEqual(token, adminToken))
    ) {
      throw unauthorized("a valid admin token is required (Authorization: Bearer <token>)");
    }
    await next();
  };
}

/** `x-api-key`: the SHA-256 of the key finds its APIKEY item, which names the account; 401 otherwise. */
export function customerAuth(table: SettingsTable): MiddlewareHandler<CustomerEnv> {
  return async (c, next) => {
    const key = c.req.header("x-api-key");
    if (key === undefined || key === "" || key.length > MAX_CREDENTIAL_LENGTH) {
      throw unauthorized("a valid API key is required (x-api-key header)");
    }
    const item = await table.get(apiKeyPk(await apiKeyHash(key)), API_KEY_SK);
    const account = item?.attributes.system_account_id;
    if (typeof account !== "string" || account === "") {
      throw unauthorized("a valid API key is required (x-api-key header)");
    }
    c.set("accountId", account);
    await next();
  };
}
