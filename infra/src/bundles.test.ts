/**
 * The Lambda bundles load in a plain Node 22 process (as the nodejs22.x runtime loads index.mjs)
 * and reach their handlers: each invocation below fails on purpose, on the configuration the stacks
 * would have provided, which proves the entry, the secret wrapper and the handler are wired.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLES, type BundleName, bundleDir, removeBundles } from "./bundles.ts";

afterAll(removeBundles);

/** Imports the bundle in a fresh Node process without AWS or CDK settings (only `extra`) and calls its handler once. */
function invoke(
  name: BundleName,
  event: unknown,
  extra: Record<string, string> = {},
): { exported: string; error: string; result: unknown } {
  const file = pathToFileURL(join(bundleDir(name), "index.mjs")).href;
  const script = `
    const m = await import(${JSON.stringify(file)});
    let error = "";
    let result = null;
    try { result = await m.handler(${JSON.stringify(event)}, {}); } catch (e) { error = String(e && e.message || e); }
    process.stdout.write(JSON.stringify({ exported: typeof m.handler, error, result: result ?? null }));
  `;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", ...extra };
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`${name} did not load: ${run.stderr}`);
  return JSON.parse(run.stdout) as { exported: string; error: string; result: unknown };
}

describe("the Lambda bundles", () => {
  it("bundles every entry of src/lambda", () => {
    for (const name of Object.keys(BUNDLES) as BundleName[]) {
      expect(readFileSync(join(bundleDir(name), "index.mjs"), "utf8").length, name).toBeGreaterThan(1000);
    }
  });

  it("search-exporter reaches the exporter, which names its missing Cloudflare settings", () => {
    expect(invoke("search-exporter", { Records: [] })).toMatchObject({
      exported: "function",
      error:
        "ecom_settings_exporter: missing environment CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN, KV_NAMESPACE_ID",
    });
  });

  it("search-admin reaches the admin app, which names its missing settings", () => {
    const r = invoke("search-admin", {
      version: "2.0",
      rawPath: "/healthz",
      requestContext: { http: { method: "GET" } },
    });
    expect(r.exported).toBe("function");
    expect(r.error).toMatch(/^AdminInternalApi: missing environment ENV, ADMIN_TOKEN/);
  });

  it("search-drift reaches the drift check, which names its missing settings", () => {
    const r = invoke("search-drift", { source: "aws.events", "detail-type": "Scheduled Event" });
    expect(r.exported).toBe("function");
    expect(r.error).toMatch(/^RelevanceDriftCheck: missing environment ENV, CLOUDFLARE_ACCOUNT_ID/);
  });

  it("search-customer reaches the customer API, which answers 503 naming its missing settings", () => {
    const r = invoke("search-customer", {
      version: "2.0",
      rawPath: "/api/v1/health",
      requestContext: { http: { method: "GET", sourceIp: "198.51.100.1" } },
      headers: {},
    });
    expect(r.exported).toBe("function");
    expect(r.error).toBe("");
    const answer = r.result as { statusCode: number; body: string };
    expect(answer.statusCode).toBe(503);
    const details = (JSON.parse(answer.body) as { error: { details: { path: string }[] } }).error.details;
    expect(details.map((d) => d.path)).toContain("MEILISEARCH_URL");
    expect(readFileSync(join(bundleDir("search-customer"), "index.mjs"), "utf8")).not.toMatch(/\.node["']\)/);
  });

  it.each([
    ["monitor-status", "svcmon-status: MONITOR_TOKEN is not set; MONITOR_SESSION_KEYS is not set"],
    ["monitor-collector", "svcmon-collector: COLLECTOR is not set; COLLECTOR_REGIONS is not set"],
    [
      "monitor-ingest",
      "svcmon-ingest: CLICKHOUSE_URL is not set; CLICKHOUSE_USERNAME is not set; CLICKHOUSE_PASSWORD is not set",
    ],
    [
      "monitor-alerts",
      "svcmon-alerts: CLICKHOUSE_URL is not set; CLICKHOUSE_USERNAME is not set; CLICKHOUSE_PASSWORD is not set",
    ],
    ["monitor-cur-ingest", "svcmon-cur-ingest: CUR_BUCKET is not set; AWS_REGION is not set"],
  ] as const)("%s loads without chDB's native engine and names its missing settings", (name, message) => {
    const r = invoke(name, { Records: [] });
    expect(r.exported).toBe("function");
    expect(r.error).toBe(message);
    expect(readFileSync(join(bundleDir(name), "index.mjs"), "utf8")).not.toMatch(/\.node["']\)/);
  });

  it("monitor-status carries the /system page's client script and uPlot's stylesheet (built in, nothing fetched at start)", () => {
    const code = readFileSync(join(bundleDir("monitor-status"), "index.mjs"), "utf8");
    expect(code).toContain("/system/assets/client-");
    // The client bundle (client-bundle.gen.ts): the silence button's label and uPlot's CSS class.
    expect(code).toContain("Silence 1 h");
    expect(code).toContain(".u-over");
  });

  it("monitor-collector stops on bad HIERARCHY_RULES_JSON with one line naming the field, before reaching ClickHouse", () => {
    const r = invoke(
      "monitor-collector",
      {},
      {
        COLLECTOR: "hierarchy_builder",
        COLLECTOR_REGIONS: "us-east-1",
        COLLECTOR_ROLE_NAME: "svcmon-collector",
        COLLECTOR_EXTERNAL_ID: "ext-0123456789",
        EVENT_QUEUE_URL: "https://sqs.us-east-1.amazonaws.com/123456789012/svcmon-events",
        HIERARCHY_RULES_JSON: JSON.stringify({ rules: [{ tag: "team", node: "unassigned/{value}" }] }),
      },
    );
    expect(r.error).toBe(
      "svcmon-collector: HIERARCHY_RULES_JSON.rules[0].node must not start with unassigned: that node is reserved (resources no rule places)",
    );
  });
});
