import { createRoute } from "@hono/zod-openapi";
import { toStoredConfig } from "@relevance/core";
import { ACCOUNT_SK, type IndexSettingsAttributes, indexSk } from "@relevance/settings";
import { conflict, invalid, limitBody, notFound, onError, routeFallback } from "@shared/http";
import { Hono } from "hono";
import { adminKeyRoutes } from "./admin-keys.ts";
import { adminAuth, authGuard, BEARER_TOKEN, BEARER_TOKEN_RULE } from "./auth.ts";
import { listed, parseWith, readJson } from "./body.ts";
import { canaryConfigRoutes } from "./canary-config-routes.ts";
import { defaultRandomBytes, newAccountId } from "./crypto.ts";
import { createKey, DEFAULT_ADMIN_KEY, DEFAULT_SEARCH_KEY } from "./key-store.ts";
import { resolveBodyLimits } from "./limits.ts";
import {
  ADMIN,
  AUTHENTICATED,
  type BodyLimitAnswers,
  body,
  E507,
  ETAG,
  errorAnswer,
  IF_MATCH,
  IndexRouteParams,
  json,
} from "./openapi-parts.ts";
import type { AdminDeps } from "./ports.ts";
import { adminQualityRoutes } from "./quality-route.ts";
import { recordingConfigRoutes } from "./recording-config-routes.ts";
import { etag, findRecord } from "./records.ts";
import {
  AccountCreated,
  CreateAccount,
  PutTriggerConfig,
  TriggerConfigRead,
  TriggerConfigWritten,
} from "./schemas.ts";
import { shadowConfigRoutes } from "./shadow-config-routes.ts";
import { trainingRowRoutes } from "./training-rows.ts";
import { configView, configWarnings, parseIfMatch, validatePutBody } from "./trigger-config.ts";

export const ADMIN_BASE = "/api/v1/admin";
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/** System account ids as `newAccountId` makes them; any other id cannot exist and answers 404 unread. */
const ACCOUNT_ID = /^acct_[0-9a-f]{12}$/;

/**
 * The record's `relevance_model_history`: for each model id the record stopped naming, when (ISO).
 * `relevance model delete` and `relevance prune` keep a model for 24 h after that (8).
 */
export const MODEL_HISTORY_ATTRIBUTE = "relevance_model_history";

/** The model id a stored config names, even a malformed one (a direct edit): it may still be served. */
function namedModelId(stored: unknown): string | null {
  if (typeof stored !== "object" || stored === null) return null;
  const id = (stored as Record<string, unknown>).model_id;
  return typeof id === "string" && id !== "" ? id : null;
}

/**
 * Records in `attributes` (in the same write as the config change) when the record stops naming a
 * model; the model it names from now on leaves the history. No change of model, no change.
 */
export function recordModelHistory(
  attributes: Record<string, unknown>,
  storedBefore: unknown,
  modelIdAfter: string | null,
  at: Date,
): void {
  const before = namedModelId(storedBefore);
  if (before === modelIdAfter) return;
  const old = attributes[MODEL_HISTORY_ATTRIBUTE];
  const history: Record<string, unknown> =
    typeof old === "object" && old !== null && !Array.isArray(old) ? { ...old } : {};
  if (before !== null) history[before] = at.toISOString();
  if (modelIdAfter !== null) delete history[modelIdAfter];
  if (Object.keys(history).length > 0) attributes[MODEL_HISTORY_ATTRIBUTE] = history;
  else delete attributes[MODEL_HISTORY_ATTRIBUTE];
}

