/** An index's (or alias's) settings: read with its version, patched (If-Match) and handed on to the backend. */

import { createRoute } from "@hono/zod-openapi";
import type { TableItem } from "@relevance/settings";
import {
  applySettingsPatch,
  type CustomerSettings,
  customerSettings,
  INTERNAL_SETTINGS,
  mergedSettingsProblem,
  type SettingsPatch,
  settingsSizeProblem,
  validateSettingsPatch,
} from "@relevance/settings";
import { conflict, invalid } from "@shared/http";
import { type Context, Hono } from "hono";
import type { CustomerEnv } from "../auth.ts";
import { readJson } from "../body.ts";
import { taskFields } from "../index-documents.ts";
import {
  AUTHENTICATED,
  type BodyLimitAnswers,
  body,
  CUSTOMER,
  E404_INDEX,
  E502_BACKEND,
  E507,
  ETAG,
  errorAnswer,
  IF_MATCH,
  json,
  NameParams,
} from "../openapi-parts.ts";
import type { TaskSummary } from "../ports.ts";
import { etag, isAlias, recordName, retryOnConflict } from "../records.ts";
import { SettingsPatchSchema, SettingsSchema } from "../schemas.ts";
import { parseIfMatch } from "../trigger-config.ts";
import { CUSTOMER_BASE, type CustomerContext, WRITE_ATTEMPTS } from "./context.ts";

export function settingsRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { record } = ctx;
  const app = new Hono<CustomerEnv>();

  app.get(`${CUSTOMER_BASE}/indexes/:name/settings`, async (c) => {
    const item = await record(c);
    c.header("ETag", etag(item.version));
    return c.json(customerSettings(item.attributes));
  });

  app.patch(`${CUSTOMER_BASE}/indexes/:name/settings`, async (c) => {
    const input = await readJson(c, 400);
    const internal = INTERNAL_SETTINGS.filter(
      (key) => typeof input === "object" && input !== null && Object.hasOwn(input, key),
    );
    if (internal.length > 0) {
      throw invalid(
        "the relevance trigger config is internal and cannot be changed here",
        internal.map((key) => ({ path: key, message: "is an internal setting" })),
      );
    }
    const checked = validateSettingsPatch(input);
    if (!checked.ok) throw invalid("the settings are invalid", checked.errors);
    const { settings, task } = await writeSettings(ctx, c, checked.value);
    return c.json(task === undefined ? settings : { ...settings, ...taskFields(task) });
  });

  return app;
}

/**
 * The one write of an index's settings, whatever route it came by (the PATCH of all settings, a
 * per-setting route, the reset): the settings table first (If-Match honoured, retried on conflict
 * otherwise), then the whole settings handed on to the backend in one write for that version
 * (docs/settings.md, "Engine settings: one write per version"). Sets the ETag.
 */
export async function writeSettings(
  ctx: CustomerContext,
  c: Context<CustomerEnv>,
  patch: SettingsPatch,
): Promise<{ settings: CustomerSettings; task?: TaskSummary }> {
  const { deps, target, uidOf, handOn, record } = ctx;
  const { table, now } = deps;
  const ifMatch = parseIfMatch(c.req.header("if-match"));
  if (ifMatch === "invalid") {
    throw invalid("the If-Match header is invalid", [
      { path: "If-Match", message: 'must be a version such as "3"' },
    ]);
  }
  const first = await record(c);
  if (typeof ifMatch === "number" && ifMatch !== first.version) {
    throw conflict(`the settings changed since version ${ifMatch} was read; read them again and retry`);
  }
  // With If-Match the caller's read is the one that counts: one attempt. Otherwise retry a few times.
  let current: TableItem | null = first;
  const written = await retryOnConflict(typeof ifMatch === "number" ? 1 : WRITE_ATTEMPTS, async () => {
    current ??= await record(c);
    const attributes = {
      ...applySettingsPatch(current.attributes, patch),
      updated_at: now().toISOString(),
    };
    const view = customerSettings(attributes);
    const problem = settingsSizeProblem(view) ?? mergedSettingsProblem(view);
    if (problem !== null) throw invalid("the settings are invalid", [problem]);
    const result = await table.put(current.pk, current.sk, attributes, {
      expectedVersion: current.version,
    });
    current = null;
    return result.ok ? { done: result.item } : "conflict";
  });
  if (written === null) throw conflict("the settings kept changing concurrently; retry");
  const settings = customerSettings(written.attributes);
  c.header("ETag", etag(written.version));
  // An index's whole settings (not the patch), so a lost earlier update cannot leave the backend
  // behind. An alias has settings of its own but no backend index.
  if (target.kind === "store" || isAlias(written)) return { settings };
  const { backend } = target;
  const task = await handOn(
    c,
    "settings",
    "the settings are saved, but the search backend could not store them",
    () => backend.updateSettings(uidOf(c, recordName(written)), settings),
  );
  return { settings, task };
}

/** The routes above as the OpenAPI document lists them. */
export const settingsRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "get",
    path: "/api/v1/indexes/{name}/settings",
    ...CUSTOMER,
    summary: "The customer settings (never the internal relevance config).",
    request: { params: NameParams },
    responses: {
      200: { description: "Settings.", headers: ETAG, content: json(SettingsSchema) },
      ...AUTHENTICATED,
      404: E404_INDEX,
    },
  }),
  createRoute({
    method: "patch",
    path: "/api/v1/indexes/{name}/settings",
    ...CUSTOMER,
    summary: "Change some settings (a conditional read-modify-write, retried on conflict).",
    request: { params: NameParams, headers: IF_MATCH, body: body(SettingsPatchSchema) },
    responses: {
      200: { description: "The settings after the change.", headers: ETAG, content: json(SettingsSchema) },
      400: errorAnswer("Body not JSON."),
      ...AUTHENTICATED,
      404: E404_INDEX,
      409: errorAnswer("Stale If-Match, or concurrent writers kept winning."),
      413: limits.json,
      422: errorAnswer(
        "Unknown keys, invalid values, a value over its limit, settings over the total, a key named " +
          "__proto__, constructor or prototype, or relevanceTriggerConfig / relevance_trigger_config.",
      ),
      502: E502_BACKEND,
      507: E507,
    },
  }),
];
