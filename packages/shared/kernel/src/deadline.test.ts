import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { settleWithin, TimeoutError, withDeadline, withTimeout } from "./deadline.ts";

// Fake timers: the deadline passes when the test says so, never by waiting.
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const never = () => new Promise<never>(() => {});

describe("withDeadline", () => {
  it("answers like the work when it settles first, and leaves no timer behind", async () => {
    await expect(
      withDeadline(
        100,
        async () => 7,
        () => new Error("late"),
      ),
    ).resolves.toBe(7);
    await expect(
      withDeadline(
        100,
        async () => Promise.reject(new Error("no")),
        () => new Error("late"),
      ),
    ).rejects.toThrow("no");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the caller's error at the deadline and aborts the work's signal with it", async () => {
    let seen: AbortSignal | undefined;
    const raced = withDeadline(
      100,
      (signal) => {
        seen = signal;
        return never();
      },
      () => new Error("no answer within 100 ms"),
    );
    const settled = expect(raced).rejects.toThrow("no answer within 100 ms");
    await vi.advanceTimersByTimeAsync(99);
    expect(seen?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await settled;
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toEqual(new Error("no answer within 100 ms"));
  });

  it("rejects with the error of work that throws at once, and leaves no timer behind", async () => {
    const thrown = new Error("sync throw");
    await expect(
      withDeadline(
        100,
        () => {
          throw thrown;
        },
        () => new Error("late"),
      ),
    ).rejects.toBe(thrown);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("swallows a rejection that comes after the deadline", async () => {
    let fail: (e: Error) => void = () => {};
    const raced = withDeadline(
      10,
      () => new Promise<never>((_, reject) => (fail = reject)),
      () => new Error("late"),
    );
    const settled = expect(raced).rejects.toThrow("late");
    await vi.advanceTimersByTimeAsync(10);
    await settled;
    fail(new Error("after the deadline"));
    await vi.advanceTimersByTimeAsync(0);
  });
});

describe("withTimeout", () => {
  it("rejects with a TimeoutError naming the work and the deadline", async () => {
    const raced = withTimeout(never(), 50, "the KV read");
    const settled = expect(raced).rejects.toEqual(new TimeoutError("the KV read timed out after 50 ms"));
    await vi.advanceTimersByTimeAsync(50);
    await settled;
  });
});

describe("settleWithin", () => {
  it("never rejects: ok, error or timeout", async () => {
    await expect(settleWithin(10, async () => 1)).resolves.toEqual({ status: "ok", value: 1 });
    const boom = new Error("boom");
    await expect(settleWithin(10, async () => Promise.reject(boom))).resolves.toEqual({
      status: "error",
      error: boom,
    });
    const late = settleWithin(10, never);
    await vi.advanceTimersByTimeAsync(10);
    await expect(late).resolves.toEqual({ status: "timeout" });
  });
});