/** The internal admin API (`{env}-AdminInternalApi`): accounts, API keys and the relevance trigger config. */
export function createAdminApp(deps: AdminDeps): Hono {
  if (deps.adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(`the admin token must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  }
  if (!BEARER_TOKEN.test(deps.adminToken)) {
    throw new Error(`the admin token must be ${BEARER_TOKEN_RULE}`);
  }
  const { table, kv, log, now } = deps;
  const random = deps.randomBytes ?? defaultRandomBytes;
  const limits = resolveBodyLimits(deps.limits);
  const app = new Hono();
  app.onError(onError(log));
  app.notFound(routeFallback(app));
  app.use(`${ADMIN_BASE}/*`, adminAuth(deps.adminToken, authGuard(deps)));
  // After authentication, so a client without the token cannot make the app buffer a chunked body.
  app.use(`${ADMIN_BASE}/*`, limitBody(limits.jsonBodyBytes));

  app.post(`${ADMIN_BASE}/accounts`, async (c) => {
    const { name } = parseWith(CreateAccount, await readJson(c, 422), "the account is invalid");
    const createdAt = now().toISOString();
    let accountId: string | null = null;
    // 48 random bits: a collision is unlikely, and the conditional write makes it harmless.
    for (let attempt = 0; attempt < 5 && accountId === null; attempt++) {
      const id = newAccountId(random);
      const written = await table.put(
        id,
        ACCOUNT_SK,
        { name, created_at: createdAt },
        { mustNotExist: true },
      );
      if (written.ok) accountId = id;
    }
    if (accountId === null) throw new Error("could not allocate an account id");
    // The account's two default keys, as Meilisearch makes them: an admin key (every action) and
    // a search key for the shop's pages.
    const keyDeps = { table, now, random };
    const { key: apiKey } = await createKey(keyDeps, accountId, {
      ...DEFAULT_ADMIN_KEY,
      actions: ["*"],
      indexes: ["*"],
    });
    const { key: searchApiKey } = await createKey(keyDeps, accountId, {
      ...DEFAULT_SEARCH_KEY,
      actions: ["search"],
      indexes: ["*"],
    });
    log.info("account created", { systemAccountId: accountId });
    return c.json({ systemAccountId: accountId, apiKey, searchApiKey }, 201);
  });

  app.route("/", adminKeyRoutes({ table, now, random, log }));
  app.route("/", adminQualityRoutes({ table, kv, now, outcomes: deps.outcomes }));
  app.route("/", recordingConfigRoutes({ table, now, log }));
  app.route("/", shadowConfigRoutes({ table, kv, now, log }));
  app.route("/", canaryConfigRoutes({ table, kv, now, log }));
  app.route("/", trainingRowRoutes({ table, outcomes: deps.outcomes, now }));

  const configPath = `${ADMIN_BASE}/accounts/:account/indexes/:index/relevance-trigger-config`;

  const findIndex = async (accountId: string, index: string) => {
    if (!ACCOUNT_ID.test(accountId) || (await table.get(accountId, ACCOUNT_SK)) === null) {
      throw notFound("account not found");
    }
    const record = await findRecord(table, accountId, index);
    if (record === null) throw notFound("index not found");
    return record;
  };

  app.get(configPath, async (c) => {
    const record = await findIndex(c.req.param("account"), c.req.param("index"));
    c.header("ETag", etag(record.version));
    const { relevanceTriggerConfig, storedConfigProblems } = configView(
      record.attributes.relevance_trigger_config,
      c.req.param("account"),
    );
    return c.json({
      relevanceTriggerConfig,
      version: record.version,
      ...(storedConfigProblems === undefined ? {} : { storedConfigProblems }),
    });
  });

  app.put(configPath, async (c) => {
    const body = validatePutBody(await readJson(c, 422), c.req.param("account"));
    // The validator names every unknown key; a body of 100,000 of them answers the first 100.
    if (!body.ok) throw invalid("the relevance trigger config is invalid", listed(body.errors));
    const ifMatch = parseIfMatch(c.req.header("if-match"));
    if (ifMatch === "invalid") {
      throw invalid("the If-Match header is invalid", [
        { path: "If-Match", message: 'must be a version such as "3"' },
      ]);
    }
    const accountId = c.req.param("account");
    const index = c.req.param("index");
    const record = await findIndex(accountId, index);
    if (typeof ifMatch === "number" && ifMatch !== record.version) {
      throw conflict(
        `the index was updated since version ${ifMatch} was read (now version ${record.version}); read it again and retry`,
      );
    }
    const config = body.value;
    const warnings = config === null ? [] : await configWarnings(kv, config);
    const attributes: Partial<IndexSettingsAttributes> & Record<string, unknown> = {
      ...record.attributes,
      updated_at: now().toISOString(),
    };
    if (config === null) delete attributes.relevance_trigger_config;
    else attributes.relevance_trigger_config = toStoredConfig(config);
    recordModelHistory(
      attributes,
      record.attributes.relevance_trigger_config,
      config?.modelId ?? null,
      now(),
    );
    // Never a blind write: only at the version just read.
    const written = await table.put(accountId, indexSk(index), attributes, {
      expectedVersion: record.version,
    });
    if (!written.ok) {
      throw conflict("another process updated the index since it was read; read it again and retry");
    }
    const version = written.item.version;
    log.info("relevance trigger config set", {
      systemAccountId: accountId,
      index,
      modelId: config?.modelId ?? null,
      version,
      warnings,
    });
    c.header("ETag", etag(version));
    return c.json({ relevanceTriggerConfig: config, version, warnings });
  });

  return app;
}

const CONFIG_PATH = "/api/v1/admin/accounts/{id}/indexes/{index}/relevance-trigger-config";

/** The routes above as the OpenAPI document lists them. */
export const adminRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "post",
    path: "/api/v1/admin/accounts",
    ...ADMIN,
    summary:
      "Create an account and its two default API keys, admin (apiKey) and search (searchApiKey): shown once, stored only as SHA-256 hashes.",
    request: { body: body(CreateAccount) },
    responses: {
      201: { description: "Created.", content: json(AccountCreated) },
      ...AUTHENTICATED,
      413: limits.json,
      422: errorAnswer("Body not JSON or invalid, or a key named __proto__, constructor or prototype."),
      507: E507,
    },
  }),
  createRoute({
    method: "get",
    path: CONFIG_PATH,
    ...ADMIN,
    summary: "Read the relevance trigger config of an index or alias record.",
    request: { params: IndexRouteParams },
    responses: {
      200: {
        description: "The config (null when not set) and the record's version.",
        headers: ETAG,
        content: json(TriggerConfigRead),
      },
      ...AUTHENTICATED,
      404: errorAnswer("No such account or index."),
    },
  }),
  createRoute({
    method: "put",
    path: CONFIG_PATH,
    ...ADMIN,
    summary:
      "Set (or with null remove) the relevance trigger config; a conditional write on the record's version.",
    request: { params: IndexRouteParams, headers: IF_MATCH, body: body(PutTriggerConfig) },
    responses: {
      200: { description: "Written.", headers: ETAG, content: json(TriggerConfigWritten) },
      ...AUTHENTICATED,
      404: errorAnswer("No such account or index."),
      409: errorAnswer(
        "Another process updated the index since it was read (or If-Match is stale); read and retry.",
      ),
      413: limits.json,
      422: errorAnswer(
        "Body not JSON, other top-level keys, a missing/unknown sub-field, wrong types or bad strings.",
      ),
      507: E507,
    },
  }),
];
