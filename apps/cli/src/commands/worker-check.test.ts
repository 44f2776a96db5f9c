import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { ROOT, relevance } from "../test-support.ts";
import { checkWranglerEnv } from "./worker-check.ts";

const ACCOUNT = "0123456789abcdef0123456789abcdef";
const NAMESPACE = "fedcba9876543210fedcba9876543210";

const wrangler = (prodSection: string) => `
name = "ecom-search-proxy"
main = "src/worker.ts"
[vars]
MEILISEARCH_URL = "https://top-level-vars-are-not-inherited.example.net"

[env.prod]
${prodSection}
`;

const GOOD = `account_id = "${ACCOUNT}"
kv_namespaces = [{ binding = "KV", id = "${NAMESPACE}" }]
vars = { MEILISEARCH_URL = "https://search.acme.net", MODEL_CACHE_MB = "32", MODEL_MAX_BYTES = "8388608" }`;

const problems = (toml: string, environments: Record<string, unknown> | null = null) =>
  checkWranglerEnv(parse(toml) as Record<string, unknown>, "prod", environments).filter((f) => !f.ok);

describe("relevance worker check", () => {
  it("finds nothing wrong in a filled-in environment", () => {
    expect(problems(wrangler(GOOD))).toEqual([]);
  });

  it("names a missing environment section", () => {
    expect(problems(wrangler(GOOD).replace("[env.prod]", "[env.production]"))).toEqual([
      { name: "env.prod", ok: false, message: "the config has no [env.prod] section" },
    ]);
  });

  it("names placeholder ids and the placeholder URL", () => {
    const found = problems(`
[env.prod]
account_id = "REPLACE_WITH_PROD_STORE_ACCOUNT_ID"
kv_namespaces = [{ binding = "KV", id = "REPLACE_WITH_PROD_NAMESPACE_ID" }]
vars = { MEILISEARCH_URL = "https://meilisearch.prod.internal.example" }`);
    expect(found.map((f) => f.name)).toEqual(["account_id", "KV", "MEILISEARCH_URL"]);
  });

  it("does not take the top-level vars or a binding of another name for the environment's own", () => {
    const found = problems(
      wrangler(`account_id = "${ACCOUNT}"
kv_namespaces = [{ binding = "MODELS", id = "${NAMESPACE}" }]`),
    );
    expect(found.map((f) => f.name)).toEqual(["KV", "MEILISEARCH_URL"]);
  });

  it("applies the Worker's own rules to the variables", () => {
    const found = problems(
      wrangler(
        GOOD.replace('MODEL_CACHE_MB = "32"', 'MODEL_CACHE_MB = "0"').replace(
          "https://search",
          "http://search",
        ),
      ),
    );
    expect(found.map((f) => f.name)).toEqual(["MODEL_CACHE_MB", "MEILISEARCH_URL"]);
  });

  it("checks the OUTCOMES queue when it is bound: its consumer, dead-letter queue and ClickHouse variables", () => {
    const producer = `
[[env.prod.queues.producers]]
binding = "OUTCOMES"
queue = "prod-relevance-outcomes"
`;
    const consumer = (dlq: string) => `
[[env.prod.queues.consumers]]
queue = "prod-relevance-outcomes"
${dlq}
`;
    // Without the binding, recording is off and nothing more is asked.
    expect(problems(wrangler(GOOD))).toEqual([]);
    expect(problems(wrangler(GOOD) + producer).map((f) => f.name)).toEqual([
      "OUTCOMES",
      "CLICKHOUSE_URL",
      "CLICKHOUSE_USER",
    ]);
    const withVars = GOOD.replace(
      'MODEL_MAX_BYTES = "8388608" }',
      'MODEL_MAX_BYTES = "8388608", CLICKHOUSE_URL = "https://ch.acme.net:8443", CLICKHOUSE_USER = "recorder" }',
    );
    expect(problems(wrangler(withVars) + producer + consumer("")).map((f) => f.message)).toEqual([
      expect.stringContaining("no dead_letter_queue"),
    ]);
    expect(
      problems(wrangler(withVars) + producer + consumer('dead_letter_queue = "prod-relevance-outcomes-dlq"')),
    ).toEqual([]);
  });

  it("names a namespace that differs from relevance.environments.json's", () => {
    const found = problems(wrangler(GOOD), { prod: { kvNamespaceId: "00000000000000000000000000000000" } });
    expect(found.map((f) => f.name)).toEqual(["kvNamespaceId"]);
    expect(found[0]?.message).toMatch(/would upload models where the Worker does not read/);
  });

  it("runs as a command: exit 1 with one line per problem for the repository's placeholders, exit 0 when ready", async () => {
    const repo = await relevance(ROOT, ["worker", "check", "--env", "prod"]);
    expect(repo.code).toBe(1);
    expect(repo.stdout).toMatch(/PROBLEM {2}account_id/);
    const dir = mkdtempSync(join(tmpdir(), "wrangler-"));
    writeFileSync(join(dir, "wrangler.toml"), wrangler(GOOD));
    writeFileSync(join(dir, "environments.json"), "{}");
    const ready = await relevance(dir, [
      "worker",
      "check",
      "--env",
      "prod",
      "--wrangler",
      "wrangler.toml",
      "--environments",
      "environments.json",
      "--json",
    ]);
    expect(ready.code).toBe(0);
    expect(JSON.parse(ready.stdout)).toMatchObject({ env: "prod", ok: true });
  });
});
