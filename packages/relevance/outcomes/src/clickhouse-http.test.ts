import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeParam, httpClickHouse } from "./clickhouse-http.ts";
import { ClickHouseError } from "./clickhouse-sql.ts";
import { ClickHouseOutcomeStore } from "./clickhouse-store.ts";
import {
  type ClickHouseHttpChdbDouble,
  startClickHouseHttpChdb,
} from "./test-support/clickhouse-http-chdb.ts";

const dir = mkdtempSync(join(tmpdir(), "outcomes-http-"));
let double: ClickHouseHttpChdbDouble;

beforeAll(async () => {
  double = await startClickHouseHttpChdb(dir, { user: "u", password: "secret" });
});
afterAll(async () => {
  await double.close();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("httpClickHouse", () => {
  it("runs statements with parameters bound by the server, hostile values included", async () => {
    const ch = httpClickHouse({ url: double.url, user: "u", password: "secret", timeoutMs: 10_000 });
    const hostile = "a'b\\c\nd\te\r\0 ✓ 😀 {x:String}";
    expect(await ch.query("SELECT {s:String} AS s, {n:Int64} AS n", { s: hostile, n: -42 })).toEqual([
      { s: hostile, n: -42 },
    ]);
  });

  it("rejects with ClickHouse's exception text and code when the statement fails", async () => {
    const ch = httpClickHouse({ url: double.url, user: "u", password: "secret", timeoutMs: 10_000 });
    const err = await ch.query("SELECT nope FROM system.one").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClickHouseError);
    expect((err as ClickHouseError).code).toBe(47);
    expect((err as Error).message).toMatch(/HTTP 500.*Code: 47\. DB::Exception: .*UNKNOWN_IDENTIFIER/s);
  });

  it("sends the user and password (a wrong password is ClickHouse's 516)", async () => {
    const ch = httpClickHouse({ url: double.url, user: "u", password: "wrong", timeoutMs: 10_000 });
    const err = (await ch.query("SELECT 1").catch((e: unknown) => e)) as ClickHouseError;
    expect(err.code).toBe(516);
    expect(err.message).toMatch(/AUTHENTICATION_FAILED/);
  });

  it("rejects when the server is unreachable, naming it", async () => {
    const { url, server } = await serve(() => {});
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const store = new ClickHouseOutcomeStore(httpClickHouse({ url, timeoutMs: 2000 }));
    await expect(store.purge(0)).rejects.toThrow(new RegExp(`ClickHouse at ${url} unreachable`));
  });

  it("rejects a server that does not answer within the deadline", async () => {
    const { url, server } = await serve(() => {}); // accepts and never answers
    try {
      const ch = httpClickHouse({ url, timeoutMs: 200 });
      await expect(ch.exec("SELECT 1")).rejects.toThrow(/no answer within 200 ms/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("refuses a redirect and does not follow it", async () => {
    let followed = 0;
    const target = await serve((_req, res) => {
      followed += 1;
      res.end("");
    });
    const redirecting = await serve((_req, res) => {
      res.writeHead(307, { location: target.url });
      res.end();
    });
    try {
      const ch = httpClickHouse({ url: redirecting.url, user: "u", password: "secret", timeoutMs: 2000 });
      await expect(ch.query("SELECT 1")).rejects.toThrow(
        /redirect \(307 to http:\/\/127\.0\.0\.1:\d+\): not followed/,
      );
      expect(followed).toBe(0);
    } finally {
      redirecting.server.close();
      target.server.close();
    }
  });

  it("rejects a URL that is not http(s)", () => {
    expect(() => httpClickHouse({ url: "file:///etc/passwd", timeoutMs: 1 })).toThrow(/http\(s\)/);
  });
});

describe("escapeParam", () => {
  it("escapes what ClickHouse's text form reads as escapes, and refuses non-finite numbers", () => {
    expect(escapeParam("a\\b'c\n\t\r\0")).toBe("a\\\\b\\'c\\n\\t\\r\\0");
    expect(escapeParam(1.5)).toBe("1.5");
    expect(() => escapeParam(Number.NaN)).toThrow(RangeError);
  });
});
