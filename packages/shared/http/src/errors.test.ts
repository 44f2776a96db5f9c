import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ApiError, invalid, onError } from "./errors.ts";
import { MAX_ERROR_DETAILS } from "./limits.ts";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe("error answers list at most 100 problems, with their count", () => {
  it("keeps the first 100 of 90,000 details and says how many there were", async () => {
    const details = Array.from({ length: 90_000 }, (_, i) => ({
      path: `k${i}`,
      message: "is not a known field",
    }));
    const app = new Hono();
    app.onError(onError(silent));
    app.post("/x", () => {
      throw invalid("the request is invalid", details);
    });
    const res = await app.request("/x", { method: "POST" });
    expect(res.status).toBe(422);
    const text = await res.text();
    expect(text.length).toBeLessThan(16 * 1024);
    const body = JSON.parse(text) as { error: { message: string; details: { path: string }[] } };
    expect(body.error.details).toHaveLength(MAX_ERROR_DETAILS);
    expect(body.error.details[0]?.path).toBe("k0");
    expect(body.error.details.at(-1)?.path).toBe("k99");
    expect(body.error.message).toBe("the request is invalid (90000 problems; the first 100 are listed)");
  });

  it("leaves 100 or fewer details and their message as they are", () => {
    const details = Array.from({ length: 100 }, (_, i) => ({ path: `k${i}`, message: "bad" }));
    const error = new ApiError(422, "validation_failed", "invalid", details);
    expect(error.message).toBe("invalid");
    expect(error.details).toHaveLength(100);
    expect(new ApiError(404, "not_found", "gone").details).toBeUndefined();
  });
});
