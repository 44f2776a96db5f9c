// Every route npm start serves is in one of its OpenAPI documents (the APIs' /api/v1/openapi.json,
// which includes the search proxy, and the monitor's /api/system/openapi.json), and every
// documented operation is served: a new route without its documentation fails here.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { undocumentedRoutes } from "@shared/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN } from "./test-support.ts";

const quiet: Logger = { info() {}, warn() {}, error() {} };
let stack: Stack;

beforeAll(async () => {
  stack = await startStack(
    configFrom({
      PORT: "0",
      DATA_DIR: mkdtempSync(join(tmpdir(), "openapi-")),
      ADMIN_TOKEN,
      MONITOR_TOKEN,
      DEMO: "0",
    }),
    quiet,
  );
});

afterAll(async () => {
  await stack?.stop();
});

describe("OpenAPI documents of npm start", () => {
  it("list every route served, and serve every route listed", async () => {
    const api = (await (await fetch(`${stack.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const monitorRes = await fetch(`${stack.url}/api/system/openapi.json`, {
      headers: { authorization: `Bearer ${MONITOR_TOKEN}` },
    });
    expect(monitorRes.status).toBe(200);
    const monitor = (await monitorRes.json()) as { paths: Record<string, Record<string, unknown>> };
    expect(undocumentedRoutes(stack.app, [api, monitor])).toEqual({ undocumented: [], unserved: [] });
  });

  it("include the search route with its bounds", async () => {
    const api = (await (await fetch(`${stack.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, { properties: Record<string, { maxLength?: number }> }> };
    };
    expect(Object.keys(api.paths)).toContain("/api/v1/indexes/{index}/search");
    expect(api.components.schemas.SearchRequest?.properties.q?.maxLength).toBe(1000);
  });
});
