import { describe, expect, it } from "vitest";
import { backoffDelayMs, raceAbort, retryableReason, withRetry } from "./retry.ts";
import {
  assumeRoleAccessDenied,
  ec2RequestLimitExceeded,
  ec2Unauthorized,
  stsThrottling,
  throttlingException,
} from "./test-support/aws-responses.ts";

function recorder() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

describe("retryableReason", () => {
  it("classifies the SDK's throttling errors, 5xx, timeouts and network resets as retryable", () => {
    expect(retryableReason(throttlingException())).toBe("throttling");
    expect(retryableReason(ec2RequestLimitExceeded())).toBe("throttling");
    expect(retryableReason(stsThrottling())).toBe("throttling");
    expect(retryableReason({ name: "TooManyRequestsException", $metadata: { httpStatusCode: 429 } })).toBe(
      "throttling",
    );
    expect(retryableReason({ name: "Whatever", $metadata: { httpStatusCode: 429 } })).toBe("throttling");
    expect(retryableReason({ name: "InternalError", $metadata: { httpStatusCode: 500 } })).toBe(
      "server error",
    );
    expect(retryableReason({ name: "Unknown", $fault: "server", $metadata: { httpStatusCode: 502 } })).toBe(
      "server error",
    );
    expect(retryableReason(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))).toBe(
      "timeout",
    );
    expect(retryableReason(Object.assign(new Error("timed out"), { name: "TimeoutError" }))).toBe("timeout");
  });

  it("does not retry refusals or malformed requests", () => {
    expect(retryableReason(assumeRoleAccessDenied("111111111111"))).toBeNull();
    expect(retryableReason(ec2Unauthorized("DescribeInstances"))).toBeNull();
    expect(retryableReason({ name: "InvalidParameterValue", $metadata: { httpStatusCode: 400 } })).toBeNull();
    expect(retryableReason(new Error("plain"))).toBeNull();
    expect(retryableReason("text")).toBeNull();
  });
});

describe("backoffDelayMs (full jitter)", () => {
  it("is random × min(cap, base × 2^(attempt−1))", () => {
    const opts = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelayMs(1, { ...opts, random: () => 0.999 })).toBe(99);
    expect(backoffDelayMs(3, { ...opts, random: () => 0.5 })).toBe(200);
    expect(backoffDelayMs(10, { ...opts, random: () => 0.5 })).toBe(500);
    expect(backoffDelayMs(4, { ...opts, random: () => 0 })).toBe(0);
  });
});

describe("withRetry", () => {
  it("retries a throttled call and returns its later success, waiting with growing backoff", async () => {
    const { delays, sleep } = recorder();
    let calls = 0;
    const out = await withRetry(
      async (attempt) => {
        calls++;
        if (attempt < 3) throw throttlingException();
        return "ok";
      },
      { sleep, random: () => 0.5, baseDelayMs: 100 },
    );
    expect(out).toBe("ok");
    expect(calls).toBe(3);
    expect(delays).toEqual([50, 100]);
  });

  it("gives up after maxAttempts with the last error", async () => {
    const { delays, sleep } = recorder();
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw ec2RequestLimitExceeded();
        },
        { sleep, maxAttempts: 4 },
      ),
    ).rejects.toMatchObject({ name: "RequestLimitExceeded" });
    expect(calls).toBe(4);
    expect(delays).toHaveLength(3);
  });

  it("does not retry a non-retryable error", async () => {
    const { delays, sleep } = recorder();
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw ec2Unauthorized("DescribeVolumes");
        },
        { sleep },
      ),
    ).rejects.toMatchObject({ name: "UnauthorizedOperation" });
    expect(calls).toBe(1);
    expect(delays).toEqual([]);
  });

  it("stops at once with the signal's reason when the run is aborted", async () => {
    const ac = new AbortController();
    const reason = new Error("timed out after 5000 ms");
    let calls = 0;
    const p = withRetry(
      async () => {
        calls++;
        throw throttlingException();
      },
      {
        signal: ac.signal,
        sleep: (_ms, signal) =>
          new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason))),
      },
    );
    await Promise.resolve();
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(calls).toBe(1);
  });
});

describe("raceAbort", () => {
  it("rejects with the abort reason even when the call never settles", async () => {
    const ac = new AbortController();
    const p = raceAbort(new Promise(() => {}), ac.signal);
    ac.abort(new Error("stop"));
    await expect(p).rejects.toThrow("stop");
    await expect(raceAbort(Promise.resolve(1), ac.signal)).rejects.toThrow("stop");
    await expect(raceAbort(Promise.resolve(2), new AbortController().signal)).resolves.toBe(2);
  });
});
