import { describe, expect, it } from "vitest";
import { MAINTENANCE_USAGE, maintenanceMain, parseMaintenanceArgs } from "./maintenance.ts";

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

const weekly = {
  id: "mw-1",
  scope: { all: true },
  author: "ann",
  reason: "patching",
  kind: "recurring",
  schedule: "0 2 * * 0",
  timezone: "Europe/Berlin",
  duration_minutes: 120,
  state: "pending",
  starts_at: "2026-11-29T01:00:00.000Z",
  ends_at: "2026-11-29T03:00:00.000Z",
};

describe("svcmon maintenance", () => {
  it("add posts a one-off window for collectors, ending --for after now, and prints its id", async () => {
    const t = io(() => new Response(JSON.stringify({ ...weekly, id: "mw-2" }), { status: 201 }));
    const code = await maintenanceMain(
      ["add", "--collector", "config_ec2", "--collector", "config_ebs", "--for", "2h", "--reason", "upgrade"],
      env,
      t.io,
    );
    expect(code).toBe(0);
    expect(t.out).toEqual(["mw-2\n"]);
    expect(t.calls[0]?.url).toBe("http://127.0.0.1:8787/api/system/maintenance");
    expect(t.calls[0]?.init?.redirect).toBe("manual");
    expect(JSON.parse(String(t.calls[0]?.init?.body))).toEqual({
      scope: { collectors: ["config_ec2", "config_ebs"] },
      author: "ann",
      reason: "upgrade",
      ends_at: "2026-11-25T14:00:00.000Z",
    });
  });

  it("add posts a recurring window: schedule, time zone, duration in minutes", () => {
    const a = parseMaintenanceArgs(
      [
        "add",
        "--all",
        "--schedule",
        "0 2 * * 0",
        "--timezone",
        "Europe/Berlin",
        "--duration",
        "2h",
        "--reason",
        "r",
      ],
      env,
      NOW,
    );
    expect(a.command).toEqual({
      kind: "add",
      body: {
        scope: { all: true },
        author: "ann",
        reason: "r",
        schedule: "0 2 * * 0",
        timezone: "Europe/Berlin",
        duration_minutes: 120,
      },
    });
  });

  it("refuses unclear arguments with exit code 2", async () => {
    for (const argv of [
      ["add", "--for", "2h", "--reason", "r"],
      ["add", "--all", "--account", "1", "--for", "2h", "--reason", "r"],
      ["add", "--all", "--schedule", "0 2 * * 0", "--reason", "r"],
      ["add", "--all", "--schedule", "0 2 * * 0", "--duration", "2h", "--for", "1h", "--reason", "r"],
      ["add", "--all", "--for", "2h"],
      ["end"],
      ["nope"],
    ]) {
      const t = io(() => new Response("{}"));
      expect(await maintenanceMain(argv, env, t.io)).toBe(2);
      expect(t.calls).toEqual([]);
    }
  });

  it("list prints one line per window; end deletes and prints it; a 422 names the field", async () => {
    const list = io(() => new Response(JSON.stringify({ generated_at: "x", maintenance: [weekly] })));
    expect(await maintenanceMain(["list"], env, list.io)).toBe(0);
    expect(list.out.join("")).toContain('mw-1  pending  all  "0 2 * * 0" Europe/Berlin for 120 min');

    const end = io(() => new Response(JSON.stringify({ ...weekly, state: "over" })));
    expect(await maintenanceMain(["end", "mw-1"], env, end.io)).toBe(0);
    expect(end.calls[0]?.init?.method).toBe("DELETE");
    expect(end.calls[0]?.url).toBe("http://127.0.0.1:8787/api/system/maintenance/mw-1");

    const refused = io(
      () =>
        new Response(
          JSON.stringify({
            error: {
              message: "invalid",
              details: [{ path: "duration_minutes", message: "must be from 1 to 1440" }],
            },
          }),
          { status: 422 },
        ),
    );
    expect(
      await maintenanceMain(
        ["add", "--all", "--until", "2026-11-26T00:00:00Z", "--reason", "r"],
        env,
        refused.io,
      ),
    ).toBe(1);
    expect(refused.err.join("")).toContain("duration_minutes: must be from 1 to 1440");
  });

  it("prints its usage on --help", async () => {
    const t = io(() => new Response("{}"));
    expect(await maintenanceMain(["--help"], env, t.io)).toBe(0);
    expect(t.out).toEqual([`${MAINTENANCE_USAGE}\n`]);
  });
});
