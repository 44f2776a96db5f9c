/**
 * One internal per-index setting of the relevance service, read and set on a route of its own beside
 * the relevance trigger config (`…/indexes/{index}/<segment>`, GET and PUT with ETag and If-Match):
 * the admin API takes `{<bodyKey>: {…camelCase}}` (or null to remove it), the settings record stores
 * `<attribute>: {…snake_case}`, and the exporter copies the record as is to KV, where the search
 * reads it. The recording, shadow and canary configs are specs of this one flow.
 */
import { createRoute } from "@hono/zod-openapi";
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

type Issue = z.infer<typeof IssueSchema>;

export interface IndexSettingSpec<C extends object, S> {
  /** The path segment after `…/indexes/{index}/`. */
  segment: string;
  /** The stored attribute of a settings record (snake_case). */
  attribute: string;
  /** The body key of the admin API (camelCase). */
  bodyKey: string;
  /** "relevance shadow config": in messages and log lines. */
  label: string;
  /** The admin API's shape of the setting (camelCase). */
  schema: z.ZodType<C>;
  /** The stored shape (snake_case). */
  stored: z.ZodType<S>;
  toStored(config: C): S;
  fromStored(stored: S): C;
  /** A problem of a well-formed stored value (a model of another account), path below the attribute. */
  storedProblem?(stored: S, account: string): { path: string; message: string } | null;
  /** Refusals beyond the schema (422, nothing written), checked before the record is read. */
  refuse?(config: C, account: string): Promise<Issue[]>;
  /** Problems that do not stop the write; when given, the PUT answers `warnings`. */
  warn?(config: C): Promise<string[]>;
  /** Fields of the "<label> set" log line. */
  logFields(config: C | null): Record<string, unknown>;
  docs: {
    /** "what null means" in the PUT body, e.g. "no shadow scoring". */
    nullMeans: string;
    /** The same in the GET's description, when worded otherwise. */
    notSet?: string;
    readSummary: string;
    readAnswer: string;
    /** What happens while the stored value is malformed. */
    whileMalformed: string;
    putSummary: string;
    written: string;
    warnings?: string;
    refused: string;
  };
}

const ACCOUNT_ID = /^acct_[0-9a-f]{12}$/;

export interface IndexSettingDeps {
  table: SettingsTable;
  log: Logger;
  now: () => Date;
}

/** The route's schemas, for the OpenAPI document and the PUT's parsing. */
export function indexSettingSchemas<C extends object, S>(spec: IndexSettingSpec<C, S>) {
  const { bodyKey, docs } = spec;
  return {
    Put: z.strictObject({
      [bodyKey]: spec.schema.nullable().meta({ description: `null removes the config: ${docs.nullMeans}.` }),
    }),
    Read: z.object({
      [bodyKey]: z.unknown().meta({
        description: `The config, null when not set (${docs.notSet ?? docs.nullMeans}); when storedConfigProblems is present, the stored value as is (snake_case).`,
      }),
      version: z.number().int(),
      storedConfigProblems: z
        .array(IssueSchema)
        .optional()
        .meta({
          description: `Only when the stored value is malformed (a direct table edit); then ${docs.whileMalformed}.`,
        }),
    }),
    Written: z.object({
      [bodyKey]: spec.schema.nullable(),
      version: z.number().int(),
      ...(docs.warnings === undefined
        ? {}
        : { warnings: z.array(z.string()).meta({ description: docs.warnings }) }),
    }),
  };
}

/** What the GET shows of a stored value: the config, or the value as is with its problems. */
export function indexSettingView<C extends object, S>(
  spec: IndexSettingSpec<C, S>,
  stored: unknown,
  account: string,
): Record<string, unknown> {
  const { bodyKey, attribute } = spec;
  if (stored === undefined || stored === null) return { [bodyKey]: null };
  const parsed = spec.stored.safeParse(stored);
  if (parsed.success) {
    const problem = spec.storedProblem?.(parsed.data, account) ?? null;
    if (problem === null) return { [bodyKey]: spec.fromStored(parsed.data) };
    return {
      [bodyKey]: stored,
      storedConfigProblems: [{ path: `${attribute}.${problem.path}`, message: problem.message }],
    };
  }
  return {
    [bodyKey]: stored,
    storedConfigProblems: zodIssues(parsed.error).map((i) => ({
      ...i,
      path: i.path === "" ? attribute : `${attribute}.${i.path}`,
    })),
  };
}

