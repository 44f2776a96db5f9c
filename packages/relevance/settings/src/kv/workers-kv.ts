// Kv over a Workers KV binding. Bundled into the Cloudflare Worker: no `node:*`, no code generation,
// no dependency on @cloudflare/workers-types (the binding is described structurally below).
import type { Kv } from "../ports.ts";
import { compareKeys } from "./sort.ts";

/** The part of a Workers KV namespace binding (`KVNamespace`) that this adapter uses. */
export interface KvNamespaceBinding {
  get(key: string, type: "text"): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  list(options: { prefix?: string | null; cursor?: string | null; limit?: number }): Promise<KvListPage>;
}

export type KvListPage =
  | { keys: { name: string }[]; list_complete: false; cursor: string }
  | { keys: { name: string }[]; list_complete: true; cursor?: string };

export class WorkersKv implements Kv {
  private readonly ns: KvNamespaceBinding;

  constructor(ns: KvNamespaceBinding) {
    this.ns = ns;
  }

  async get(key: string): Promise<string | null> {
    return this.ns.get(key, "text");
  }

  async put(key: string, value: string): Promise<void> {
    await this.ns.put(key, value);
  }

  async delete(key: string): Promise<void> {
    await this.ns.delete(key);
  }

  async list(prefix: string): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page: KvListPage = await this.ns.list(cursor === undefined ? { prefix } : { prefix, cursor });
      for (const k of page.keys) names.push(k.name);
      if (page.list_complete) break;
      if (!page.cursor || page.cursor === cursor) {
        throw new Error(`Workers KV list("${prefix}"): incomplete page without a new cursor`);
      }
      cursor = page.cursor;
    }
    return names.sort(compareKeys);
  }
}
