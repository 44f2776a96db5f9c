import { describe, expect, it } from "vitest";
import { parseDuration, parseSilenceArgs, SILENCE_USAGE, silenceMain } from "./silence.ts";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const env = { MONITOR_TOKEN: "tok-0123456789abcdef", USER: "ann" };

function io(reply: (url: string, init: RequestInit | undefined) => Response) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const out: string[] = [];
  const err: string[] = [];
  return {
    calls,
    out,
    err,
    io: {
      fetch: (async (url: string, init?: RequestInit) => {
        calls.push({ url, init });
        return reply(url, init);
      }) as typeof fetch,
      out: (t: string) => out.push(t),
      err: (t: string) => err.push(t),
      now: () => NOW,
    },
  };
}

const silence = {
  id: "sil-1",
  matchers: { rule: "collector_failure", subject: { op: "prefix", value: "config_ec2/" } },
  author: "ann",
  reason: "migration",
  starts_at: "2026-11-25T12:00:00.000Z",
  ends_at: "2026-11-25T14:00:00.000Z",
  state: "active",
};

describe("svcmon silence", () => {
  it("parses durations", () => {
    expect(parseDuration("90m")).toBe(90 * 60_000);
    expect(parseDuration("1h30m")).toBe(90 * 60_000);
    expect(parseDuration("2d")).toBe(2 * 86_400_000);
    expect(parseDuration("2x")).toBeNull();
    expect(parseDuration("")).toBeNull();
  });

  it("add posts the silence with the token and prints its id", async () => {
    const t = io(() => new Response(JSON.stringify(silence), { status: 201 }));
    const code = await silenceMain(
      [
        "add",
        "--rule",
        "collector_failure",
        "--subject-prefix",
        "config_ec2/",
        "--for",
        "2h",
        "--reason",
        "migration",
      ],
      env,
      t.io,
    );
    expect(code).toBe(0);
    expect(t.out).toEqual(["sil-1\n"]);
    expect(t.calls[0]?.url).toBe("http://127.0.0.1:8787/api/system/silences");
    expect(t.calls[0]?.init?.method).toBe("POST");
    expect((t.calls[0]?.init?.headers as Record<string, string> | undefined)?.authorization).toBe(
      `Bearer ${env.MONITOR_TOKEN}`,
    );
    expect(JSON.parse(t.calls[0]?.init?.body as string)).toEqual({
      matchers: { rule: "collector_failure", subject: { op: "prefix", value: "config_ec2/" } },
      author: "ann",
      reason: "migration",
      ends_at: "2026-11-25T14:00:00.000Z",
    });
  });

  it("list and expire", async () => {
    const t = io((url, init) =>
      init?.method === "DELETE"
        ? new Response(JSON.stringify({ ...silence, state: "expired" }))
        : new Response(JSON.stringify({ silences: url.endsWith("all=true") ? [silence] : [] })),
    );
    expect(await silenceMain(["list", "--url", "http://mon:9000/"], env, t.io)).toBe(0);
    expect(t.out.pop()).toBe("no silences\n");
    expect(await silenceMain(["list", "--all"], env, t.io)).toBe(0);
    expect(t.out.pop()).toContain("sil-1  active  rule=collector_failure subject^=config_ec2/");
    expect(await silenceMain(["expire", "sil-1"], env, t.io)).toBe(0);
    expect(t.calls.at(-1)?.url).toBe("http://127.0.0.1:8787/api/system/silences/sil-1");
    expect(t.out.pop()).toMatch(/^expired sil-1 {2}expired/);
    expect(t.calls[0]?.url).toBe("http://mon:9000/api/system/silences");
  });

  it("reports the monitor's refusal with the fields, and exits 1", async () => {
    const t = io(
      () =>
        new Response(
          JSON.stringify({
            error: {
              code: "invalid",
              message: "the silence is invalid",
              details: [{ path: "ends_at", message: "must be at most 30 days from now" }],
            },
          }),
          { status: 422 },
        ),
    );
    expect(
      await silenceMain(["add", "--rule", "disk_high", "--for", "40d", "--reason", "x"], env, t.io),
    ).toBe(1);
    expect(t.err.join("")).toContain("ends_at: must be at most 30 days from now");
  });

  it("refuses bad usage with one line and exit 2; --help prints the usage with an example", async () => {
    const t = io(() => new Response("{}"));
    expect(await silenceMain(["add", "--for", "2h", "--reason", "x"], env, t.io)).toBe(2);
    expect(t.err.pop()).toMatch(/missing matcher/);
    expect(await silenceMain(["add", "--rule", "disk_high", "--reason", "x"], env, t.io)).toBe(2);
    expect(t.err.pop()).toMatch(/--for DURATION or --until/);
    expect(await silenceMain(["expire"], env, t.io)).toBe(2);
    expect(await silenceMain(["list"], {}, t.io)).toBe(2);
    expect(t.err.pop()).toMatch(/missing token/);
    expect(await silenceMain(["list", "--reason", "x"], env, t.io)).toBe(2);
    expect(() => parseSilenceArgs(["nope"], env, NOW)).toThrow(/unknown silence subcommand/);
    expect(await silenceMain(["--help"], {}, t.io)).toBe(0);
    expect(t.out.pop()).toBe(`${SILENCE_USAGE}\n`);
    expect(SILENCE_USAGE).toContain("examples:");
    expect(t.calls).toEqual([]);
  });
});