/** The GET and PUT routes (mounted behind the admin API's authentication and body limit). */
export function indexSettingRoutes<C extends object, S>(
  spec: IndexSettingSpec<C, S>,
  deps: IndexSettingDeps,
): Hono {
  const { table, log, now } = deps;
  const { attribute, bodyKey, label } = spec;
  const route = `/api/v1/admin/accounts/:account/indexes/:index/${spec.segment}`;
  const { Put } = indexSettingSchemas(spec);
  const app = new Hono();

  const findIndex = async (accountId: string, index: string) => {
    if (!ACCOUNT_ID.test(accountId) || (await table.get(accountId, ACCOUNT_SK)) === null) {
      throw notFound("account not found");
    }
    const record = await findRecord(table, accountId, index);
    if (record === null) throw notFound("index not found");
    return record;
  };

  app.get(route, async (c) => {
    const accountId = c.req.param("account") ?? "";
    const record = await findIndex(accountId, c.req.param("index") ?? "");
    c.header("ETag", etag(record.version));
    return c.json({
      ...indexSettingView(spec, record.attributes[attribute], accountId),
      version: record.version,
    });
  });

  app.put(route, async (c) => {
    const accountId = c.req.param("account") ?? "";
    const parsed = parseWith(Put, await readJson(c, 422), `the ${label} is invalid`) as Record<
      string,
      unknown
    >;
    const config = parsed[bodyKey] as C | null;
    const refused = config === null || spec.refuse === undefined ? [] : await spec.refuse(config, accountId);
    if (refused.length > 0) throw invalid(`the ${label} is invalid`, refused);
    const ifMatch = parseIfMatch(c.req.header("if-match"));
    if (ifMatch === "invalid") {
      throw invalid("the If-Match header is invalid", [
        { path: "If-Match", message: 'must be a version such as "3"' },
      ]);
    }
    const index = c.req.param("index") ?? "";
    const record = await findIndex(accountId, index);
    if (typeof ifMatch === "number" && ifMatch !== record.version) {
      throw conflict(
        `the index was updated since version ${ifMatch} was read (now version ${record.version}); read it again and retry`,
      );
    }
    const warnings = spec.warn === undefined ? undefined : config === null ? [] : await spec.warn(config);
    const attributes: Record<string, unknown> = { ...record.attributes, updated_at: now().toISOString() };
    if (config === null) delete attributes[attribute];
    else attributes[attribute] = spec.toStored(config);
    // Never a blind write: only at the version just read.
    const written = await table.put(accountId, indexSk(index), attributes as typeof record.attributes, {
      expectedVersion: record.version,
    });
    if (!written.ok) {
      throw conflict("another process updated the index since it was read; read it again and retry");
    }
    const version = written.item.version;
    const warned = warnings === undefined ? {} : { warnings };
    log.info(`${label} set`, {
      systemAccountId: accountId,
      index,
      ...spec.logFields(config),
      version,
      ...warned,
    });
    c.header("ETag", etag(version));
    return c.json({ [bodyKey]: config, version, ...warned });
  });

  return app;
}

/** The routes above as the OpenAPI document lists them. */
export function indexSettingRouteDocs<C extends object, S>(
  spec: IndexSettingSpec<C, S>,
  limits: BodyLimitAnswers,
) {
  const path = `/api/v1/admin/accounts/{id}/indexes/{index}/${spec.segment}`;
  const { docs } = spec;
  const { Put, Read, Written } = indexSettingSchemas(spec);
  return [
    createRoute({
      method: "get",
      path,
      ...ADMIN,
      summary: docs.readSummary,
      request: { params: IndexRouteParams },
      responses: {
        200: { description: docs.readAnswer, headers: ETAG, content: json(Read) },
        ...AUTHENTICATED,
        404: errorAnswer("No such account or index."),
      },
    }),
    createRoute({
      method: "put",
      path,
      ...ADMIN,
      summary: docs.putSummary,
      request: { params: IndexRouteParams, headers: IF_MATCH, body: body(Put) },
      responses: {
        200: { description: docs.written, headers: ETAG, content: json(Written) },
        ...AUTHENTICATED,
        404: errorAnswer("No such account or index."),
        409: errorAnswer(
          "Another process updated the index since it was read (or If-Match is stale); read and retry.",
        ),
        413: limits.json,
        422: errorAnswer(docs.refused),
        507: E507,
      },
    }),
  ];
}
