// "The README stands alone": every shell command of README.md runs, in order, in one shell, the way a
// newcomer pastes them into a second terminal while `npm start` runs in the first. The stack is the
// real `npm start` entry on a free port with a fresh data folder; the commands run in a folder that
// looks like the reader's clone (the repository's entries linked in, `.data` its own), so `npx
// relevance`, `./.data/demo.json` and `training/…` resolve as they do for the reader, and files the
// commands write stay out of the repository. A command the README gains is run unless NOT_RUN names
// it, and NOT_RUN may name only commands the README has, so the list stays exact.
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN_PLACEHOLDER,
  anchorLinks,
  asReaderRunsIt,
  headingAnchors,
  MONITOR_TOKEN_PLACEHOLDER,
  type ReadmeCommand,
  readmeCommands,
  relativeLinks,
  untaggedFences,
} from "./readme-commands.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN, type RunningStack, spawnStack } from "./test-support.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const COMMANDS = readmeCommands(README);

/**
 * README commands this test does not run, each with why (keys: the command on one line, as
 * `normalizeCommand` writes it). Everything else in a sh/bash/shell block runs.
 */
const NOT_RUN: Record<string, string> = {
  "npm install": "installs the dependencies: this test runs inside an installed checkout",
  "npm start":
    "runs in the foreground until Ctrl-C: the test starts the same entry (apps/local/src/main.ts) itself, on a free port with a fresh data folder",
  "npm test": "runs every test, this one included",
};

/**
 * What a command must print on stdout besides exiting 0, for the commands whose point is what they
 * show (keys: a part of the one-line command). Each key must match a README command.
 */
const SHOWS: [string, RegExp][] = [
  ["/healthz", /"status":"ok"/],
  ["curl -s -i -X POST http://127.0.0.1:8787/api/v1/indexes/products/search", /"relevanceScore":\d/],
  ["/indexes/catalog/search", /"relevanceScore":\d/],
  ["/api/v1/admin/accounts", /"apiKey":"rk_/],
  ["/api/system/status", /"collectors":\[/],
  ["relevance features log", /wrote features\.jsonl: 50 rows/],
  ["relevance model inspect", /products:v2/],
  ["relevance rollout", /products:v2/],
  ["relevance config get", /products:v2/],
  ["relevance --help", /Commands:/],
  ["relevance model export --help", /Examples:/],
  ["relevance model predict", /"score":/],
];

/** Variables of this process's environment that the commands must get from the README, not from here. */
const SCRUBBED = ["ADMIN_TOKEN", "MONITOR_TOKEN", "API_KEY", "ACCOUNT", "DATA_DIR", "PORT", "LOG_FORMAT"];

describe("README.md stands alone", () => {
  it("tags every fence, so that no command hides in an untagged block", () => {
    expect(untaggedFences(README)).toEqual([]);
  });

  it("links only to files in the repository", () => {
    const missing = relativeLinks(README).filter((path) => !existsSync(join(ROOT, path)));
    expect(missing).toEqual([]);
    expect(README).not.toMatch(/\]\(\.\.\//);
    const anchors = headingAnchors(README);
    expect(anchorLinks(README).filter((a) => !anchors.includes(a))).toEqual([]);
  });

  it("names in NOT_RUN and SHOWS only commands it has, and asks for both tokens", () => {
    const normalized = COMMANDS.map((c) => c.normalized);
    expect(Object.keys(NOT_RUN).filter((c) => !normalized.includes(c))).toEqual([]);
    expect(SHOWS.filter(([part]) => !normalized.some((c) => c.includes(part))).map(([p]) => p)).toEqual([]);
    expect(README).toContain(ADMIN_TOKEN_PLACEHOLDER);
    expect(README).toContain(MONITOR_TOKEN_PLACEHOLDER);
  });
});

describe("every command of README.md, against a real npm start", () => {
  let stack: RunningStack;
  let clone: string;
  let port: number;
  const linked: string[] = [];

  beforeAll(async () => {
    clone = mkdtempSync(join(tmpdir(), "readme-"));
    for (const entry of readdirSync(ROOT)) {
      if (entry === ".git" || entry === ".data") continue;
      symlinkSync(join(ROOT, entry), join(clone, entry));
      linked.push(join(clone, entry));
    }
    stack = await spawnStack({ DEMO: "1", DATA_DIR: join(clone, ".data"), PORT: "0" });
    port = Number(new URL(stack.url).port);
    // The reader starts pasting once the banner is up: it comes with the first scored search.
    await stack.waitFor((l) => l.message === "demo search ready: run the curl for a scored search", 180_000);
  }, 240_000);

  afterAll(async () => {
    await stack?.kill("SIGTERM");
    // The links first, one by one: removing the folder must never reach into the repository.
    for (const link of linked) unlinkSync(link);
    rmSync(clone, { recursive: true, force: true });
  });

  it("runs each command with exit 0, in README order, and each shows what the README says it shows", async () => {
    const run = COMMANDS.filter((c) => NOT_RUN[c.normalized] === undefined);
    expect(run.length).toBeGreaterThan(10);
    const outDir = join(clone, ".readme-run");
    mkdirSync(outDir);
    const facts = { port, adminToken: ADMIN_TOKEN, monitorToken: MONITOR_TOKEN };
    const script = [
      "set -o pipefail",
      // The reader sees an HTTP error in curl's output; here it must fail the command.
      'curl() { command curl --fail-with-body "$@"; }',
      // The README's note for a port other than 8787: export it for the relevance commands too.
      `export PORT=${port}`,
      ...run.map((c, i) =>
        [
          "{",
          asReaderRunsIt(c.text, facts),
          `} >${outDir}/${i}.out 2>${outDir}/${i}.err </dev/null`,
          `echo $? >${outDir}/${i}.rc`,
          `[ "$(cat ${outDir}/${i}.rc)" = 0 ] || exit 0`,
        ].join("\n"),
      ),
    ].join("\n");
    writeFileSync(join(outDir, "readme.sh"), script);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of SCRUBBED) delete env[name];
    await new Promise<void>((resolve, reject) => {
      const child = spawn("bash", [join(outDir, "readme.sh")], { cwd: clone, env, stdio: "ignore" });
      child.once("error", reject);
      child.once("close", () => resolve());
    });

    const read = (i: number, ext: string) => {
      const path = join(outDir, `${i}.${ext}`);
      return existsSync(path) ? readFileSync(path, "utf8") : null;
    };
    const report = (c: ReadmeCommand, i: number, why: string) =>
      `README.md:${c.line}: ${c.normalized}\n  ${why}\n  stdout: ${(read(i, "out") ?? "").slice(-600)}\n  stderr: ${(read(i, "err") ?? "").slice(-600)}`;
    const failures: string[] = [];
    run.forEach((c, i) => {
      const rc = read(i, "rc");
      if (rc === null) return; // not reached: an earlier command failed and is reported
      if (rc.trim() !== "0") {
        failures.push(report(c, i, `exited ${rc.trim()}`));
        return;
      }
      for (const [part, shows] of SHOWS)
        if (c.normalized.includes(part) && !shows.test(read(i, "out") ?? ""))
          failures.push(report(c, i, `does not show ${shows}`));
    });
    expect(failures).toEqual([]);
    // Every command ran (none was skipped because an earlier one failed).
    expect(run.map((_, i) => read(i, "rc")?.trim())).toEqual(run.map(() => "0"));
  }, 300_000);
});
