/**
 * The admin side of `relevance_recording_config`: which share of an index's (or alias's) scored
 * searches is recorded. Read and set like the relevance trigger config, on a route of its own beside
 * it (`…/indexes/{index}/relevance-recording-config`, GET and PUT with ETag and If-Match): the admin
 * API takes `{relevanceRecordingConfig: {sampleRate}}` (or null for the default, every search), the
 * settings record stores `relevance_recording_config: {sample_rate}`, and the exporter copies the
 * record as is to KV, where the search reads it (SettingsView.relevanceRecordingConfig).
 */
import { createRoute } from "@hono/zod-openapi";
import { DEFAULT_SAMPLE_RATE, RecordingConfigSchema } from "@relevance/outcomes";
import { ACCOUNT_SK, indexSk, type SettingsTable } from "@relevance/settings";
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
  IndexRouteParams,
  json,
} from "./openapi-parts.ts";
import { etag, findRecord } from "./records.ts";
import { IssueSchema } from "./schemas.ts";
import { parseIfMatch } from "./trigger-config.ts";

/** The stored attribute of a settings record. */
export const RECORDING_CONFIG_ATTRIBUTE = "relevance_recording_config";

const ACCOUNT_ID = /^acct_[0-9a-f]{12}$/;

/** The admin API's shape of the config (camelCase). */
export const RelevanceRecordingConfigSchema = z
  .strictObject({
    sampleRate: z
      .number()
      .min(0)
      .max(1)
      .meta({
        description: `Share of the index's scored searches that are recorded, 0 to 1 (default ${DEFAULT_SAMPLE_RATE}: every one).`,
      }),
  })
  .meta({ id: "RelevanceRecordingConfig" });

export const PutRecordingConfig = z.strictObject({
  relevanceRecordingConfig: RelevanceRecordingConfigSchema.nullable().meta({
    description: "null removes the config: every scored search is recorded.",
  }),
});
export const RecordingConfigRead = z.object({
  relevanceRecordingConfig: z.unknown().meta({
    description:
      "The config, null when not set (every search recorded); when storedConfigProblems is present, the stored value as is (snake_case).",
  }),
  version: z.number().int(),
  storedConfigProblems: z.array(IssueSchema).optional().meta({
    description:
      "Only when the stored value is malformed (a direct table edit); then every search is recorded.",
  }),
});
export const RecordingConfigWritten = z.object({
  relevanceRecordingConfig: RelevanceRecordingConfigSchema.nullable(),
  version: z.number().int(),
});

/** What the GET shows of a stored value. */
export function recordingConfigView(stored: unknown): {
  relevanceRecordingConfig: unknown;
  storedConfigProblems?: z.infer<typeof IssueSchema>[];
} {
  if (stored === undefined || stored === null) return { relevanceRecordingConfig: null };
  const parsed = RecordingConfigSchema.safeParse(stored);
  if (parsed.success) return { relevanceRecordingConfig: { sampleRate: parsed.data.sample_rate } };
  return {
    relevanceRecordingConfig: stored,
    storedConfigProblems: zodIssues(parsed.error).map((i) => ({
      ...i,
      path: i.path === "" ? RECORDING_CONFIG_ATTRIBUTE : `${RECORDING_CONFIG_ATTRIBUTE}.${i.path}`,
    })),
  };
}

export const RECORDING_CONFIG_ROUTE =
  "/api/v1/admin/accounts/:account/indexes/:index/relevance-recording-config";

/** The GET and PUT routes (mounted behind the admin API's authentication and body limit). */
export function recordingConfigRoutes(deps: { table: SettingsTable; log: Logger; now: () => Date }): Hono {
  const { table, log, now } = deps;
  const app = new Hono();

  const findIndex = async (accountId: string, index: string) => {
    if (!ACCOUNT_ID.test(accountId) || (await table.get(accountId, ACCOUNT_SK)) === null) {
      throw notFound("account not found");
    }
    const record = await findRecord(table, accountId, index);
    if (record === null) throw notFound("index not found");
    return record;
  };

  app.get(RECORDING_CONFIG_ROUTE, async (c) => {
    const record = await findIndex(c.req.param("account"), c.req.param("index"));
    c.header("ETag", etag(record.version));
    return c.json({
      ...recordingConfigView(record.attributes[RECORDING_CONFIG_ATTRIBUTE]),
      version: record.version,
    });
  });

  app.put(RECORDING_CONFIG_ROUTE, async (c) => {
    const { relevanceRecordingConfig: config } = parseWith(
      PutRecordingConfig,
      await readJson(c, 422),
      "the relevance recording config is invalid",
    );
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
    const attributes: Record<string, unknown> = { ...record.attributes, updated_at: now().toISOString() };
    if (config === null) delete attributes[RECORDING_CONFIG_ATTRIBUTE];
    else attributes[RECORDING_CONFIG_ATTRIBUTE] = { sample_rate: config.sampleRate };
    // Never a blind write: only at the version just read.
    const written = await table.put(accountId, indexSk(index), attributes as typeof record.attributes, {
      expectedVersion: record.version,
    });
    if (!written.ok) {
      throw conflict("another process updated the index since it was read; read it again and retry");
    }
    const version = written.item.version;
    log.info("relevance recording config set", {
      systemAccountId: accountId,
      index,
      sampleRate: config?.sampleRate ?? null,
      version,
    });
    c.header("ETag", etag(version));
    return c.json({ relevanceRecordingConfig: config, version });
  });

  return app;
}

const DOC_PATH = "/api/v1/admin/accounts/{id}/indexes/{index}/relevance-recording-config";

/** The routes above as the OpenAPI document lists them. */
export const recordingConfigRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "get",
    path: DOC_PATH,
    ...ADMIN,
    summary:
      "Read the relevance recording config (the sample rate of recorded searches) of an index or alias.",
    request: { params: IndexRouteParams },
    responses: {
      200: {
        description:
          "The config (null when not set: every scored search is recorded) and the record's version.",
        headers: ETAG,
        content: json(RecordingConfigRead),
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
      "Set (or with null remove) the relevance recording config; a conditional write on the record's version.",
    request: { params: IndexRouteParams, headers: IF_MATCH, body: body(PutRecordingConfig) },
    responses: {
      200: { description: "Written.", headers: ETAG, content: json(RecordingConfigWritten) },
      ...AUTHENTICATED,
      404: errorAnswer("No such account or index."),
      409: errorAnswer(
        "Another process updated the index since it was read (or If-Match is stale); read and retry.",
      ),
      413: limits.json,
      422: errorAnswer("Body not JSON, other keys, or sampleRate missing, not a number or outside 0 to 1."),
      507: E507,
    },
  }),
];
