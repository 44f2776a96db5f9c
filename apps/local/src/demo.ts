import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import type { LocalConfig } from "./env.ts";
import type { Stack } from "./stack.ts";

interface DemoCredentials {
  systemAccountId: string;
  apiKey: string;
}

const DEMO_PRODUCTS = [
  ["Red running shoes", ["shoes", "running", "sport"], "footwear"],
  ["Blue trail running shoes", ["shoes", "trail", "running"], "footwear"],
  ["Leather office shoes", ["shoes", "leather", "office"], "footwear"],
  ["Wool hiking socks", ["socks", "hiking", "wool"], "apparel"],
  ["Waterproof rain jacket", ["jacket", "rain", "outdoor"], "apparel"],
  ["Insulated winter jacket", ["jacket", "winter", "outdoor"], "apparel"],
  ["Stainless steel water bottle", ["bottle", "hydration", "outdoor"], "accessories"],
  ["Wireless noise cancelling headphones", ["headphones", "audio", "wireless"], "electronics"],
  ["USB-C charging cable 2 m", ["cable", "usb-c", "charging"], "electronics"],
  ["65 W USB-C laptop charger", ["charger", "usb-c", "laptop"], "electronics"],
  ["Espresso coffee beans 1 kg", ["coffee", "espresso", "beans"], "grocery"],
  ["Café crème capsules", ["coffee", "capsules"], "grocery"],
] as const;

/**
 * Demo data for `npm start` (DEMO=0 skips it): an account, a `products` index with a few
 * documents, and a `catalog` alias, created through the same HTTP API a user would call. The demo
 * API key is kept in DATA_DIR/demo.json so that restarts print the same one (demo only: real keys
 * are shown once and stored hashed).
 */
export async function seedDemo(stack: Stack, config: LocalConfig, log: Logger): Promise<DemoCredentials> {
  const file = join(config.dataDir, "demo.json");
  const call = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
    const res = await stack.app.request(path, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300 && res.status !== 409)
      throw new Error(`demo seeding: ${method} ${path} answered ${res.status}: ${text}`);
    return text === "" ? null : JSON.parse(text);
  };

  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, "utf8")) as DemoCredentials;
    const check = await stack.app.request("/api/v1/indexes", { headers: { "x-api-key": saved.apiKey } });
    if (check.status === 200) return saved;
    log.warn("saved demo credentials no longer work; creating a new demo account", { file });
  }

  const admin = { authorization: `Bearer ${config.adminToken}` };
  const created = (await call(
    "POST",
    "/api/v1/admin/accounts",
    { name: "Demo Shop" },
    admin,
  )) as DemoCredentials;
  const customer = { "x-api-key": created.apiKey };
  await call("POST", "/api/v1/indexes", { name: "products", primaryKey: "id" }, customer);
  await call(
    "PATCH",
    "/api/v1/indexes/products/settings",
    { searchableAttributes: ["title", "tags"], filterableAttributes: ["category"] },
    customer,
  );
  await call(
    "POST",
    "/api/v1/indexes/products/documents",
    DEMO_PRODUCTS.map(([title, tags, category], i) => ({ id: `p${i + 1}`, title, tags, category })),
    customer,
  );
  await call("PUT", "/api/v1/aliases/catalog", { index: "products" }, customer);
  writeFileSync(file, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600 });
  return created;
}
