/**
 * Meilisearch's per-setting routes (`/indexes/{name}/settings/filterable-attributes`, …) and the
 * reset of all settings (`DELETE /indexes/{name}/settings`), for the settings this API supports.
 * Each is a settings patch of one key (`null` resets it) through the same validation and the same
 * write as the PATCH of all settings (writeSettings); a setting Meilisearch has and this API does
 * not answers 422 naming it.
 */

import { createRoute } from "@hono/zod-openapi";
import { type CustomerSettings, customerSettings, validateSettingsPatch } from "@relevance/settings";
import { ApiError, invalid } from "@shared/http";
import { Hono } from "hono";
import type { CustomerEnv } from "../auth.ts";
import { readJson } from "../body.ts";
import { taskFields } from "../index-documents.ts";
import { DocumentTask } from "../management-schemas.ts";
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
  pathParam,
} from "../openapi-parts.ts";
import { etag } from "../records.ts";
import { SettingsPatchSchema } from "../schemas.ts";
import { CUSTOMER_BASE, type CustomerContext } from "./context.ts";
import { writeSettings } from "./settings.ts";

/** The supported settings by their route name, and the method Meilisearch updates each with. */
export const SETTING_ROUTES = {
  "searchable-attributes": { key: "searchableAttributes", method: "put" },
  "displayed-attributes": { key: "displayedAttributes", method: "put" },
  "filterable-attributes": { key: "filterableAttributes", method: "put" },
  "sortable-attributes": { key: "sortableAttributes", method: "put" },
  synonyms: { key: "synonyms", method: "put" },
  "stop-words": { key: "stopWords", method: "put" },
  "ranking-rules": { key: "rankingRules", method: "put" },
  "typo-tolerance": { key: "typoTolerance", method: "patch" },
} as const satisfies Record<string, { key: keyof CustomerSettings; method: "put" | "patch" }>;

/** Meilisearch's other settings: this API does not honour them (422 naming the setting). */
export const UNSUPPORTED_SETTINGS = [
  "distinct-attribute",
  "faceting",
  "pagination",
  "separator-tokens",
  "non-separator-tokens",
  "dictionary",
  "proximity-precision",
  "embedders",
  "search-cutoff-ms",
  "localized-attributes",
  "facet-search",
  "prefix-search",
  "chat",
] as const;

type SettingRoute = keyof typeof SETTING_ROUTES;

const unsupported = (setting: string) =>
  new ApiError(422, "not_supported", `the setting ${setting} is not supported by this API`, [
    {
      path: setting,
      message: `not supported; the supported settings are ${Object.keys(SETTING_ROUTES).join(", ")}`,
    },
  ]);

export function settingRoutes(ctx: CustomerContext): Hono<CustomerEnv> {
  const { record } = ctx;
  const app = new Hono<CustomerEnv>();
  const base = `${CUSTOMER_BASE}/indexes/:name/settings`;

  /** A patch of one setting (or all of them) through the one settings write: 202 with its task. */
  const write = async (c: Parameters<typeof writeSettings>[1], patch: Record<string, unknown>) => {
    const checked = validateSettingsPatch(patch);
    if (!checked.ok) throw invalid("the settings are invalid", checked.errors);
    const { task } = await writeSettings(ctx, c, checked.value);
    return c.json(taskFields(task), 202);
  };

  app.delete(base, async (c) => {
    const reset = Object.fromEntries(Object.values(SETTING_ROUTES).map(({ key }) => [key, null]));
    return write(c, reset);
  });

  for (const [setting, { key, method }] of Object.entries(SETTING_ROUTES) as [
    SettingRoute,
    (typeof SETTING_ROUTES)[SettingRoute],
  ][]) {
    const path = `${base}/${setting}`;
    app.get(path, async (c) => {
      const item = await record(c);
      c.header("ETag", etag(item.version));
      return c.json(customerSettings(item.attributes)[key]);
    });
    // The body is the setting's value, checked as that key of a settings PATCH (so its problems
    // are named as there: `filterableAttributes[3]`).
    app[method](path, async (c) => write(c, { [key]: await readJson(c, 400) }));
    app.delete(path, async (c) => write(c, { [key]: null }));
  }

  // Registered after the supported settings' routes, which take their own paths first.
  app.on(["GET", "PUT", "PATCH", "DELETE"], `${base}/:setting`, async (c) => {
    const setting = c.req.param("setting");
    const supported = (SETTING_ROUTES as Record<string, { method: string }>)[setting];
    if (supported !== undefined) {
      const allowed = ["DELETE", "GET", supported.method.toUpperCase()].sort().join(", ");
      c.header("Allow", allowed);
      throw new ApiError(405, "method_not_allowed", `${c.req.method} is not allowed here; use ${allowed}`);
    }
    await record(c);
    if ((UNSUPPORTED_SETTINGS as readonly string[]).includes(setting)) throw unsupported(setting);
    throw new ApiError(404, "not_found", `no such setting: ${setting.slice(0, 64)}`);
  });

  return app;
}

