/**
 * The admin side of `relevance_shadow_config`: a second model that scores a sampled share of an
 * index's (or alias's) scored searches after the answer has left, recorded beside the serving score.
 * Read and set on a route of its own beside the relevance trigger config
 * (`…/indexes/{index}/relevance-shadow-config`, GET and PUT with ETag and If-Match): the admin API
 * takes `{relevanceShadowConfig: {modelId, sampleRate}}` (or null: no shadow scoring), the settings
 * record stores `relevance_shadow_config: {model_id, sample_rate}`, and the exporter copies the
 * record as is to KV, where the search reads it (SettingsView.relevanceShadowConfig).
 */
import { createRoute } from "@hono/zod-openapi";
import { modelKey, otherAccountModelProblem, parseArtifact, parseModelId } from "@relevance/core";
import { MAX_SHADOW_MODEL_ID_CHARS, ShadowConfigSchema } from "@relevance/outcomes";
import { ACCOUNT_SK, indexSk, type Kv, type SettingsTable } from "@relevance/settings";
import { conflict, invalid, notFound } from "@shared/http";
import type { Logger } from "@shared/kernel";
import { Hono } from "hono";
import { z } from "zod";
import { parseWith, readJson, zodIssues } from "./body.ts";
import {
  ADMIN,
  AUTHENTICATED,
  type BodyLimitAnswers,
  body,
  E507,
  ETAG,
  errorAnswer,
  IF_MATCH,
  json,
  pathParam,
} from "./openapi-parts.ts";
import { etag, findRecord } from "./records.ts";
import { IssueSchema } from "./schemas.ts";
import { parseIfMatch } from "./trigger-config.ts";

/** The stored attribute of a settings record. */
export const SHADOW_CONFIG_ATTRIBUTE = "relevance_shadow_config";

const ACCOUNT_ID = /^acct_[0-9a-f]{12}$/;

/** The admin API's shape of the config (camelCase). */
export const RelevanceShadowConfigSchema = z
  .strictObject({
    modelId: z
      .string()
      .min(1)
      .max(MAX_SHADOW_MODEL_ID_CHARS)
      .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "must not contain control characters")
      .meta({
        description:
          "The shadow model, `<system_account_id>:<index_name>:v<n>` of this account (artifact in KV under relevance_model:<modelId>).",
      }),
    sampleRate: z.number().min(0).max(1).meta({
      description: "Share of the index's scored searches the shadow model scores too, 0 to 1.",
    }),
  })
  .meta({ id: "RelevanceShadowConfig" });

export const PutShadowConfig = z.strictObject({
  relevanceShadowConfig: RelevanceShadowConfigSchema.nullable().meta({
    description: "null removes the config: no shadow scoring.",
  }),
});
export const ShadowConfigRead = z.object({
  relevanceShadowConfig: z.unknown().meta({
    description:
      "The config, null when not set (no shadow scoring); when storedConfigProblems is present, the stored value as is (snake_case).",
  }),
  version: z.number().int(),
  storedConfigProblems: z.array(IssueSchema).optional().meta({
    description:
      "Only when the stored value is malformed (a direct table edit); then nothing is shadow-scored.",
  }),
});
export const ShadowConfigWritten = z.object({
  relevanceShadowConfig: RelevanceShadowConfigSchema.nullable(),
  version: z.number().int(),
  warnings: z.array(z.string()).meta({
    description:
      "Problems that do not stop the write: the artifact is not uploaded yet or does not load (then searches are recorded without shadow scores).",
  }),
});

/** What the GET shows of a stored value; a model of another account is a stored problem too. */
export function shadowConfigView(
  stored: unknown,
  account: string,
): { relevanceShadowConfig: unknown; storedConfigProblems?: z.infer<typeof IssueSchema>[] } {
  if (stored === undefined || stored === null) return { relevanceShadowConfig: null };
  const parsed = ShadowConfigSchema.safeParse(stored);
  if (parsed.success) {
    const other = otherAccountModelProblem(parsed.data.model_id, account);
    if (other === null) {
      return {
        relevanceShadowConfig: { modelId: parsed.data.model_id, sampleRate: parsed.data.sample_rate },
      };
    }
    return {
      relevanceShadowConfig: stored,
      storedConfigProblems: [{ path: `${SHADOW_CONFIG_ATTRIBUTE}.model_id`, message: other }],
    };
  }
  return {
    relevanceShadowConfig: stored,
    storedConfigProblems: zodIssues(parsed.error).map((i) => ({
      ...i,
      path: i.path === "" ? SHADOW_CONFIG_ATTRIBUTE : `${SHADOW_CONFIG_ATTRIBUTE}.${i.path}`,
    })),
  };
}

/** Warnings, never errors: uploading the artifact and configuring the shadow are independent steps. */
async function shadowWarnings(kv: Kv, modelId: string): Promise<string[]> {
  const warnings: string[] = [];
  if (parseModelId(modelId) === null) {
    warnings.push(`modelId ${JSON.stringify(modelId)} does not follow <system_account_id>:<index_name>:v<n>`);
  }
  const key = modelKey(modelId);
  const text = await kv.get(key);
  if (text === null) {
    warnings.push(
      `no model artifact under ${key} yet; searches are recorded without shadow scores until it is uploaded`,
    );
  } else if (!parseArtifact(text).ok) {
    warnings.push(
      `the value under ${key} is not a valid model artifact; searches are recorded without shadow scores`,
    );
  }
  return warnings;
}

