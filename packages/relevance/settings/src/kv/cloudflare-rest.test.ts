// The Cloudflare REST adapter against a LOCAL DOUBLE of the documented Workers KV endpoints
// (Cloudflare itself cannot be reached from the test environment).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { kvContract } from "../contract/kv.contract.ts";
import { CloudflareKvError, CloudflareRestKv, type CloudflareRestKvOptions } from "./cloudflare-rest.ts";
import {
  DOUBLE_ACCOUNT as ACCOUNT,
  CloudflareApiDouble,
  DOUBLE_TOKEN as TOKEN,
} from "./test-support/cloudflare-api-double.ts";

const double = new CloudflareApiDouble();
beforeAll(() => double.start());
afterAll(() => double.stop());
afterEach(() => double.reset());

function client(overrides: Partial<CloudflareRestKvOptions> = {}): CloudflareRestKv {
  return new CloudflareRestKv({
    accountId: ACCOUNT,
    namespaceId: double.newNamespace(),
    apiToken: TOKEN,
    baseUrl: double.baseUrl,
    ...overrides,
  });
}

/** Every operation of the port, as thunks (so that no rejection goes unobserved). */
function everyOperation(kv: CloudflareRestKv): (() => Promise<unknown>)[] {
  return [() => kv.get("k"), () => kv.put("k", "v"), () => kv.delete("k"), () => kv.list("")];
}

