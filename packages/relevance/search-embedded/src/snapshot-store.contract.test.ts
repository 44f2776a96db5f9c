// The IndexSnapshotStore contract, run over every adapter: SQLite (parts as rows) and files (npm
// start's, DATA_DIR/search-index). Then what only the file store promises: byte parts handed back as
// consecutive views of one buffer (so a load adopts the arrays), a damaged file read as none,
// owner-only files, and no temporary file left behind.
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@relevance/settings/sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { FileIndexSnapshotStore } from "./file-snapshots.ts";
import { loadSnapshot, snapshotParts } from "./snapshot-parts.ts";
import type { IndexSnapshotStore } from "./snapshots.ts";
import { SqliteIndexSnapshotStore } from "./sqlite-snapshots.ts";
import { smallIndex } from "./test-support/small-index.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "snapshot-store-"));
  dirs.push(dir);
  return dir;
}

const adapters: [string, () => IndexSnapshotStore][] = [
  ["SQLite", () => new SqliteIndexSnapshotStore(openDatabase(":memory:"))],
  ["files", () => new FileIndexSnapshotStore(join(tempDir(), "search-index"))],
];

const bytes = (...values: number[]) => Uint8Array.from(values);

describe.each(adapters)("IndexSnapshotStore contract: %s", (_, make) => {
  it("has no snapshot of an index never stored", async () => {
    expect(await make().get("acct", "products")).toBeNull();
  });

  it("gives back what was put: text and bytes, in order, of any length", async () => {
    const store = make();
    const parts = [
      '{"format":1}',
      "",
      "line\nbreak ünïcode 🙂",
      bytes(1, 2, 3),
      new Uint8Array(0),
      bytes(9, 8, 7, 6, 5, 4, 3, 2, 1),
    ];
    await store.put("acct", "products", { revision: 3, parts });
    const got = await store.get("acct", "products");
    expect(got?.revision).toBe(3);
    expect(got?.parts.map((p) => (typeof p === "string" ? p : [...p]))).toEqual(
      parts.map((p) => (typeof p === "string" ? p : [...p])),
    );
  });

  it("replaces a snapshot with a newer one, never with an older one, even when puts overlap", async () => {
    const store = make();
    await store.put("acct", "products", { revision: 2, parts: ["two"] });
    await store.put("acct", "products", { revision: 4, parts: ["four"] });
    expect(await store.get("acct", "products")).toEqual({ revision: 4, parts: ["four"] });
    await store.put("acct", "products", { revision: 3, parts: ["three"] });
    expect(await store.get("acct", "products")).toEqual({ revision: 4, parts: ["four"] });
    await Promise.all([
      store.put("acct", "products", { revision: 7, parts: ["seven"] }),
      store.put("acct", "products", { revision: 9, parts: ["nine"] }),
      store.put("acct", "products", { revision: 8, parts: ["eight"] }),
    ]);
    expect(await store.get("acct", "products")).toEqual({ revision: 9, parts: ["nine"] });
  });

  it("keeps each account's and index's snapshot apart, whatever their names", async () => {
    const store = make();
    const names: [string, string][] = [
      ["acct", "products"],
      ["acct", "products2"],
      ["other", "products"],
      ["a/b", "../x"],
      ["ácçt", "prodüits 🙂"],
    ];
    for (const [i, [account, index]] of names.entries())
      await store.put(account, index, { revision: i + 1, parts: [`${account}|${index}`] });
    for (const [i, [account, index]] of names.entries())
      expect(await store.get(account, index)).toEqual({ revision: i + 1, parts: [`${account}|${index}`] });
  });
});

/** A small index's snapshot parts, as the engine writes them. */
function indexParts() {
  const content = smallIndex();
  const header = { format: 1, config: "c", fields: content.index.data.fields };
  return { content, parts: [...snapshotParts(content, header)] };
}

describe("FileIndexSnapshotStore", () => {
  it("hands the bytes back as consecutive views of one buffer, which a load adopts as the index's arrays", async () => {
    const store = new FileIndexSnapshotStore(tempDir());
    const { content, parts } = indexParts();
    await store.put("acct", "products", { revision: 1, parts });
    const got = await store.get("acct", "products");
    const views = (got?.parts ?? []).filter((p): p is Uint8Array => typeof p !== "string");
    expect(new Set(views.map((v) => v.buffer)).size).toBe(1);
    const loaded = await loadSnapshot(got?.parts ?? [], async () => {});
    expect(loaded.index.data).toEqual(content.index.data);
    expect(loaded.columns).toEqual(content.columns);
    expect(loaded.index.data.docs.buffer).toBe(views[0]?.buffer);
  });

  it("reads a damaged file as no snapshot: cut short, other bytes, or another index's", async () => {
    const dir = tempDir();
    const store = new FileIndexSnapshotStore(dir);
    await store.put("acct", "products", { revision: 1, parts: ["header", bytes(1, 2, 3, 4)] });
    const [file] = readdirSync(dir);
    const path = join(dir, file as string);
    const whole = readFileSync(path);
    truncateSync(path, whole.length - 3);
    expect(await store.get("acct", "products")).toBeNull();
    writeFileSync(path, "not a snapshot at all");
    expect(await store.get("acct", "products")).toBeNull();
    writeFileSync(path, Buffer.concat([whole, Buffer.from("trailing")]));
    expect(await store.get("acct", "products")).toBeNull();
    // another index's file under this one's name
    await store.put("acct", "other", { revision: 1, parts: ["x"] });
    const other = readdirSync(dir).find((f) => f !== file) as string;
    writeFileSync(path, readFileSync(join(dir, other)));
    expect(await store.get("acct", "products")).toBeNull();
    // and a new put replaces what cannot be read
    await store.put("acct", "products", { revision: 1, parts: ["again"] });
    expect(await store.get("acct", "products")).toEqual({ revision: 1, parts: ["again"] });
  });

  it("writes owner-only files, leaves no temporary file, and removes those a stopped write left", async () => {
    const dir = join(tempDir(), "search-index");
    const store = new FileIndexSnapshotStore(dir);
    await store.put("acct", "products", { revision: 1, parts: ["a"] });
    writeFileSync(join(dir, "0123.snapshot.abc.tmp"), "half a write");
    const later = new FileIndexSnapshotStore(dir);
    await later.put("acct", "products", { revision: 2, parts: ["b"] });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{32}\.snapshot$/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, files[0] as string)).mode & 0o777).toBe(0o600);
  });

  it("fails a put it cannot store (the caller logs it and keeps answering), leaving nothing behind", async () => {
    const parent = tempDir();
    writeFileSync(join(parent, "not-a-folder"), "");
    const store = new FileIndexSnapshotStore(join(parent, "not-a-folder", "search-index"));
    await expect(store.put("acct", "products", { revision: 1, parts: ["a"] })).rejects.toThrow();
    expect(readdirSync(parent)).toEqual(["not-a-folder"]);
  });
});
