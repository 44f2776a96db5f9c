import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { formatBytes, limitBody } from "./body-limit.ts";
import { onError } from "./errors.ts";

const quiet = { info() {}, warn() {}, error() {} };

function app(max: number) {
  const a = new Hono();
  a.onError(onError(quiet));
  a.post("/", limitBody(max), async (c) => c.json({ length: (await c.req.text()).length }));
  return a;
}

describe("limitBody", () => {
  it("answers a body over the limit with a JSON 413 that names the field and the limit", async () => {
    const res = await app(1024).request("/", { method: "POST", body: "x".repeat(1025) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: {
        code: "payload_too_large",
        message: "the request body is larger than the limit of 1 KiB",
        details: [{ path: "body", message: "must be at most 1024 bytes" }],
      },
    });
  });

  it("counts a chunked body while reading it and stops at the limit", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled > 10_000) controller.close();
        else controller.enqueue(new Uint8Array(1024));
      },
    });
    // Node's fetch needs `duplex` for a streamed body; RequestInit's type lacks it.
    const res = await app(64 * 1024).request("/", {
      method: "POST",
      body: stream,
      headers: { "transfer-encoding": "chunked" },
      duplex: "half",
    });
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(100);
  });

  it("lets a body at the limit through", async () => {
    const res = await app(1024).request("/", { method: "POST", body: "x".repeat(1024) });
    expect(await res.json()).toEqual({ length: 1024 });
  });

  it("formats sizes as people read them", () => {
    expect(formatBytes(20 * 1024 * 1024)).toBe("20 MiB");
    expect(formatBytes(512 * 1024)).toBe("512 KiB");
    expect(formatBytes(300)).toBe("300 bytes");
  });
});

describe("limitBody on the event loop", () => {
  it("gives the event loop a turn every megabyte of a chunked body, however fast it arrives", async () => {
    // 8 MiB already there when reading starts: without turns it is all read in one.
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 128; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const res = await app(16 * 1024 * 1024).request("/", {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    done = true;
    expect(await res.json()).toEqual({ length: 8 * 1024 * 1024 });
    expect(turns).toBeGreaterThanOrEqual(7);
  });
});