const SETTING_PARAMS = NameParams;
const TASK_ANSWER = {
  description:
    "Accepted: the settings are saved (ETag: their version); with an index manager the answer is its task.",
  headers: ETAG,
  content: json(DocumentTask),
};

/** The routes above as the OpenAPI document lists them. */
export const settingRouteDocs = (limits: BodyLimitAnswers) => [
  createRoute({
    method: "delete",
    path: "/api/v1/indexes/{name}/settings",
    ...CUSTOMER,
    summary: "Reset every setting to its default (Meilisearch's resetSettings).",
    request: { params: NameParams, headers: IF_MATCH },
    responses: {
      202: TASK_ANSWER,
      ...AUTHENTICATED,
      404: E404_INDEX,
      409: errorAnswer("Stale If-Match, or concurrent writers kept winning."),
      422: errorAnswer("Invalid If-Match."),
      502: E502_BACKEND,
      507: E507,
    },
  }),
  ...Object.entries(SETTING_ROUTES).flatMap(([setting, { key, method }]) => {
    const path = `/api/v1/indexes/{name}/settings/${setting}`;
    const value = SettingsPatchSchema.shape[key].unwrap().unwrap();
    return [
      createRoute({
        method: "get",
        path,
        ...CUSTOMER,
        summary: `The index's ${key}.`,
        request: { params: SETTING_PARAMS },
        responses: {
          200: { description: `${key}.`, headers: ETAG, content: json(value) },
          ...AUTHENTICATED,
          404: E404_INDEX,
        },
      }),
      createRoute({
        method,
        path,
        ...CUSTOMER,
        summary: `Set ${key}${method === "patch" ? " (merged into the stored value)" : ""}: the same write as the settings PATCH.`,
        request: { params: SETTING_PARAMS, headers: IF_MATCH, body: body(value) },
        responses: {
          202: TASK_ANSWER,
          400: errorAnswer("Body not JSON."),
          ...AUTHENTICATED,
          404: E404_INDEX,
          409: errorAnswer("Stale If-Match, or concurrent writers kept winning."),
          413: limits.json,
          422: errorAnswer("An invalid value or one over its limit (as the settings PATCH names it)."),
          502: E502_BACKEND,
          507: E507,
        },
      }),
      createRoute({
        method: "delete",
        path,
        ...CUSTOMER,
        summary: `Reset ${key} to its default.`,
        request: { params: SETTING_PARAMS, headers: IF_MATCH },
        responses: {
          202: TASK_ANSWER,
          ...AUTHENTICATED,
          404: E404_INDEX,
          409: errorAnswer("Stale If-Match, or concurrent writers kept winning."),
          502: E502_BACKEND,
          507: E507,
        },
      }),
    ];
  }),
  ...(["get", "put", "patch", "delete"] as const).map((method) =>
    createRoute({
      method,
      path: "/api/v1/indexes/{name}/settings/{setting}",
      ...CUSTOMER,
      summary: `Meilisearch's other settings (${UNSUPPORTED_SETTINGS.join(", ")}): not supported, 422 naming the setting.`,
      request: {
        params: NameParams.extend({
          setting: pathParam("One of Meilisearch's settings this API does not support."),
        }),
      },
      responses: {
        ...AUTHENTICATED,
        404: errorAnswer("No such index or alias, or no such setting."),
        405: errorAnswer("A supported setting with a method it does not take (Allow lists them)."),
        422: errorAnswer("A setting this API does not support: code not_supported, details name it."),
      },
    }),
  ),
];
