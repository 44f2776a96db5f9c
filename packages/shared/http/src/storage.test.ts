import { DatabaseSync } from "node:sqlite";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { onError } from "./errors.ts";
import { storageFullCause } from "./storage.ts";

/** A real SQLITE_FULL: a database that may not grow, asked to. */
function sqliteFull(): unknown {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (body TEXT)");
  const { page_count } = db.prepare("PRAGMA page_count").get() as { page_count: number };
  db.exec(`PRAGMA max_page_count = ${page_count}`);
  try {
    db.prepare("INSERT INTO t VALUES (?)").run("x".repeat(100_000));
  } catch (error) {
    return error;
  }
  throw new Error("the insert did not fail");
}

describe("storageFullCause", () => {
  it("recognises a full disk from SQLite, the file system, ClickHouse and chDB, and Meilisearch's code", () => {
    expect(storageFullCause(sqliteFull())).toMatch(/^SQLite: database or disk is full/);
    expect(storageFullCause(Object.assign(new Error("write failed"), { code: "ENOSPC" }))).toMatch(/^ENOSPC/);
    expect(storageFullCause(Object.assign(new Error("quota"), { code: "EDQUOT" }))).toMatch(/^EDQUOT/);
    const chdb = Object.assign(new Error("Cannot reserve 1.00 MiB, not enough space."), {
      code: "243",
      type: "NOT_ENOUGH_SPACE",
    });
    expect(storageFullCause(chdb)).toMatch(/NOT_ENOUGH_SPACE/);
    const written = new Error(
      "Cannot write to file /data/store/tmp_insert_all_1_1_0/data.bin, errno: 28, strerror: No space left on device.",
    );
    expect(storageFullCause(written)).toMatch(/No space left on device/);
    expect(storageFullCause({ error: { code: "no_space_left_on_device", message: "full" } })).toBe("full");
  });

  it("follows causes, as the stores wrap the engine's error", () => {
    const wrapped = new Error("analytics database rejected insertRuns", {
      cause: new Error("insert failed", { cause: Object.assign(new Error("disk"), { code: "ENOSPC" }) }),
    });
    expect(storageFullCause(wrapped)).toMatch(/^ENOSPC/);
  });

  it("is null for every other failure, SQLite's included", () => {
    const db = new DatabaseSync(":memory:");
    const syntax = (() => {
      try {
        db.exec("SELEC 1");
      } catch (error) {
        return error;
      }
    })();
    expect(storageFullCause(syntax)).toBeNull();
    expect(storageFullCause(new Error("cannot rollback - no transaction is active"))).toBeNull();
    expect(storageFullCause(Object.assign(new Error("refused"), { code: "ECONNREFUSED" }))).toBeNull();
    expect(
      storageFullCause(Object.assign(new Error("syntax"), { code: "62", type: "SYNTAX_ERROR" })),
    ).toBeNull();
    expect(storageFullCause(null)).toBeNull();
    expect(storageFullCause("ENOSPC")).toBeNull();
  });
});

describe("onError on a full disk", () => {
  it("answers 507 no_space_left_on_device, logs the cause and answers none of it", async () => {
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const log = {
      info: () => undefined,
      warn: () => undefined,
      error: (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields }),
    };
    const app = new Hono();
    app.onError(onError(log));
    app.post("/write", () => {
      throw sqliteFull();
    });
    const res = await app.request("/write", { method: "POST" });
    expect(res.status).toBe(507);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("no_space_left_on_device");
    expect(body.error.message).toBe(
      "there is no space left on the device: the write was not stored; free disk space and send it again (reads still work)",
    );
    expect(JSON.stringify(body)).not.toMatch(/SQLite|database or disk/);
    expect(lines).toEqual([
      {
        message: "storage full: a write was not stored",
        fields: { method: "POST", path: "/write", cause: expect.stringMatching(/^SQLite/) },
      },
    ]);
  });
});
