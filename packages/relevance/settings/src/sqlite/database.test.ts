import { describe, expect, it } from "vitest";
import { openDatabase, transaction } from "./database.ts";
import { SqliteDocumentStore } from "./documents.ts";
import { SqliteSettingsTable } from "./settings-table.ts";
import { fillDisk, freeDisk } from "./test-support/disk-full.ts";

const BIG = "x".repeat(100_000);

function table() {
  const db = openDatabase(":memory:");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  return db;
}

const rows = (db: ReturnType<typeof table>) =>
  (db.prepare("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n;

describe("transaction on a full disk", () => {
  it("throws SQLite's own SQLITE_FULL, not a failed ROLLBACK, and stores nothing of the transaction", () => {
    const db = table();
    fillDisk(db);
    const error = (() => {
      try {
        transaction(db, () => {
          db.prepare("INSERT INTO t (body) VALUES ('small')").run();
          db.prepare("INSERT INTO t (body) VALUES (?)").run(BIG);
        });
      } catch (e) {
        return e;
      }
      return null;
    })();
    // SQLite rolled the transaction back itself: a ROLLBACK then fails with "no transaction is
    // active", which must not replace the cause.
    expect(error).toMatchObject({ code: "ERR_SQLITE_ERROR", errcode: 13 });
    expect(String(error)).not.toMatch(/cannot rollback/);
    expect(db.isTransaction).toBe(false);
    expect(rows(db)).toBe(0);
  });

  it("stores the next transaction once there is room again", () => {
    const db = table();
    fillDisk(db);
    expect(() => transaction(db, () => db.prepare("INSERT INTO t (body) VALUES (?)").run(BIG))).toThrow(
      /full/,
    );
    freeDisk(db);
    transaction(db, () => db.prepare("INSERT INTO t (body) VALUES (?)").run(BIG));
    expect(rows(db)).toBe(1);
  });

  it("still rolls back a transaction its work abandons, and throws the work's error", () => {
    const db = table();
    expect(() =>
      transaction(db, () => {
        db.prepare("INSERT INTO t (body) VALUES ('kept?')").run();
        throw new Error("the work failed");
      }),
    ).toThrow("the work failed");
    expect(db.isTransaction).toBe(false);
    expect(rows(db)).toBe(0);
  });
});

describe("the SQLite stores on a full disk", () => {
  it("a settings write fails with SQLITE_FULL and leaves neither the item nor its change-log entry", async () => {
    const db = openDatabase(":memory:");
    const settings = new SqliteSettingsTable(db);
    await settings.put("acct", "INDEX#a", { note: "before" }, { always: true });
    const changes = () => (db.prepare("SELECT COUNT(*) AS n FROM changes").get() as { n: number }).n;
    const before = changes();
    fillDisk(db);
    await expect(settings.put("acct", "INDEX#a", { note: BIG }, { always: true })).rejects.toMatchObject({
      errcode: 13,
    });
    expect((await settings.get("acct", "INDEX#a"))?.attributes).toEqual({ note: "before" });
    expect(changes()).toBe(before);
    freeDisk(db);
    expect((await settings.put("acct", "INDEX#a", { note: BIG }, { always: true })).ok).toBe(true);
  });

  it("a documents batch is stored whole or not at all, its revision unchanged when not", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    await documents.upsert("acct", "products", "id", [{ id: "a" }]);
    fillDisk(db);
    const batch = Array.from({ length: 50 }, (_, i) => ({ id: `d${i}`, body: BIG.slice(0, 5000) }));
    await expect(documents.upsert("acct", "products", "id", batch)).rejects.toMatchObject({ errcode: 13 });
    expect(await documents.count("acct", "products")).toBe(1);
    expect(await documents.revision("acct", "products")).toBe(1);
    freeDisk(db);
    await documents.upsert("acct", "products", "id", batch);
    expect(await documents.count("acct", "products")).toBe(51);
  });
});
