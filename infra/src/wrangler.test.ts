/**
 * The Worker's deploy configuration (apps/edge-worker/wrangler.toml), read by wrangler itself: one
 * environment per search environment, each with its own KV namespace bound as `KV` and a pinned
 * Cloudflare account, prod's being its own.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { SEARCH_ENVIRONMENTS } from "./environments.ts";

const WRANGLER_TOML = fileURLToPath(new URL("../../apps/edge-worker/wrangler.toml", import.meta.url));

const read = (env: string) => unstable_readConfig({ config: WRANGLER_TOML, env }, { hideWarnings: true });

describe("apps/edge-worker/wrangler.toml", () => {
  it.each(SEARCH_ENVIRONMENTS)("%s: its own worker, the KV binding and a pinned store account", (env) => {
    const config = read(env);
    expect(config.name).toBe(`${env}-ecom-search-proxy`);
    expect(config.kv_namespaces.map((k: { binding: string }) => k.binding)).toEqual(["KV"]);
    expect(config.kv_namespaces[0]?.id ?? "").not.toBe("");
    expect(config.account_id ?? "").not.toBe("");
  });

  it("gives every environment its own namespace, and prod an account of its own", () => {
    const configs = SEARCH_ENVIRONMENTS.map(read);
    const namespaces = configs.map((c) => c.kv_namespaces[0]?.id);
    expect(new Set(namespaces).size).toBe(SEARCH_ENVIRONMENTS.length);
    const accounts = new Map(SEARCH_ENVIRONMENTS.map((env, i) => [env, configs[i]?.account_id]));
    expect(new Set([accounts.get("dev"), accounts.get("staging"), accounts.get("preprod")]).size).toBe(1);
    expect(accounts.get("prod")).not.toBe(accounts.get("dev"));
  });
});
