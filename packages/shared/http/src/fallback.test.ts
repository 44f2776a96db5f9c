import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { routeFallback } from "./fallback.ts";

function app() {
  const root = new Hono();
  const sub = new Hono();
  sub.post("/api/v1/indexes/:index/search", (c) => c.json({ ok: true }));
  sub.get("/api/v1/indexes/:name", (c) => c.json({ ok: true }));
  sub.put("/api/v1/indexes/:name", (c) => c.json({ ok: true }));
  root.route("/", sub);
  root.notFound(routeFallback(root));
  return root;
}

describe("routeFallback", () => {
  it("answers an unknown route with the JSON 404", async () => {
    const res = await app().request("/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "not_found", message: "no such route" } });
  });

  it("answers a known path with another method with JSON 405 and Allow", async () => {
    const res = await app().request("/api/v1/indexes/products/search");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await res.json()).toEqual({
      error: { code: "method_not_allowed", message: "GET is not allowed here; use POST" },
    });
    const del = await app().request("/api/v1/indexes/products", { method: "DELETE" });
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET, HEAD, PUT");
  });
});
