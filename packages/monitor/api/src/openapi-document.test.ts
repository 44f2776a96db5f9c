// The monitor's OpenAPI document, generated from the routes' zod schemas, is a valid OpenAPI 3.1
// document and lists every route the app answers (and nothing it does not serve), with and
// without a silence store. The document is made without reading the run store.
import {
  InMemoryCollectorRegistry,
  InMemoryMaintenanceStore,
  InMemorySilenceStore,
  type RunStore,
} from "@monitor/core";
import { undocumentedRoutes } from "@shared/http";
import { openApi31Problems } from "@shared/test-support/openapi-31";
import { describe, expect, it } from "vitest";
import { call, makeApp } from "./test-support.ts";

const notRead = {} as RunStore;

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, object>; securitySchemes: Record<string, object> };
};

async function documentOf(withSilences: boolean) {
  const app = makeApp({
    store: notRead,
    registry: new InMemoryCollectorRegistry(),
    ...(withSilences
      ? { silences: new InMemorySilenceStore(), maintenance: new InMemoryMaintenanceStore() }
      : {}),
  });
  const res = await call(app, "GET", "/api/system/openapi.json");
  expect(res.status).toBe(200);
  return { app, doc: res.body as Doc };
}

describe("the monitor's OpenAPI document", () => {
  it.each([false, true])("is valid OpenAPI 3.1 (with a silence store: %s)", async (withSilences) => {
    const { doc } = await documentOf(withSilences);
    expect(openApi31Problems(doc)).toEqual([]);
  });

  it.each([false, true])(
    "lists every route served, and serves every route listed (silences: %s)",
    async (withSilences) => {
      const { app, doc } = await documentOf(withSilences);
      expect(undocumentedRoutes(app, [doc])).toEqual({ undocumented: [], unserved: [] });
      expect(Object.keys(doc.paths).includes("/api/system/silences")).toBe(withSilences);
      expect(Object.keys(doc.paths).includes("/api/system/maintenance")).toBe(withSilences);
    },
  );

  it("describes the bodies with their bounds: a run record as the core checks it", async () => {
    const { doc } = await documentOf(false);
    const run = doc.components.schemas.RunRecord as {
      required: string[];
      properties: Record<string, { maxLength?: number; pattern?: string; maximum?: number }>;
    };
    expect(run.required.sort()).toEqual(
      [
        "cloud_account_id",
        "cloud_region",
        "collector",
        "completed_at",
        "events_produced",
        "rows_inserted",
        "started_at",
        "status",
      ].sort(),
    );
    expect(run.properties.collector).toMatchObject({
      maxLength: 64,
      pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$",
    });
    expect(run.properties.error?.maxLength).toBe(4096);
    expect(run.properties.rows_inserted?.maximum).toBe(4294967295);
    const body = doc.paths["/api/system/runs"]?.post?.requestBody as {
      content: { "application/json": { schema: { anyOf: { $ref?: string; maxItems?: number }[] } } };
    };
    expect(body.content["application/json"].schema.anyOf).toEqual([
      { $ref: "#/components/schemas/RunRecord" },
      { type: "array", items: { $ref: "#/components/schemas/RunRecord" }, maxItems: 1000 },
    ]);
    expect((doc as unknown as { "x-limits": unknown[] })["x-limits"].length).toBeGreaterThan(0);
  });
});
