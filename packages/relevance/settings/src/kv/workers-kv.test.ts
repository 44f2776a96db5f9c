// The Workers KV adapter against a real KV namespace served by workerd (Miniflare).
import { Miniflare } from "miniflare";
import { afterAll, describe, expect, it } from "vitest";
import { kvContract } from "../contract/kv.contract.ts";
import { type KvListPage, type KvNamespaceBinding, WorkersKv } from "./workers-kv.ts";

let mf: Miniflare | undefined;

/** A Miniflare instance per namespace, so every test starts from an empty store. */
async function freshNamespace(): Promise<KvNamespaceBinding> {
  await mf?.dispose();
  mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response('') } }",
    kvNamespaces: ["KV"],
  });
  return (await mf.getKVNamespace("KV")) as unknown as KvNamespaceBinding;
}

afterAll(async () => {
  await mf?.dispose();
});

kvContract("Workers KV binding (Miniflare/workerd)", async () => new WorkersKv(await freshNamespace()));

describe("WorkersKv", () => {
  it("follows list cursors until the listing is complete", async () => {
    const pages: KvListPage[] = [
      { keys: [{ name: "p:b" }], list_complete: false, cursor: "c1" },
      { keys: [{ name: "p:a" }], list_complete: false, cursor: "c2" },
      { keys: [{ name: "p:c" }], list_complete: true },
    ];
    const seen: unknown[] = [];
    const ns: KvNamespaceBinding = {
      get: async () => null,
      put: async () => {},
      delete: async () => {},
      list: async (options) => {
        seen.push(options);
        const page = pages.shift();
        if (!page) throw new Error("listed past the last page");
        return page;
      },
    };
    expect(await new WorkersKv(ns).list("p:")).toEqual(["p:a", "p:b", "p:c"]);
    expect(seen).toEqual([{ prefix: "p:" }, { prefix: "p:", cursor: "c1" }, { prefix: "p:", cursor: "c2" }]);
  });

  it("lists more than one page of a real namespace", async () => {
    const kv = new WorkersKv(await freshNamespace());
    const keys = Array.from({ length: 1005 }, (_, i) => `many:${String(i).padStart(4, "0")}`);
    await Promise.all(keys.map((k) => kv.put(k, "x")));
    await kv.put("other", "x");
    expect(await kv.list("many:")).toEqual(keys);
  });
});