export const SHADOW_CONFIG_ROUTE = "/api/v1/admin/accounts/:account/indexes/:index/relevance-shadow-config";

/** The GET and PUT routes (mounted behind the admin API's authentication and body limit). */
export function shadowConfigRoutes(deps: {
  table: SettingsTable;
  kv: Kv;
  log: Logger;
  now: () => Date;
}): Hono {
  const { table, kv, log, now } = deps;
  const app = new Hono();

  const findIndex = async (accountId: string, index: string) => {
    if (!ACCOUNT_ID.test(accountId) || (await table.get(accountId, ACCOUNT_SK)) === null) {
      throw notFound("account not found");
    }
    const record = await findRecord(table, accountId, index);
    if (record === null) throw notFound("index not found");
    return record;
  };

  app.get(SHADOW_CONFIG_ROUTE, async (c) => {
    const accountId = c.req.param("account");
    const record = await findIndex(accountId, c.req.param("index"));
    c.header("ETag", etag(record.version));
    return c.json({
      ...shadowConfigView(record.attributes[SHADOW_CONFIG_ATTRIBUTE], accountId),
      version: record.version,
    });
  });

  app.put(SHADOW_CONFIG_ROUTE, async (c) => {
    const accountId = c.req.param("account");
    const { relevanceShadowConfig: config } = parseWith(
      PutShadowConfig,
      await readJson(c, 422),
      "the relevance shadow config is invalid",
    );
    if (config !== null) {
      const other = otherAccountModelProblem(config.modelId, accountId);
      if (other !== null) {
        throw invalid("the relevance shadow config is invalid", [
          { path: "relevanceShadowConfig.modelId", message: other },
        ]);
      }
    }
    const ifMatch = parseIfMatch(c.req.header("if-match"));
    if (ifMatch === "invalid") {
      throw invalid("the If-Match header is invalid", [
        { path: "If-Match", message: 'must be a version such as "3"' },
      ]);
    }
    const index = c.req.param("index");
    const record = await findIndex(accountId, index);
    if (typeof ifMatch === "number" && ifMatch !== record.version) {
      throw conflict(
        `the index was updated since version ${ifMatch} was read (now version ${record.version}); read it again and retry`,
      );
    }
    const warnings = config === null ? [] : await shadowWarnings(kv, config.modelId);
    const attributes: Record<string, unknown> = { ...record.attributes, updated_at: now().toISOString() };
    if (config === null) delete attributes[SHADOW_CONFIG_ATTRIBUTE];
    else attributes[SHADOW_CONFIG_ATTRIBUTE] = { model_id: config.modelId, sample_rate: config.sampleRate };
    // Never a blind write: only at the version just read.
    const written = await table.put(accountId, indexSk(index), attributes as typeof record.attributes, {
      expectedVersion: record.version,
    });
    if (!written.ok) {
      throw conflict("another process updated the index since it was read; read it again and retry");
    }
    const version = written.item.version;
    log.info("relevance shadow config set", {
      systemAccountId: accountId,
      index,
      modelId: config?.modelId ?? null,
      sampleRate: config?.sampleRate ?? null,
      version,
      warnings,
    });
    c.header("ETag", etag(version));
    return c.json({ relevanceShadowConfig: config, version, warnings });
  });

  return app;
}

const Params = z.object({
  id: pathParam("System account ID."),
  index: pathParam("Index or alias name."),
});
const DOC_PATH = "/api/v1/admin/accounts/{id}/indexes/{index}/relevance-shadow-config";

/** The routes above as the OpenAPI document lists them. */
export const shadowConfigRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "get",
    path: DOC_PATH,
    ...ADMIN,
    summary: "Read the relevance shadow config (the shadow model and its sample rate) of an index or alias.",
    request: { params: Params },
    responses: {
      200: {
        description: "The config (null when not set: no shadow scoring) and the record's version.",
        headers: ETAG,
        content: json(ShadowConfigRead),
      },
      ...AUTHENTICATED,
      404: errorAnswer("No such account or index."),
    },
  }),
  createRoute({
    method: "put",
    path: DOC_PATH,
    ...ADMIN,
    summary:
      "Set (or with null remove) the relevance shadow config; a conditional write on the record's version.",
    request: { params: Params, headers: IF_MATCH, body: body(PutShadowConfig) },
    responses: {
      200: { description: "Written, with warnings.", headers: ETAG, content: json(ShadowConfigWritten) },
      ...AUTHENTICATED,
      404: errorAnswer("No such account or index."),
      409: errorAnswer(
        "Another process updated the index since it was read (or If-Match is stale); read and retry.",
      ),
      413: limits.json,
      422: errorAnswer(
        "Body not JSON, other keys, modelId missing, empty, over 256 characters, with control characters or of another account, or sampleRate missing, not a number or outside 0 to 1.",
      ),
      507: E507,
    },
  }),
];