async function failureOf(op: () => Promise<unknown>): Promise<Error> {
  const error = await op().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe("CloudflareRestKv against a local double of the Cloudflare API (Cloudflare itself is not reachable here)", () => {
  kvContract("Cloudflare REST API (local double of the documented endpoints)", async () => client());

  it("sends the documented requests: bearer token, raw body, encoded key, paginated keys", async () => {
    const namespaceId = double.newNamespace();
    const kv = client({ namespaceId });
    await kv.put("acct-products", "v");
    await kv.get("acct-products");
    await kv.delete("acct-products");
    await kv.list("acct-");
    const ns = `/client/v4/accounts/${ACCOUNT}/storage/kv/namespaces/${namespaceId}`;
    expect(double.requests.map((r) => `${r.method} ${r.path}${r.search}`)).toEqual([
      `PUT ${ns}/values/acct-products`,
      `GET ${ns}/values/acct-products`,
      `DELETE ${ns}/values/acct-products`,
      `GET ${ns}/keys?prefix=acct-&limit=1000`,
    ]);
    expect(double.requests[0]?.contentType).toBe("application/octet-stream");
    expect(double.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it("putStamped writes the value with writtenAt metadata; writeTimes reads it back with the API's clock", async () => {
    const namespaceId = double.newNamespace();
    const kv = client({ namespaceId });
    const before = Date.now();
    for (let v = 1; v <= 3; v++) await kv.putStamped(`relevance_model:a:p:v${v}`, `value ${v}`);
    await kv.put("relevance_model:a:p:v4", "unstamped");
    const after = Date.now();
    expect(await kv.get("relevance_model:a:p:v2")).toBe("value 2");
    expect(double.requests.find((r) => r.method === "PUT")?.contentType).toMatch(
      /^multipart\/form-data; boundary=/,
    );
    double.clockOffsetMs = -3_600_000;
    const { times, storeNow } = await kv.writeTimes("relevance_model:a:");
    expect([...times.keys()].sort()).toEqual([1, 2, 3].map((v) => `relevance_model:a:p:v${v}`));
    for (const at of times.values()) {
      expect(Date.parse(at)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(at)).toBeLessThanOrEqual(after + 1);
    }
    // The Date header has whole seconds: the API's clock, an hour behind this machine's here.
    expect(Math.abs((storeNow?.getTime() ?? 0) - (Date.now() - 3_600_000))).toBeLessThan(5_000);
  });

  it("follows result_info.cursor across pages", async () => {
    const kv = client();
    const keys = Array.from({ length: 7 }, (_, i) => `relevance_model:a:p:v${i}`);
    for (const key of keys.toReversed()) await kv.put(key, "x");
    await kv.put("relevance_model:b:p:v1", "x");
    double.requests.length = 0;
    expect(await kv.list("relevance_model:a:")).toEqual(keys);
    const listings = double.requests.filter((r) => r.path.endsWith("/keys"));
    expect(listings).toHaveLength(4);
    expect(new URLSearchParams(listings[0]?.search).get("cursor")).toBeNull();
    expect(new URLSearchParams(listings[0]?.search).get("limit")).toBe("1000");
    expect(new URLSearchParams(listings[1]?.search).get("cursor")).toBeTruthy();
  });

  it("encodes keys with ':', '/', spaces, '?', '#', '%' and non-ASCII", async () => {
    const namespaceId = double.newNamespace();
    const kv = client({ namespaceId });
    const keys = [
      "relevance_model:acct:p:v1",
      "a/b/../c",
      "acct-prod ucts",
      "q?x=1#frag",
      "100%",
      "acct-größe-✓😀",
    ];
    for (const [i, key] of keys.entries()) await kv.put(key, `value ${i}`);
    for (const [i, key] of keys.entries()) expect(await kv.get(key)).toBe(`value ${i}`);
    const ns = double.namespaces.get(namespaceId);
    expect([...(ns?.keys() ?? [])].sort()).toEqual([...keys].sort());
    const putPaths = double.requests
      .filter((r) => r.method === "PUT")
      .map((r) => r.path.split("/values/")[1]);
    expect(putPaths).toEqual([
      "relevance_model%3Aacct%3Ap%3Av1",
      "a%2Fb%2F..%2Fc",
      "acct-prod%20ucts",
      "q%3Fx%3D1%23frag",
      "100%25",
      "acct-gr%C3%B6%C3%9Fe-%E2%9C%93%F0%9F%98%80",
    ]);
    await kv.delete("a/b/../c");
    expect(await kv.get("a/b/../c")).toBeNull();
    expect(await kv.list("a/")).toEqual([]);
  });

  it("rejects key names the URL cannot carry", async () => {
    const kv = client();
    for (const key of ["", ".", ".."]) {
      expect((await failureOf(() => kv.put(key, "x"))).message).toContain("invalid key name");
    }
  });

  it("reports a wrong token with the status and Cloudflare's error code, never the token", async () => {
    const wrongToken = "wrong-secret-token-4711";
    const kv = client({ apiToken: wrongToken });
    for (const op of everyOperation(kv)) {
      const error = await failureOf(op);
      expect(error.message).toContain("403");
      expect(error.message).toContain("10000");
      expect(error.message).toContain("Authentication error");
      expect(error.message).not.toContain(wrongToken);
      expect(JSON.stringify(error)).not.toContain(wrongToken);
      expect(error).toBeInstanceOf(CloudflareKvError);
      expect((error as CloudflareKvError).status).toBe(403);
      expect((error as CloudflareKvError).codes).toEqual([10000]);
    }
  });

  it("treats an unknown namespace as an error, not as a missing key", async () => {
    const kv = client({ namespaceId: "no-such-namespace" });
    for (const op of everyOperation(kv)) {
      const error = await failureOf(op);
      expect(error.message).toContain("404");
      expect(error.message).toContain("10013");
    }
  });

  it("turns a 500 into an error", async () => {
    const kv = client();
    await kv.put("k", "v");
    double.failWith500 = true;
    for (const op of everyOperation(kv)) {
      const error = await failureOf(op);
      expect(error.message).toContain("500");
      expect(error.message).toContain("10001");
    }
  });

  it("reports a non-JSON error body with its status", async () => {
    const kv = client({
      fetch: async () => new Response("<html>bad gateway</html>", { status: 502 }),
    });
    const error = await failureOf(() => kv.get("k"));
    expect(error.message).toContain("502");
    expect(error.message).toContain("bad gateway");
  });

  it("times out a slow API with a clear error", async () => {
    const kv = client({ timeoutMs: 200 });
    double.holdAnswers();
    const ops = everyOperation(kv);
    for (const op of ops) {
      const error = await failureOf(op);
      expect(error.message).toMatch(/timed out after 200 ms/);
    }
    // Every request reached the API and none was answered: each timed out on the client's clock.
    expect(double.waiting).toBe(ops.length);
    double.releaseAnswers();
  });

  it("reports a network failure without the token", async () => {
    const kv = client({ baseUrl: "http://127.0.0.1:1/client/v4" });
    const error = await failureOf(() => kv.get("k"));
    expect(error.message).toContain("request failed");
    expect(error.message).not.toContain(TOKEN);
  });
});
