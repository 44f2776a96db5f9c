/**
 * `npm start` in a real pseudo-terminal (util-linux `script`), as a person runs it: the banner
 * within a screen, colour, the curl pasted as is into a shell (`/bin/sh -c`) answering a scored
 * search; and LOG_FORMAT=json on the same terminal giving the JSON lines with the curl in a field.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAIN } from "./test-support.ts";

// util-linux `script` gives the process a pseudo-terminal. It ships with every Linux (bsdutils is
// Essential on Debian): its absence fails the suite with the reason rather than skipping it.
const hasScript = spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;
const dataDir = mkdtempSync(join(tmpdir(), "start-tty-"));
const running = new Set<ChildProcess>();

afterAll(() => {
  // A test that failed before stopping its stack leaves it running.
  for (const child of running) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** main.ts under `script`, whose stdout is a terminal; the output as the terminal shows it. */
function startInTerminal(env: Record<string, string>) {
  const { LOG_FORMAT: _l, NO_COLOR: _n, ...inherited } = process.env;
  // `script -c` runs the command through $SHELL; dash (Debian's /bin/sh, the shell when SHELL is
  // unset, as under CI) does not exec a lone command, so Ctrl-C would kill the shell (exit 130)
  // rather than reach the stack's own handler. `exec` makes the stack the terminal's process.
  const command = `exec ${[process.execPath, "--disable-warning=ExperimentalWarning", MAIN].map(quote).join(" ")}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    env: { ...inherited, SHELL: "/bin/sh", TERM: "xterm", PORT: "0", DATA_DIR: dataDir, DEMO: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
    // Its own process group: the stop signal reaches script and the stack under it.
    detached: true,
  });
  running.add(child);
  let output = "";
  const waiters = new Set<() => void>();
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    // The terminal ends lines with CR LF.
    output += chunk.replaceAll("\r\n", "\n");
    for (const w of waiters) w();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    text: () => output,
    until: (predicate: (text: string) => boolean) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (!predicate(output)) return;
          waiters.delete(check);
          resolve(output);
        };
        waiters.add(check);
        void exited.then(() => reject(new Error(`npm start exited early:\n${output}`)));
        check();
      }),
    /** Ctrl-C typed at the terminal: the terminal sends SIGINT to the stack. */
    async stop() {
      child.stdin?.write("\u0003");
      const code = await exited;
      running.delete(child);
      return code;
    },
  };
}

/** Pastes a command line into a shell, as a person would; the JSON the command prints. */
function paste(commandLine: string): { relevanceScore?: unknown; hits?: unknown[] } {
  const r = spawnSync("/bin/sh", ["-c", commandLine], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe("npm start in a terminal", () => {
  it("has util-linux script to open a pseudo-terminal with", () => {
    expect(hasScript, "util-linux `script` (package bsdutils/util-linux) is needed by this test").toBe(true);
  });

  it("shows the banner within a screen, and its curl pasted into a shell answers a scored search", async () => {
    const stack = startInTerminal({});
    const text = await stack.until((t) => t.includes("Log lines follow"));
    const lines = text.split("\n");
    const title = lines.findIndex((l) => l.includes("npm start: the local stack is running"));
    expect(title).toBeGreaterThan(0);
    expect(title).toBeLessThan(24);
    // No JSON lines for a person; the title in bold: colour on a terminal.
    expect(lines.some((l) => l.startsWith("{"))).toBe(false);
    expect(lines[title]).toBe("\u001b[1mnpm start: the local stack is running\u001b[0m");
    expect(text).toMatch(/System status {2}http:\/\/127\.0\.0\.1:\d+\/system/);
    expect(text).toMatch(/Monitor token {2}\S+ {3}\(generated for this run/);
    expect(text).toMatch(/Demo API key {3}in \S+\/demo\.json/);
    // Not one character of the key on the screen: the curl reads it from a file.
    expect(text).not.toMatch(/rk_/);

    const curls = lines.filter((l) => l.startsWith("curl "));
    expect(curls).toHaveLength(1);
    const curl = curls[0] as string;
    expect(curl).not.toMatch(/[\\\u001b]/);
    const answer = paste(curl);
    expect(typeof answer.relevanceScore).toBe("number");
    expect(answer.hits).toHaveLength(20);

    expect(await stack.stop()).toBe(0);
    // Quiet, readable lines after the banner; fields dimmed.
    expect(stack.text()).toMatch(
      /\u001b\[2m\d\d:\d\d:\d\d\u001b\[0m info {2}\u001b\[36mlocal {2}\u001b\[0m shutting down \u001b\[2msignal=SIGINT/,
    );
  }, 60_000);

  it("prints today's JSON lines on the terminal with LOG_FORMAT=json, the curl in a field", async () => {
    const stack = startInTerminal({ LOG_FORMAT: "json" });
    const text = await stack.until((t) => t.includes('"message":"demo data ready"'));
    const lines = text.split("\n").filter((l) => l !== "");
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const ready = parsed.find((l) => l.message === "demo data ready");
    expect(Object.keys(ready ?? {})).toEqual([
      "time",
      "level",
      "component",
      "message",
      "systemAccountId",
      "apiKey",
      "modelId",
      "curl",
    ]);
    expect(text).not.toContain("npm start: the local stack is running");
    const answer = paste(ready?.curl as string);
    expect(typeof answer.relevanceScore).toBe("number");
    expect(await stack.stop()).toBe(0);
  }, 60_000);
});
